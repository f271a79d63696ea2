"""The report of a finished experiment: ``report.md``, the self-contained ``report.html`` (plots
embedded), ``run.json`` and the ``tables/`` and ``plots/`` folders, written next to the target and
moved into place whole."""
from __future__ import annotations

import base64
import html
import json
import math
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd

from llama_sim.core.files import check_target, whole_folder
from llama_sim.core.ruleset import get_game
from llama_sim.present.spec import Spec
from llama_sim.present.steps import STEP_KINDS, StepOutcome, tag_text

@dataclass
class ExperimentResult:
    """A finished experiment: its spec, each step's outcome (results, tables, conclusion) and the
    report folder (None when nothing was written)."""

    spec: Spec
    steps: list[StepOutcome]
    out: Optional[Path]
    run: dict

    @property
    def conclusions(self) -> list[str]:
        return [s.conclusion for s in self.steps]

    def plot(self):
        """The first step's figure."""
        return self.steps[0].results[0].plot()


def default_out(spec: Spec) -> Path:
    return Path("reports") / spec.name


REPORT_ENTRIES = {"report.md", "report.html", "run.json", "tables", "plots"}
REPORT_SUFFIXES = {"tables": (".csv", ".parquet"), "plots": (".png", ".svg")}


def not_a_report(folder: Path) -> Optional[str]:
    """None when ``folder`` is a report folder this tool wrote: a ``run.json`` it wrote and nothing
    else than the report's own files; otherwise why not (what ``--force`` would have destroyed)."""
    try:
        run = json.loads((folder / "run.json").read_text())
    except (OSError, ValueError):
        return "has no run.json of a report"
    if not (isinstance(run, dict) and {"command", "llama_sim_version", "steps"} <= set(run)):
        return "has a run.json llamasim did not write"
    for entry in sorted(folder.iterdir()):
        if entry.name not in REPORT_ENTRIES or entry.is_symlink():
            return f"holds {entry.name}, which is not part of a report"
        if entry.name in REPORT_SUFFIXES:
            if not entry.is_dir():
                return f"holds {entry.name}, which is not part of a report"
            for inner in entry.iterdir():
                if inner.is_symlink() or not inner.is_file() or inner.suffix not in REPORT_SUFFIXES[entry.name]:
                    return f"holds {entry.name}/{inner.name}, which is not part of a report"
    return None


def check_out_dir(out: Path, force: bool) -> None:
    """Before any work: a report folder name that can be created, and with ``force`` only over a
    report folder this tool wrote."""
    check_target(out, "--out", force, folder=True, is_ours=not_a_report)


def write_report(result: ExperimentResult, out: Path, force: bool) -> None:
    """Write the whole folder next to ``out`` first, then move it into place (``files.whole_folder``):
    a failed or interrupted run never leaves a half-written report or a temporary folder, and an
    existing folder is replaced only with ``force`` and only when it is a report folder."""
    from llama_sim.analysis.plots import figure_png, save

    check_out_dir(out, force)
    with whole_folder(out, force, not_a_report) as tmp:
        (tmp / "tables").mkdir()
        (tmp / "plots").mkdir()
        images: dict[str, bytes] = {}
        for o in result.steps:
            for name, df in o.tables.items():
                df.to_csv(tmp / "tables" / f"{o.step.name}_{name}.csv", index=False)
                df.to_parquet(tmp / "tables" / f"{o.step.name}_{name}.parquet", index=False)
            entry = STEP_KINDS[o.step.kind]
            suffix = entry.plot_suffix
            figures = [(f"{o.step.name}{suffix(r) if len(o.results) > 1 else ''}", r.plot) for r in o.results]
            if o.tags:  # an option grid: the summary across the values, else one plot per value
                figures = ([(o.step.name, o.summary.plot)] if o.summary is not None else
                           [(f"{o.step.name}_{tag_text(t, '_')}{suffix(r)}", r.plot) for r, t in zip(o.results, o.tags)])
            elif entry.overview is not None and len(o.results) > 1:  # the kind's figure of all its results first
                figures.insert(0, (o.step.name, partial(entry.overview, o.results)))
            for stem, draw in figures:
                fig = draw()
                images[f"plots/{stem}.png"] = figure_png(fig)
                (tmp / "plots" / f"{stem}.png").write_bytes(images[f"plots/{stem}.png"])
                fig.set_layout_engine("none")  # the SVG keeps the PNG's layout: laying it out again cost
                save(fig, tmp / "plots" / f"{stem}.svg")  # a third of a report's plotting time
                o.plots.append(f"plots/{stem}.png")
        (tmp / "run.json").write_text(json.dumps(result.run, indent=1, default=str) + "\n")
        (tmp / "report.md").write_text(render_markdown(result))
        (tmp / "report.html").write_text(render_html(result, images))


# ------------------------------------------------------------------------------------ the page, as blocks

# A report is a list of blocks, rendered once as Markdown and once as HTML:
# ("title", text) ("h2", text) ("h3", text) ("p", text) ("list", [(label or "", text)]) ("plot", alt, path)
# ("table", DataFrame) ("files", [(label, path)]). Text may hold `code`.

