"""The one exception type that the CLI turns into a one-line message and exit status 2, and the
convention by which every engine reports a policy's illegal action.

Illegal actions: every kernel checks each action against its own record of what is legal (never
against anything a policy can write) and, on an illegal one, does
``raise ValueError(ILLEGAL_ACTION, entry, seat, action)`` with integer ``entry`` (the line-up
entry, an index into the plan's entries), ``seat`` and ``action`` (Numba passes runtime exception
arguments through). A reference engine raises the same, with the entry its seat's player carries
(``common.SeatEntry``, read with ``common.entry_of``). The Python layer that runs chunks
(``chunks.run_chunk``, on local threads and on Dask workers alike) turns it into a
``UsageError`` with ``illegal_action_error``.

A strategies file's policy may raise anything, that report's shape included: what its code raised is
told apart by where it was raised (``raised_by_a_strategies_file``), never by what it says."""
import sys

ILLEGAL_ACTION = "illegal action"
USER_MODULE_PREFIX = "llamasim_user_"  # the module names ``registry.load_file`` gives strategies files


class UsageError(ValueError):
    """Bad input from a user: unknown game or strategy, bad parameter, impossible position.

    ``details`` optionally holds the long text behind the one line (e.g. Numba's full compile
    error), which the CLI prints with ``--debug``."""

    def __init__(self, message: str = "", details: str | None = None):
        super().__init__(message)
        self.details = details

    def __reduce__(self):  # keep ``details`` when a Dask worker sends the error back
        return type(self), (str(self), self.details)


class Interrupted(Exception):
    """Raised by the CLI's Ctrl-C handler instead of ``KeyboardInterrupt``, so that no library
    (click, Dask) turns it into its own message (``core.interrupt.played`` tells how far the process
    got). Code that reports other exceptions as the user's errors lets this one through."""


def raise_site(exc: BaseException) -> tuple[str, str, int] | None:
    """(file, function, line) where ``exc`` was raised: the innermost frame of its traceback. Numba adds
    that frame for a ``raise`` statement in compiled code, so a policy's own exception is placed in its
    file; a bounds check or an arithmetic error gets none (the innermost frame is then the Python that
    called the kernel)."""
    tb = exc.__traceback__
    if tb is None:
        return None
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_code.co_filename, tb.tb_frame.f_code.co_name, tb.tb_lineno


def raised_by_a_strategies_file(exc: BaseException) -> bool:
    """True when ``exc`` was raised by the code of a loaded strategies file, whatever it says."""
    site = raise_site(exc)
    files = {getattr(module, "__file__", None) for name, module in list(sys.modules.items())
             if name.startswith(USER_MODULE_PREFIX)}
    return site is not None and site[0] in files


def illegal_action_args(exc: BaseException) -> tuple[int, int, int] | None:
    """(entry, seat, action) of an engine's illegal-action error, None for any other exception (one a
    strategies file raised in that shape included)."""
    args = getattr(exc, "args", ())
    if (isinstance(exc, ValueError) and len(args) == 4 and args[0] == ILLEGAL_ACTION
            and not raised_by_a_strategies_file(exc)):
        return int(args[1]), int(args[2]), int(args[3])
    return None


def illegal_action_error(exc: BaseException, labels, action_names, position=None) -> UsageError | None:
    """The one line a user reads for an engine's illegal-action error, e.g.
    ``strategy 'cheat' (seat 2) chose an illegal action: play 3, having seen seat 2 of 4, turn 5: hand
    ...; legal: draw, quit``; None for any other exception. ``labels[entry]`` names the strategy,
    ``action_names[action]`` the action; ``position()`` (called only for an illegal action) gives what
    the player saw in words, or None when it cannot tell."""
    got = illegal_action_args(exc)
    if got is None:
        return None
    entry, seat, action = got
    label = labels[entry] if 0 <= entry < len(labels) else f"entry {entry}"
    name = action_names[action] if 0 <= action < len(action_names) else f"action {action}"
    seen = position() if position is not None else None
    return UsageError(f"strategy '{label}' (seat {seat}) chose an illegal action: {name}"
                      + (f", having seen {seen}" if seen else ""))
