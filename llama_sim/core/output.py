"""Result tables: the tidy long layout, readable printing, and safe file output.

pandas and numpy are imported where a table is handled, not with this module: the command line checks its
``--format`` and ``--out`` here before it knows whether it will build a table at all."""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

from typing import TYPE_CHECKING

from llama_sim.core.errors import UsageError
from llama_sim.core.files import check_target, whole_files, writing

if TYPE_CHECKING:
    import pandas as pd

TERMINAL_WIDTH = 100  # a table printed for a terminal fits in this many columns (wide data: csv, json)

RESULT_COLUMNS = ["game", "players", "strategy", "seat", "metric", "value", "ci_low", "ci_high", "n", "seed"]
FORMATS = ("table", "csv", "json")


def check_format(fmt: str) -> None:
    if fmt not in FORMATS:
        raise UsageError(f"unknown --format '{fmt}' (use {', '.join(FORMATS)})")


OUT_SUFFIXES = (".csv", ".json", ".parquet")


def check_out(path: Path | None, force: bool) -> None:
    """Refuse before any work is done, so a long run never ends in a refused write: the name must
    end in a known suffix and pass ``files.check_target`` (a folder that exists and takes new files,
    no folder of that name, no existing file unless ``force``)."""
    if path is None:
        return
    path = Path(path)
    check_target(path, "--out", force)
    if path.suffix.lower() not in OUT_SUFFIXES:
        raise UsageError(f"--out {path}: use a .csv, .json or .parquet file name")
    if path.suffix.lower() == ".parquet":
        try:
            import pyarrow  # noqa: F401  (pandas writes parquet through it)
        except ImportError:
            raise UsageError(f"--out {path}: writing .parquet needs pyarrow (pip install pyarrow)") from None


def check_new_file(path: Path, force: bool, option: str, suffixes: tuple[str, ...]) -> None:
    """A file other than ``--out`` (a plot, an emitted strategy), refused before any work is done:
    a name with one of ``suffixes`` that passes ``files.check_target``."""
    path = Path(path)
    check_target(path, option, force)
    if path.suffix.lower() not in suffixes:
        raise UsageError(f"{option} {path}: use a {' or '.join(suffixes)} file name")


def write_table(df: pd.DataFrame, path: Path) -> None:
    suffix = path.suffix.lower()
    if suffix == ".csv":
        df.to_csv(path, index=False)
    elif suffix == ".parquet":
        df.to_parquet(path, index=False)
    else:
        path.write_text(to_json(df) + "\n")


def write_tables(tables: dict[Path, pd.DataFrame], force: bool = True) -> None:
    """Write every file of one result, or none (``files.whole_files``): each to a temporary name
    in its own folder, all installed together once every one was written; without ``force`` a file
    that appeared meanwhile (another run) is a conflict and nothing is written."""
    with whole_files(list(tables), force) as temps:
        for path, df in tables.items():
            with writing(path, temps[Path(path)]):
                write_table(df, temps[Path(path)])


def _clean(value):
    import numpy as np
    import pandas as pd

    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return None
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return None if np.isnan(value) else float(value)
    return value


def to_json(df: pd.DataFrame) -> str:
    rows = [{k: _clean(v) for k, v in row.items()} for row in df.to_dict(orient="records")]
    return json.dumps(rows, indent=1)


def ci_text(value: float, low: float, high: float, digits: int = 4, sign: bool = False) -> str:
    """``value [low, high]`` with ``digits`` decimals (``sign``: always a sign), as reports print estimates."""
    f = f"{{:{'+' if sign else ''}.{digits}f}}"
    if math.isnan(low) and math.isnan(high):  # the run was too small for an interval
        return f"{f.format(value)} [n/a]"
    return f"{f.format(value)} [{f.format(low)}, {f.format(high)}]"


def _fmt(value: float, metric: str) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.4f}" if metric.endswith("rate") else f"{value:.3f}"


def readable(df: pd.DataFrame) -> str:
    """One line per strategy/seat, one column per metric, each as ``value [low, high]``; metrics that
    would not fit in ``TERMINAL_WIDTH`` columns go to a second block below (the same rows)."""
    import pandas as pd

    if df.empty:
        return "(no rows)"
    keys = ["strategy", "seat"]
    metrics = list(dict.fromkeys(df["metric"]))
    header = ["strategy", "seat"] + metrics + ["n"]
    body = []
    for (strategy, seat), group in df.groupby(keys, sort=False, dropna=False):
        cells = [str(strategy), "all" if pd.isna(seat) else str(int(seat))]
        by_metric = {row.metric: row for row in group.itertuples()}
        for m in metrics:
            r = by_metric.get(m)
            cells.append("-" if r is None else f"{_fmt(r.value, m)} " + (
                "[n/a]" if _fmt(r.ci_low, m) == _fmt(r.ci_high, m) == "-" else
                f"[{_fmt(r.ci_low, m)}, {_fmt(r.ci_high, m)}]"))
        # n of the games count when there is one (win_rate), else of the first metric
        n_row = by_metric.get("win_rate") or next(iter(by_metric.values()))
        cells.append(str(int(n_row.n)))
        body.append(cells)
    return columns_text([header] + body, keep=2)


def fit_width(rows: list[list[str]], keep: int, width: int = TERMINAL_WIDTH, gap: int = 2,
              together: int = 1) -> list[list[list[str]]]:
    """A table (a heading row, then rows of cells) as one or more tables, each at most ``width``
    characters wide when the first ``keep`` columns (the row labels, repeated in each) allow it; the
    other columns are moved in runs of ``together`` (a value and its difference stay side by side)."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    base = sum(widths[:keep]) + gap * max(keep - 1, 0)
    groups: list[list[int]] = [[]]
    used = base
    for start in range(keep, len(widths), together):
        run = list(range(start, min(start + together, len(widths))))
        extra = sum(gap + widths[i] for i in run)
        if groups[-1] and used + extra > width:
            groups.append([])
            used = base
        groups[-1].extend(run)
        used += extra
    return [[[r[j] for j in [*range(keep), *g]] for r in rows] for g in groups]


def columns_text(rows: list[list[str]], keep: int = 1, width: int = TERMINAL_WIDTH, together: int = 1) -> str:
    """``rows`` (a heading row first) in aligned columns, split into blocks that fit ``width``
    (``fit_width``), blocks separated by a blank line."""
    blocks = []
    for block in fit_width(rows, keep, width, together=together):
        widths = [max(len(r[i]) for r in block) for i in range(len(block[0]))]
        blocks.append("\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in block))
    return "\n\n".join(blocks)


def emit(df: pd.DataFrame, fmt: str, out: Path | None, preamble: str = "", readable_text: str | None = None,
         force: bool = True) -> None:
    """Print in the chosen format (JSON: one document, nothing else) and write ``out`` if given
    (without ``force``, never over a file that appeared during the run)."""
    if out is not None:
        write_tables({out: df}, force)
    if fmt == "json":
        sys.stdout.write(to_json(df) + "\n")
    elif fmt == "csv":
        df.to_csv(sys.stdout, index=False)
    else:
        if preamble:
            print(preamble)
        print(readable_text if readable_text is not None else readable(df))
        if out is not None:
            print(f"wrote {out}")
