"""Running the CLI in-process, for the tests of every command, and watching one run in another process."""
import time

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


def wait_until(seen, proc, seconds: float = 120) -> None:
    """Poll every 20 ms until ``seen(proc.pid)``; the test fails if ``proc`` ends or ``seconds`` pass first."""
    deadline = time.monotonic() + seconds
    while not seen(proc.pid):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.02)
