"""``python -m llama_sim``: the command line. A Ctrl-C while the command line is still being
imported (a second or two) is the same one line and exit status 130 as one during a run."""
import sys

try:
    from llama_sim.cli import main
except KeyboardInterrupt:
    print("llamasim: interrupted; nothing written", file=sys.stderr)
    sys.exit(130)

main()
