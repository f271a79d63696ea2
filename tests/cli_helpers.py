"""Running the CLI in-process, for the tests of every command."""
from llama_sim.cli import main


def call(capsys, *args):
    """Run ``llamasim ARGS`` in this process; return (exit status, stdout, stderr)."""
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = exc.code or 0
    out, err = capsys.readouterr()
    return code, out, err
