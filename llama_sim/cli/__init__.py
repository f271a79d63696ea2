"""The ``llamasim`` command line: a thin layer over the Python API.

Each command parses its options, calls ``llama_sim.api`` and prints. Every user error becomes one
line on stderr and exit status 2 (``main``); Ctrl-C one line and status 130.
"""
from __future__ import annotations

import atexit
import errno
import functools
import gc
import os
import sys

import typer

try:  # typer >= 0.20 ships its own copy of click; older versions use click itself
    from typer._click import exceptions as cx
except ImportError:  # pragma: no cover - depends on the installed typer
    from click import exceptions as cx

from llama_sim.cli import listing, play, questions, reports, authors  # noqa: F401  (their commands register, in this order)
from llama_sim.cli.app import DEBUG, app
from llama_sim.core import interrupt
from llama_sim.core.errors import UsageError
from llama_sim.core.ruleset import all_games, option_flag

_METAVARS = {"--game": "GAME", "game": "GAME", "--seat": "STRATEGY", "--vs": "STRATEGY", "--strategy": "STRATEGY",
             "strategy": "STRATEGY", "--param": "K=LO:HI:STEP", "--format": "table|csv|json", "--view": "VIEW",
             "--backend": "local|dask", "--scheduler": "ADDRESS", "--metric": "METRIC",
             "--row": "ROW", "--llama-row": "ROW", "--strategies-file": "FILE.py",
             "--out": "FILE"}
_TYPE_METAVARS = {"int": "N", "float": "X", "Path": "PATH", "str": "TEXT"}


def _readable_metavars(command) -> None:
    """Give every option and argument without a metavar a readable one, by name or by type."""
    for sub in getattr(command, "commands", {}).values():
        _readable_metavars(sub)
    for param in command.params:
        if param.param_type_name == "argument":  # its name is shown; typer would add <list[str]>
            param.display_type_rich = lambda ctx=None: None
        if param.metavar is not None or getattr(param, "is_flag", False):
            continue
        name = max(param.opts, key=len) if param.opts else param.name
        kind = getattr(param, "bare_type", lambda: "")().removeprefix("list[").removesuffix("]")
        param.metavar = _METAVARS.get(name) or option_metavars().get(name) or _TYPE_METAVARS.get(kind, "VALUE")


def option_metavars() -> dict[str, str]:
    """Every rule set's option flags -> the metavar it declares for them (``RuleSet.option_metavars``)."""
    return {option_flag(option): metavar for rule_set in all_games().values()
            for option, metavar in rule_set.option_metavars.items()}



def _interrupted(signum, frame) -> None:
    """Ctrl-C and SIGTERM: raise ``Interrupted`` (kept until a file being installed is in place)."""
    from llama_sim.core.errors import Interrupted
    from llama_sim.core.files import hold_signal

    if hold_signal(signum):
        return
    interrupt.REQUESTED.set()
    raise Interrupted(signum)


def _unraisable(previous):
    """``sys.unraisablehook`` while a command runs: Python prints an exception it cannot raise where it
    happened (in a callback from C: Numba's loader calls llvmlite's object cache through ctypes) and goes
    on. The Ctrl-C handler's is not printed: the command stops at its next kernel call, or when it ends
    (``interrupt.REQUESTED``), with its one line."""

    def hook(unraisable) -> None:
        from llama_sim.core.errors import Interrupted

        if not issubclass(unraisable.exc_type, (Interrupted, KeyboardInterrupt)):
            previous(unraisable)

    return hook


def _say(line: str) -> None:
    """One line on stderr; a closed or full stderr loses it, never turns it into a traceback."""
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError, AttributeError):
        _quiet(sys.stderr)


def _standard_streams() -> None:
    """Keep file descriptors 0-2 open (on /dev/null if the caller closed them), so no output file
    is opened as descriptor 1 or 2 and receives what is printed; ``sys.stderr`` is never None."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            os.open(os.devnull, os.O_RDWR)  # the lowest free descriptor: this one
    if sys.stderr is None:
        sys.stderr = open(2, "w", closefd=False)
    if sys.stdout is None:
        sys.stdout = open(1, "w", closefd=False)


def _quiet(stream=None) -> None:
    """After writing to ``stream`` (stdout by default) failed (reader gone, disk full): point its
    descriptor at /dev/null, so the interpreter's last flush of what it still holds does not fail
    again and turn the exit status into 120."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), (stream or sys.stdout).fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _flush_stderr() -> None:
    """Flush what stderr holds (a progress line, a message) now: if it cannot be written, quiet it."""
    try:
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        _quiet(sys.stderr)


def _broken_pipe(exc: BaseException) -> bool:
    while exc is not None:
        if isinstance(exc, OSError) and exc.errno == errno.EPIPE:
            return True
        exc = exc.__context__
    return False


def _strategy_failed(exc: BaseException) -> str | None:
    """The line for an exception a strategies file's code raised (naming its strategy, whatever it
    says) or for an engine's illegal-action report; None for any other."""
    from llama_sim.core.errors import ILLEGAL_ACTION, raised_by_a_strategies_file

    if raised_by_a_strategies_file(exc):
        from llama_sim.core import registry

        return str(registry.failed_while_playing(exc, registry.loaded_from_files()))
    if isinstance(exc, ValueError) and ILLEGAL_ACTION in str(exc):
        return f"{exc} (check the strategy's use of the legal mask)"
    return None


