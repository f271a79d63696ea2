"""``python -m llama_sim`` and the ``llamasim`` console script (``run``): the command line.

Ctrl-C (or SIGTERM) at any moment of the process is one line and exit status 130 (143): during a
command ``cli.main`` reports it; before it (importing the command line takes a second or two) and
after it, ``run`` does. Only the interpreter's own start, before this module runs, is left out.
"""
import os
import signal

from llama_sim.core import interrupt


def _stopped(signum, frame) -> None:
    """Outside a command nothing is left to clean up or finish: say so and end at once."""
    try:
        os.write(2, (interrupt.stop_line(signum) + "\n").encode())
    except OSError:
        pass
    os._exit(128 + signum)


def run() -> None:
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, _stopped)
    from llama_sim.cli import main

    main()


if __name__ == "__main__":
    run()
