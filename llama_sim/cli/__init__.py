"""The ``llamasim`` command line: a thin layer over the Python API.

Each command parses its options, calls ``llama_sim.api`` and prints. Every user error becomes one
line on stderr and exit status 2 (``main``); Ctrl-C one line and status 130.
"""
from __future__ import annotations

import os
import sys

import typer

try:  # typer >= 0.20 ships its own copy of click; older versions use click itself
    from typer._click import exceptions as cx
except ImportError:  # pragma: no cover - depends on the installed typer
    from click import exceptions as cx

from llama_sim.cli import listing, play, questions, reports  # noqa: F401  (their commands register, in this order)
from llama_sim.cli.app import DEBUG, app
from llama_sim.core import interrupt
from llama_sim.core.errors import UsageError

_METAVARS = {"--game": "GAME", "game": "GAME", "--seat": "STRATEGY", "--vs": "STRATEGY", "--strategy": "STRATEGY",
             "strategy": "STRATEGY", "--param": "K=LO:HI:STEP", "--format": "table|csv|json", "--view": "VIEW",
             "--backend": "local|dask", "--scheduler": "ADDRESS", "--metric": "METRIC", "--dice-layout": "LAYOUT",
             "--row": "ROW", "--llama-row": "ROW", "--deck-file": "FILE.toml", "--strategies-file": "FILE.py",
             "--out": "FILE"}
_TYPE_METAVARS = {"int": "N", "float": "X", "Path": "PATH", "str": "TEXT"}


def _readable_metavars(command) -> None:
    """Give every option and argument without a metavar a readable one, by name or by type."""
    for sub in getattr(command, "commands", {}).values():
        _readable_metavars(sub)
    for param in command.params:
        if param.metavar is not None or getattr(param, "is_flag", False):
            continue
        name = max(param.opts, key=len) if param.opts else param.name
        kind = getattr(param, "bare_type", lambda: "")().removeprefix("list[").removesuffix("]")
        param.metavar = _METAVARS.get(name) or _TYPE_METAVARS.get(kind, "VALUE")
        if param.param_type_name == "argument":  # its name is shown; typer would add <list[str]>
            param.display_type_rich = lambda ctx=None: None



def _interrupted(*_) -> None:
    from llama_sim.run.simulate import Interrupted

    interrupt.REQUESTED.set()
    raise Interrupted()


def _interrupt_message() -> str:
    from llama_sim.run.simulate import played

    done = f"{played['games']} games" if played["games"] and not played["rounds"] else f"{played['rounds']} rounds"
    return f"llamasim: interrupted after {done}; nothing written"


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the app, turning every usage problem into one line and exit status 2,
    and Ctrl-C into one line and status 130 (no file is written: see ``output.write_tables``)."""
    import signal
    import threading

    from llama_sim.run.simulate import Interrupted, played

    played.update(rounds=0, games=0)
    interrupt.REQUESTED.clear()
    DEBUG["on"] = False
    # Ctrl-C raises our own exception: click would turn a KeyboardInterrupt into its own message.
    previous = signal.signal(signal.SIGINT, _interrupted) if threading.current_thread() is threading.main_thread() else None
    command = typer.main.get_command(app)
    _readable_metavars(command)
    try:
        command.main(args=argv, standalone_mode=False, prog_name="llamasim")
    except (Interrupted, KeyboardInterrupt, typer.Abort):
        print(_interrupt_message(), file=sys.stderr, flush=True)
        if interrupt.still_running():  # compiled code cannot be stopped: end the process, threads and all
            sys.stdout.flush()
            os._exit(130)
        sys.exit(130)
    except UsageError as exc:
        print(f"llamasim: error: {exc}", file=sys.stderr)
        if DEBUG["on"] and exc.details:
            print(exc.details, file=sys.stderr)
        sys.exit(2)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except cx.NoArgsIsHelpError as exc:
        print(exc.ctx.get_help() if exc.ctx else exc.format_message())
        sys.exit(0)
    except cx.UsageError as exc:
        message = " ".join(exc.format_message().split())
        print(f"llamasim: error: {message}", file=sys.stderr)
        sys.exit(2)
    except BrokenPipeError:  # e.g. `llamasim ... | head`: the reader left, nothing to report
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
    except ValueError as exc:
        if "illegal action" not in str(exc):
            raise
        # A user's strategy broke the policy contract: their input, so one line, not a traceback.
        print(f"llamasim: error: {exc} (check the strategy's use of the legal mask)", file=sys.stderr)
        sys.exit(2)
    except cx.ClickException as exc:
        print(f"llamasim: error: {exc.format_message()}", file=sys.stderr)
        sys.exit(exc.exit_code)
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