@functools.cache  # (once per process, however many commands run in it)
def _no_collection_at_exit() -> None:
    """Python's last garbage collection at exit walks every object Numba's compiler made: about 0.3 s
    at the end of each command that ran a kernel, to free memory the process hands back anyway. Objects
    frozen (``gc.freeze``) are left out of it. Exit handlers still run and the streams are still
    flushed; only objects in reference cycles are left to the operating system (every file this
    package writes is closed before its command returns). Registered before a command imports anything
    that registers its own exit handler, so it runs after them."""
    atexit.register(gc.freeze)


def _unknown_option(exc) -> str | None:
    """An option a declared command does not take, in the words the API and a spec use
    (``precision: sweep has no such parameter ...``); None for any other usage error."""
    from llama_sim.core.commands import COMMANDS, Problem

    name = getattr(exc, "option_name", None)
    command = COMMANDS.get(getattr(getattr(exc.ctx, "command", None), "name", None) or "")
    if not isinstance(exc, cx.NoSuchOption) or command is None or not name.startswith("--"):
        return None
    try:
        command.unknown(name[2:].replace("-", "_"))
    except Problem as problem:
        return str(problem)
    return None


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the app, turning every usage problem into one line and exit status 2,
    Ctrl-C into one line and status 130 and SIGTERM into one line and 143 (no file is written: see
    ``core.files``), a reader that left stdout (``| head``) into a quiet exit 0, and a file or
    stdout that cannot be written into one line and status 1."""
    import signal
    import threading

    from llama_sim.core.errors import Interrupted
    from llama_sim.core.files import installed
    from llama_sim.core.interrupt import played

    _no_collection_at_exit()
    played.update(rounds=0, games=0)
    installed.clear()
    interrupt.REQUESTED.clear()
    DEBUG["on"] = False
    _standard_streams()
    # Ctrl-C raises our own exception: click would turn a KeyboardInterrupt into its own message.
    previous = {}
    if threading.current_thread() is threading.main_thread():
        previous = {s: signal.signal(s, _interrupted) for s in (signal.SIGINT, signal.SIGTERM)}
    unraisable_hook = sys.unraisablehook
    sys.unraisablehook = _unraisable(unraisable_hook)
    try:
        command = typer.main.get_command(app)
        _readable_metavars(command)
        try:
            command.main(args=argv, standalone_mode=False, prog_name="llamasim")
        except cx.NoArgsIsHelpError as exc:  # (a command without its arguments) its help, as --help
            print(exc.ctx.get_help() if exc.ctx else exc.format_message())
        sys.stdout.flush()
        if interrupt.REQUESTED.is_set():  # a Ctrl-C some library swallowed, and no kernel call after it
            raise Interrupted()
    except (Interrupted, KeyboardInterrupt, typer.Abort) as exc:
        signum = exc.args[0] if isinstance(exc, Interrupted) and exc.args else signal.SIGINT
        _say(interrupt.stop_line(signum))
        if interrupt.still_running():  # compiled code cannot be stopped: end the process, threads and all
            _quiet()
            os._exit(128 + signum)
        sys.exit(128 + signum)
    except UsageError as exc:
        _say(f"llamasim: error: {exc}")
        if DEBUG["on"] and exc.details:
            _say(exc.details)
        sys.exit(2)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except cx.UsageError as exc:
        message = _unknown_option(exc) or " ".join(exc.format_message().split())
        _say(f"llamasim: error: {message}")
        sys.exit(2)
    except SystemExit as exc:  # click's own exit 1 after a reader left stdout: a quiet exit 0
        if exc.code == 1 and _broken_pipe(exc.__context__):
            _quiet()
            sys.exit(0)
        raise
    except OSError as exc:
        if _broken_pipe(exc):  # e.g. `llamasim ... | head`: the reader left, nothing to report
            _quiet()
            sys.exit(0)
        where = f"{exc.filename}: " if exc.filename else "writing the output: "
        if not exc.filename:
            _quiet()
        _say(f"llamasim: error: {where}{exc.strerror or exc}")
        if DEBUG["on"]:
            import traceback

            _say(traceback.format_exc().rstrip())
        sys.exit(1)
    except cx.ClickException as exc:
        _say(f"llamasim: error: {exc.format_message()}")
        sys.exit(exc.exit_code)
    except Exception as exc:  # a user's strategy failed, or broke the policy contract, where no command
        line = _strategy_failed(exc)  # turned it into its one line (grade's roll-outs call policies
        if line is None:  # from Python): their input, so one line, not a traceback
            raise
        _say(f"llamasim: error: {line}")
        sys.exit(2)
    finally:
        _flush_stderr()
        sys.unraisablehook = unraisable_hook
        for s, handler in previous.items():
            signal.signal(s, handler)
        interrupt.REQUESTED.clear()  # (a caller that goes on, e.g. a test, runs kernels again)