def cell(value) -> str:
    """A table cell: whole numbers as integers (5, not 5.0), other numbers as they are."""
    if isinstance(value, (bool, np.bool_)):
        return str(value)
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        if math.isnan(value):
            return "-"
        return str(int(value)) if float(value).is_integer() else f"{value:g}"
    return str(value)


def _measures_compared(result: ExperimentResult) -> bool:
    """True when the report's answers speak of both points per round and win rate."""
    measured = set().union(*(STEP_KINDS[o.step.kind].answers_on(o.results) for o in result.steps))
    return {"penalty_per_round", "win_rate"} <= measured


GENERIC_READING = ("Penalty per round averages a player's own points over every round; win rate counts the games "
                   "in which the player is lowest when a score reaches 40. The two need not agree: a game is won by "
                   "ending below the others, so what counts is the points a strategy takes relative to the players "
                   "at its table in the rounds that decide the game, and a strategy can have the lowest average and "
                   "still win fewer games.")


def _reading_blocks(result: ExperimentResult) -> list:
    """The spec's reading and the data's disagreements between points and wins, under one heading."""
    spec = result.spec
    disagree = [s for o in result.steps for s in STEP_KINDS[o.step.kind].disagree(o.results)]
    if not spec.reading and not disagree:
        return []
    both = bool(disagree) or _measures_compared(result)
    blocks: list = [("h2", "Why the measures differ" if both else "Reading the results")]
    if spec.reading:
        blocks += [("p", p) for p in spec.reading.split("\n\n")]
    elif disagree:
        blocks.append(("p", GENERIC_READING))
    if disagree:
        blocks.append(("p", "Where the two disagree in this report: " + "; ".join(disagree) + "."))
    return blocks


def _terms_blocks(result: ExperimentResult) -> list:
    from llama_sim.present.terms import strategy_lines, term_lines

    keys = [k for o in result.steps for k in STEP_KINDS[o.step.kind].terms(o.results)]
    blocks: list = [("h2", "Terms"), ("list", term_lines(keys, result.spec.terms))]
    per_game: dict[str, list] = {}
    for o in result.steps:
        per_game.setdefault(o.step.game or result.spec.game, []).extend(_strategy_labels(o))
    several = len(per_game) > 1
    lines = [(f"{name} ({get_game(game).title})" if several else name, text) for game, labels in per_game.items()
             for name, text in strategy_lines(game, labels)]
    if lines:
        unique = list(dict.fromkeys(lines))
        blocks += [("p", "Strategies in this report:"), ("list", unique)]
    return blocks


def _strategy_labels(o: StepOutcome) -> list[str]:
    args = o.step.args
    labels = []
    for key in ("strategies", "seats", "vs", "opponents"):
        value = args.get(key)
        if isinstance(value, str):
            labels += value.split(",")
        elif value:
            labels += list(value)
    for key in ("strategy", "policy"):
        if args.get(key):
            labels.append(args[key])
    for r in o.results:  # the policies a chart or an advice played by default
        if isinstance(getattr(r, "policy", None), str):
            labels.append(r.policy)
        if isinstance(getattr(r, "strategies", None), list):
            labels += [x for x in r.strategies if isinstance(x, str)]
    return [x for x in labels if x and x != "self"]


def _about_lines(result: ExperimentResult) -> list[tuple[str, str]]:
    spec, run = result.spec, result.run
    rules = "; ".join(f"{k.replace('_', ' ')}: {v}" for k, v in run["rules"].items()) or "standard"
    own = [s.name for s in spec.steps if s.options is not None]
    if own:  # steps with their own rule-set options (per-step options or an option grid)
        rules += f"; steps {', '.join(own)} set their own, see each step" if len(own) < len(spec.steps) else \
            "; every step sets its own, see each step"
    games = list(dict.fromkeys([spec.game] + [s.game for s in spec.steps if s.game]))
    named = (f"Rule set: `{spec.game}` ({rules})" if len(games) == 1 else
             f"Rule sets: {', '.join(f'`{g}`' for g in games)} (the spec's `{spec.game}`: {rules}; a step's "
             f"own rule set plays its standard rules)")
    return [("", f"Report `{spec.name}`. {named}; seed {spec.seed}; scale {run['scale']:g}"),
            ("", f"Command: `{run['command']}`"),
            ("", f"llama_sim {run['llama_sim_version']}, commit {run['git_commit'] or 'unknown'}; "
                 f"{run['seconds']:.1f} s in all (timings per step in `run.json`)")]


def _method(o: StepOutcome, seed: int) -> str:
    """One line: how the step measured (and, for an option grid, that each value played its own deals)."""
    entry = STEP_KINDS[o.step.kind]
    text = entry.method(o.args, o.results) if o.args or entry.exact else ""
    if o.tags:
        keys = " x ".join(k.replace("_", " ") for k in o.tags[0])
        if entry.exact:
            text += f" Once for each {keys} ({len(o.tags)} in all)."
        else:
            text += (f" Once for each {keys} ({len(o.tags)} in all), each on its own deals (seeds {seed} to "
                     f"{seed + len(o.tags) - 1}, in table order).")
    took = "under a second" if o.seconds < 1 else f"{o.seconds:.0f} s"
    return f"{text} It took {took}.".strip() if text else ""


