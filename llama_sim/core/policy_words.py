"""A strategies file's compile failures in its author's words, with the file and the line.

Numba reports in its own terms: a path without a ``return`` is "No conversion from none to int64 for
'$132return_value.1'", ``max(xs, key=f)`` a page of candidate overloads, a float action is silently
truncated (7.9 played as 7). An author needs what is wrong in Python's terms and where: these
functions say it in one line. Numba's whole message stays behind ``--debug``.
"""
from __future__ import annotations

import re
from pathlib import Path

from numba.core import ir, types

INTEGER_ACTION = "an action is an integer (e.g. return DRAW, or int(x))"


def _where(filename: str, line: int | None) -> str:
    return f"{Path(filename).name}, line {line}" if line else Path(filename).name


def _returned(cres) -> list[tuple[int, object]]:
    """(line, type) of each value the compiled function returns, in line order: Numba casts every
    returned value to the function's return type, and those casts keep the ``return``'s line."""
    annotation = cres.type_annotation
    found = []
    for block in annotation.blocks.values():
        for stmt in block.body:
            if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Expr) and stmt.value.op == "cast":
                found.append((stmt.loc.line, annotation.typemap[stmt.value.value.name]))
    return sorted(found, key=lambda item: item[0])


def return_problem(cres, filename: str) -> str | None:
    """What is wrong with what a policy returns, compiled for the contract's arguments alone (None: an
    integer on every path). A path that ends without ``return`` returns None; a float, a boolean or an
    array is not an action."""
    returns = cres.signature.return_type
    if isinstance(returns, types.Integer) and not isinstance(returns, types.Boolean):
        return None
    returned = _returned(cres)
    nothing = [line for line, t in returned if t in (types.none, types.Omitted) or isinstance(t, types.NoneType)]
    if nothing and returns != types.none:
        return (f"a path through the policy ends without returning an action ({_where(filename, nothing[-1])}): "
                f"end every path with a return")
    if returns == types.none:
        return None  # code that only raises: the caller says so
    bad = [(line, t) for line, t in returned
           if not isinstance(t, (types.Integer, types.IntegerLiteral)) or isinstance(t, types.Boolean)]
    line, kind = bad[0] if bad else (None, returns)
    name = next((text for cls, text in ((types.Boolean, "a boolean"), (types.BooleanLiteral, "a boolean"),
                                        (types.Float, "a float"), (types.Array, "an array")) if isinstance(kind, cls)),
                str(kind))
    return f"returns {name} ({_where(filename, line)}), not an action: {INTEGER_ACTION}"


_BUILTIN = re.compile(r"No implementation of function Function\(<(?:built-in function |class ')(\w+)'?>\) found for "
                      r"signature:\s*>*\s*(\w+)\(([^\n]*)\)")
_BIND = re.compile(r"Cannot bind 'args=.*?' to signature '(\(.*?\))' due to \"TypeError: (.*?)\"", re.S)
_CALLEE = re.compile(r"resolving callee type: type\(CPUDispatcher\(<function (\w+) at")
_FILE_LINE = re.compile(r'File "([^"]+)", line (\d+)')


def compile_error_line(exc: Exception) -> str:
    """One line for a Numba compile error: the common mistakes in Python's words, else Numba's first
    informative line; with the file and line where Numba gives them. (Numba's messages open with a
    generic 'Failed in nopython mode pipeline' line.)"""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))  # Numba colours its messages on a terminal
    place = _FILE_LINE.search(text)
    where = f" ({_where(place.group(1), int(place.group(2)))})" if place else ""
    if "Cannot modify readonly array" in text or "readonly" in text and "setitem" in text:
        return (f"writes into obs, hand or params, which are read-only (readonly arrays){where}: "
                f"work on a copy (h = hand.copy())")
    builtin = _BUILTIN.search(text)
    if builtin:
        name, args = builtin.group(1), builtin.group(3)
        keywords = re.findall(r"(?:^|, )(\w+)=", args)
        if keywords:
            return (f"{name}(..., {keywords[0]}=...) is not supported in compiled code{where}: "
                    f"write the loop out (keep the best value and its index as you go)")
        return f"{name}() cannot take these arguments in compiled code: {name}({_short(args)}){where}"
    bind = _BIND.search(text)
    if bind:
        callee = _CALLEE.search(text)
        who = f"{callee.group(1)}{bind.group(1)}" if callee else f"a function{bind.group(1)}"
        return f"{who} is called with the wrong arguments: {bind.group(2)}{where}"
    imprecise = re.search(r"Cannot infer the type of variable '(\w+)'", text)
    if imprecise:
        return (f"the type of '{imprecise.group(1)}' cannot be inferred{where}: an empty list or dict needs "
                f"its type from the start (np.zeros(n, np.int64), or a first element)")
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    lines = [ln for ln in lines if not ln.startswith(("Failed in ", "During: "))] or lines or [type(exc).__name__]
    first = lines[0]
    if first.endswith(":") and len(lines) > 1:  # "... found for signature:" + the signature
        first += " " + lines[1].lstrip("> ")
    return first + where


def _short(args: str) -> str:
    args = re.sub(r"<iv=[^>]*>", "", args)
    return args if len(args) <= 80 else args[:77] + "..."
