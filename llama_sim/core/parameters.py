"""A command parameter's declaration (``Param``) and how a value of each kind is read: strictly (a
boolean is a boolean, never the string "false"; a number is in range where it is read, never NaN or an
overflow; a list of player counts holds each count once), with the same words whichever entry point it
came from (``Problem``: ``name: problem``). The command line's text is converted first
(``text=True``). Nothing here imports numpy: the command line reads declarations at start-up.
"""
from __future__ import annotations

import math
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from llama_sim.core.errors import UsageError

MAX_SWEEP_VALUES = 200  # values of one swept parameter
MAX_SWEEP_GRID = 400  # points of a sweep's grid


class Problem(UsageError):
    """A parameter's value is wrong: ``<name>: <problem>``; ``name`` is the declared name, so an entry
    point can say where it was given (a spec names its step and key)."""

    def __init__(self, name: str, problem: str):
        super().__init__(f"{name}: {problem}")
        self.name = name
        self.problem = problem


def shown(value) -> str:
    """A value as the message quotes it: the same whether it came from TOML, JSON or Python."""
    if _is_bool(value):
        return "true" if value else "false"
    if isinstance(value, str):
        text = value if len(value) <= 40 else value[:37] + "..."
        return repr(text)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return f"{value:g}" if abs(value) >= 1e6 else str(value)
    if isinstance(value, (int, float)):
        return f"{value:g}" if isinstance(value, float) else str(value)
    if isinstance(value, (list, tuple)):
        text = "[" + ", ".join(shown(v) for v in value) + "]"
        return text if len(text) <= 40 else text[:37] + "..."
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__


def _is_bool(value) -> bool:
    numpy = sys.modules.get("numpy")  # a numpy bool only if numpy is loaded (the CLI starts without it)
    return isinstance(value, bool) or (numpy is not None and isinstance(value, numpy.bool_))


def _is_int(value) -> bool:
    numpy = sys.modules.get("numpy")
    return not _is_bool(value) and (isinstance(value, int) or (numpy is not None and isinstance(value, numpy.integer)))


def _is_number(value) -> bool:
    numpy = sys.modules.get("numpy")
    return _is_int(value) or isinstance(value, float) or (numpy is not None and isinstance(value, numpy.floating))


def _range_text(value: int | float) -> str:
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"