def report_blocks(result: ExperimentResult) -> list:
    spec = result.spec
    blocks: list = [("title", spec.question), ("h2", "Answer"),
                    ("list", [(o.step.title, o.conclusion) for o in result.steps])]
    blocks += _terms_blocks(result)
    blocks += _reading_blocks(result)
    for i, o in enumerate(result.steps, 1):
        blocks.append(("h2", f"{i}. {o.step.title}"))
        method = _method(o, spec.seed)
        if method:
            blocks.append(("p", method))
        if o.details and not o.tags:  # a step's own rule-set options (an option grid's are in its answer)
            blocks.append(("list", [("", d) for d in o.details]))
        for p in o.plots:
            blocks.append(("plot", o.step.title, p))
        blocks.append(("table", o.display))
        blocks.append(("files", [(f"{o.step.name}_{t}.csv", f"tables/{o.step.name}_{t}.csv") for t in o.tables]))
        for title, text, table in STEP_KINDS[o.step.kind].sections(o.results):
            blocks += [("h3", title), ("p", text), ("table", table)]
    blocks += [("h2", "About this run"), ("list", _about_lines(result))]
    return blocks


def _md_table(df: pd.DataFrame) -> str:
    head = "| " + " | ".join(map(str, df.columns)) + " |"
    rule = "|" + "|".join("---" for _ in df.columns) + "|"
    body = ["| " + " | ".join(cell(v).replace("|", "\\|") for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([head, rule, *body])


def _md_item(label: str, text: str) -> str:
    return f"- **{label}**: {text}" if label else f"- {text}"


def render_markdown(result: ExperimentResult) -> str:
    lines: list[str] = []
    for block in report_blocks(result):
        kind = block[0]
        if kind == "title":
            lines += [f"# {block[1]}", ""]
        elif kind in ("h2", "h3"):
            lines += [f"{'#' * int(kind[1])} {block[1]}", ""]
        elif kind == "p":
            lines += [block[1], ""]
        elif kind == "list":
            lines += [_md_item(*item) for item in block[1]] + [""]
        elif kind == "plot":
            _, alt, p = block
            svg = Path(p).with_suffix(".svg")
            lines += [f"![{alt}]({p})", "", f"(vector: [{svg}]({svg}))", ""]
        elif kind == "table":
            lines += [_md_table(block[1]), ""]
        elif kind == "files":
            lines += ["Full tables (CSV; Parquet next to them): " + ", ".join(f"[{a}]({b})" for a, b in block[1]), ""]
    return "\n".join(lines)


def _html_text(text: str) -> str:
    """Escaped, with `code` spans."""
    parts = html.escape(text).split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))


def _html_table(df: pd.DataFrame) -> str:
    e = html.escape
    head = "".join(f"<th>{e(str(c))}</th>" for c in df.columns)
    body = "".join("<tr>" + "".join(f"<td>{e(cell(v))}</td>" for v in row) + "</tr>"
                   for row in df.itertuples(index=False))
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def render_html(result: ExperimentResult, images: dict[str, bytes]) -> str:
    spec = result.spec
    e = html.escape
    parts = ["<!DOCTYPE html>", "<html><head><meta charset=\"utf-8\">", f"<title>{e(spec.name)}</title>",
             "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;line-height:1.4}"
             "table{border-collapse:collapse;font-size:0.9em}td,th{border:1px solid #ccc;padding:2px 6px;"
             "text-align:left}img{max-width:100%}code{background:#f4f4f4}</style></head><body>"]
    for block in report_blocks(result):
        kind = block[0]
        if kind == "title":
            parts.append(f"<h1>{_html_text(block[1])}</h1>")
        elif kind in ("h2", "h3"):
            parts.append(f"<{kind}>{_html_text(block[1])}</{kind}>")
        elif kind == "p":
            parts.append(f"<p>{_html_text(block[1])}</p>")
        elif kind == "list":
            parts.append("<ul>" + "".join(
                f"<li><b>{_html_text(label)}</b>: {_html_text(text)}</li>" if label else f"<li>{_html_text(text)}</li>"
                for label, text in block[1]) + "</ul>")
        elif kind == "plot":
            _, alt, p = block
            data = base64.b64encode(images[p]).decode()
            parts.append(f"<p><img alt=\"{e(alt)}\" data-file=\"{e(p)}\" src=\"data:image/png;base64,{data}\"></p>")
        elif kind == "table":
            parts.append(_html_table(block[1]))
        elif kind == "files":
            parts.append("<p>Full tables (CSV; Parquet next to them): " + ", ".join(
                f"<a href=\"{e(b)}\">{e(a)}</a>" for a, b in block[1]) + "</p>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