@dataclass(frozen=True)
class Param:
    """One parameter of a command.

    ``kind``: ``int``, ``float``, ``bool``, ``switch`` (a boolean given as on|off on the command line), ``str``, ``choice`` (one of ``choices``), ``path``, ``paths``
    (one or more; a single path is a list of one),
    ``strings`` (one or more; a single string is a list of one), ``counts`` (player counts: one, or a
    list where ``many``), ``edges`` (bin edges: increasing whole numbers, from text "0,1,2"),
    ``grid`` (a sweep's parameter ranges), ``variants`` (name -> rule options), ``spec`` (a spec file
    or table). ``low``/``high``: inclusive bounds of a number. ``flag``: the
    command-line option (None: a positional argument; "" : not on the command line); ``spec_key``:
    the key in an experiment spec step (None: the step does not take it)."""

    name: str
    kind: str
    help: str
    default: Any = None
    low: Optional[float] = None
    high: Optional[float] = None
    choices: tuple = ()
    required: bool = False
    flag: Optional[str] = "default"
    short: Optional[str] = None
    spec_key: Optional[str] = "default"
    api: bool = True
    many: bool = False  # counts: a list of counts is allowed
    metavar: Optional[str] = None
    sep: Optional[str] = None  # strings: on the command line, one option holding them split by this

    @property
    def cli_flag(self) -> Optional[str]:
        return "--" + self.name.replace("_", "-") if self.flag == "default" else self.flag

    @property
    def key(self) -> Optional[str]:
        return self.name if self.spec_key == "default" else self.spec_key

    @property
    def repeated(self) -> bool:
        """Given several times on the command line (``--seat A --seat B``)."""
        return self.kind in ("strings", "grid", "paths") and self.sep is None

    def fail(self, problem: str):
        raise Problem(self.name, problem)

    def read(self, value, *, text: bool = False):
        """The value checked (and, from the command line, ``text=True``, converted from its text);
        ``Problem`` names what is wrong. None is "not given" (the declared default applies)."""
        if value is None:
            if self.required:
                self.fail("is required")
            return self.default
        return getattr(self, f"_read_{self.kind}")(value, text)

    # one reader per kind -------------------------------------------------------------------------

    def _read_int(self, value, text: bool):
        if text and isinstance(value, str):
            try:
                value = int(value.strip().replace("_", ""))
            except ValueError:
                self.fail(f"must be a whole number, not {shown(value)}")
        if not _is_int(value):
            self.fail(f"must be a whole number, not {shown(value)}")
        value = int(value)
        return self._in_range(value)

    def _read_float(self, value, text: bool):
        if text and isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                self.fail(f"must be a number, not {shown(value)}")
        if not _is_number(value):
            self.fail(f"must be a number, not {shown(value)}")
        value = float(value)
        if not math.isfinite(value):
            self.fail(f"must be a finite number, not {shown(value)}")
        return self._in_range(value)

    def _in_range(self, value):
        if self.low is not None and value < self.low:
            self.fail(f"must be at least {_range_text(self.low)}, not {shown(value)}")
        if self.high is not None and value > self.high:
            self.fail(f"must be at most {_range_text(self.high)}, not {shown(value)}")
        return value

    def _read_bool(self, value, text: bool):
        if not _is_bool(value):
            self.fail(f"must be true or false, not {shown(value)}")
        return bool(value)

    def _read_switch(self, value, text: bool):
        """On or off: the text ``on``/``off`` (the command line's words) or a boolean, from every entry point."""
        if isinstance(value, str) and value in ("on", "off"):
            return value == "on"
        if not _is_bool(value):
            self.fail(f"must be on or off (true or false), not {shown(value)}")
        return bool(value)

    def _read_str(self, value, text: bool):
        if not isinstance(value, str):
            self.fail(f"must be a string, not {shown(value)}")
        if not value.strip():
            self.fail("must not be empty")
        if "\0" in value:
            self.fail("must not hold a NUL character")
        return value

    def _read_choice(self, value, text: bool):
        value = self._read_str(value, text)
        if value not in self.choices:
            self.fail(f"must be one of {', '.join(self.choices)}, not {shown(value)}")
        return value

    def _read_path(self, value, text: bool):
        if isinstance(value, os.PathLike):
            value = os.fspath(value)
        if not isinstance(value, str):
            self.fail(f"must be a path, not {shown(value)}")
        if not value.strip():
            self.fail("must not be empty")
        if "\0" in value:
            self.fail("must not hold a NUL character")
        return Path(value)

    def _read_paths(self, value, text: bool):
        if isinstance(value, (str, os.PathLike)):
            value = [value]
        if not isinstance(value, (list, tuple)):
            self.fail(f"must be a path or a list of paths, not {shown(value)}")
        if not value:
            self.fail("must not be an empty list")
        return [self._read_path(item, text) for item in value]

    def _read_strings(self, value, text: bool):
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, (list, tuple)):
            self.fail(f"must be a list of strings, not {shown(value)}")
        if not value:
            self.fail("must not be an empty list")
        out = []
        for item in value:
            if not isinstance(item, str):
                self.fail(f"must be a list of strings, not {shown(value)}")
            if not item.strip():
                self.fail("must not hold an empty string")
            out.append(item)
        return out

    def _read_counts(self, value, text: bool):
        values = value if isinstance(value, (list, tuple)) else [value]
        if isinstance(value, (list, tuple)) and not self.many:
            self.fail(f"must be one whole number, not {shown(value)}")
        if not values:
            self.fail("must not be an empty list")
        counts = [self._read_int(v, text) for v in values]
        for i, n in enumerate(counts):
            if n in counts[:i]:
                self.fail(f"lists {n} twice")
        return counts if isinstance(value, (list, tuple)) else counts[0]

    def _read_edges(self, value, text: bool):
        if isinstance(value, str) and text:
            parts = [p for p in value.replace(" ", "").split(",") if p]
            try:
                value = [int(p) for p in parts]
            except ValueError:
                self.fail(f"must be whole numbers separated by commas, e.g. 0,1,2,4, not {shown(value)}")
        if not isinstance(value, (list, tuple)) or not value or not all(_is_int(v) for v in value):
            self.fail(f"must be a list of whole numbers, e.g. [0, 1, 2, 4], not {shown(value)}")
        edges = [int(v) for v in value]
        if any(v < 0 for v in edges) or any(b <= a for a, b in zip(edges, edges[1:])):
            self.fail(f"must be increasing whole numbers from 0 on, not {shown(edges)}")
        return tuple(edges)

    def _read_grid(self, value, text: bool):
        """A sweep's grid: ``"k=lo:hi:step"``, a list of one or two of them, or a table of parameter ->
        ``"lo:hi:step"`` or a list of values; -> parameter -> values."""
        if isinstance(value, str):
            value = [value]
        if isinstance(value, (list, tuple)) and value and all(isinstance(v, str) for v in value):
            axes = {}
            for item in value:
                key, eq, span = item.partition("=")
                if not eq or not key.strip():
                    self.fail(f"must look like k=lo:hi:step, e.g. quit_at=0:20:2, not {shown(item)}")
                if key.strip() in axes:
                    self.fail(f"names {key.strip()} twice")
                axes[key.strip()] = span
            value = axes
        if not isinstance(value, dict) or not value:
            self.fail(f"must be k=lo:hi:step (or a table of parameter ranges), not {shown(value)}")
        if len(value) > 2:
            self.fail(f"sweeps one or two parameters, not {len(value)}")
        grid = {str(k): self._axis(str(k), v) for k, v in value.items()}
        size = math.prod(len(v) for v in grid.values())
        if size > MAX_SWEEP_GRID:
            self.fail(f"has {size} points; at most {MAX_SWEEP_GRID}")
        return grid

    def _axis(self, key: str, span) -> list[float]:
        if isinstance(span, str):
            parts = span.split(":")
            if len(parts) != 3:
                self.fail(f"{key}: must look like lo:hi:step, e.g. 0:20:2, not {shown(span)}")
            try:
                lo, hi, step = (float(x) for x in parts)
            except ValueError:
                self.fail(f"{key}: lo, hi and step must be numbers, not {shown(span)}")
            if not all(math.isfinite(x) for x in (lo, hi, step)):
                self.fail(f"{key}: lo, hi and step must be finite numbers, not {shown(span)}")
            if step <= 0 or hi < lo:
                self.fail(f"{key}: need step > 0 and lo <= hi, not {shown(span)}")
            ratio = (hi - lo) / step + 1e-9  # inf for a step like 1e-320: checked before floor()
            span_count = math.floor(ratio) if ratio < MAX_SWEEP_VALUES else MAX_SWEEP_VALUES
            if not span_count < MAX_SWEEP_VALUES:
                self.fail(f"{key}: {shown(span)} gives more than {MAX_SWEEP_VALUES} values; a sweep takes at most "
                          f"{MAX_SWEEP_VALUES}")
            return [lo + step * i for i in range(int(span_count) + 1)]
        if not isinstance(span, (list, tuple)) or not span or not all(_is_number(v) for v in span):
            self.fail(f"{key}: must be \"lo:hi:step\" or a non-empty list of numbers, not {shown(span)}")
        values = [float(v) for v in span]
        if not all(math.isfinite(v) for v in values):
            self.fail(f"{key}: must be finite numbers, not {shown(span)}")
        if len(set(values)) != len(values):
            self.fail(f"{key}: lists a value twice")
        if len(values) > MAX_SWEEP_VALUES:
            self.fail(f"{key}: has {len(values)} values; at most {MAX_SWEEP_VALUES}")
        return values

    def _read_spec(self, value, text: bool):
        """An experiment spec: its file, or the spec itself as a table."""
        if isinstance(value, dict):
            return value
        return self._read_path(value, text)

    def _read_variants(self, value, text: bool):
        if not isinstance(value, dict) or not value:
            self.fail("must be a table of variant name = { option = value, ... }")
        for name, options in value.items():
            if name == "rulebook":
                self.fail("'rulebook' names the baseline; give the variant another name")
            if not isinstance(options, dict) or not options:
                self.fail(f"{name} must be a table of rule options, not {shown(options)}")
        return {k: dict(v) for k, v in value.items()}
