"""The report of a finished experiment: ``report.md``, the self-contained ``report.html`` (plots
embedded), ``run.json`` and the ``tables/`` and ``plots/`` folders, written next to the target and
moved into place whole."""
from __future__ import annotations

import base64
import html
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pandas as pd

from llama_sim.core.files import check_target, whole_folder
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
    from llama_sim.analysis.plots import figure_png, plot_league, save

    check_out_dir(out, force)
    with whole_folder(out, force, not_a_report) as tmp:
        (tmp / "tables").mkdir()
        (tmp / "plots").mkdir()
        images: dict[str, bytes] = {}
        for o in result.steps:
            for name, df in o.tables.items():
                df.to_csv(tmp / "tables" / f"{o.step.name}_{name}.csv", index=False)
                df.to_parquet(tmp / "tables" / f"{o.step.name}_{name}.parquet", index=False)
            suffix = STEP_KINDS[o.step.kind].plot_suffix
            figures = [(f"{o.step.name}{suffix(r) if len(o.results) > 1 else ''}", r.plot) for r in o.results]
            if o.tags:  # an option grid: the summary across the values, else one plot per value
                figures = ([(o.step.name, o.summary.plot)] if o.summary is not None else
                           [(f"{o.step.name}_{tag_text(t, '_')}{suffix(r)}", r.plot) for r, t in zip(o.results, o.tags)])
            elif o.step.kind == "compare" and len(o.results) > 1:  # the league over player counts first
                figures.insert(0, (o.step.name, lambda results=o.results: plot_league(results)))
            for stem, draw in figures:
                fig = draw()
                images[f"plots/{stem}.png"] = figure_png(fig)
                (tmp / "plots" / f"{stem}.png").write_bytes(images[f"plots/{stem}.png"])
                save(fig, tmp / "plots" / f"{stem}.svg")
                o.plots.append(f"plots/{stem}.png")
        (tmp / "run.json").write_text(json.dumps(result.run, indent=1, default=str) + "\n")
        (tmp / "report.md").write_text(render_markdown(result))
        (tmp / "report.html").write_text(render_html(result, images))


def _md_table(df: pd.DataFrame) -> str:
    def cell(v) -> str:
        if isinstance(v, float):
            return f"{v:g}"
        return str(v).replace("|", "\\|")

    head = "| " + " | ".join(map(str, df.columns)) + " |"
    rule = "|" + "|".join("---" for _ in df.columns) + "|"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([head, rule, *body])


def _summary_lines(result: ExperimentResult) -> list[str]:
    spec, run = result.spec, result.run
    rules = "; ".join(f"{k.replace('_', ' ')}: {v}" for k, v in run["rules"].items()) or "standard"
    own = [s.name for s in spec.steps if s.options is not None]
    if own:  # steps with their own rule-set options (per-step options or an option grid)
        rules += f"; steps {', '.join(own)} set their own, see each step" if len(own) < len(spec.steps) else \
            "; every step sets its own, see each step"
    return [f"- Rule set: `{spec.game}` ({rules}); seed {spec.seed}; scale {run['scale']:g}",
            f"- Command: `{run['command']}`",
            f"- llama_sim {run['llama_sim_version']}, commit {run['git_commit'] or 'unknown'}; "
            f"{run['seconds']:.1f} s in all (timings per step in `run.json`)"]


def render_markdown(result: ExperimentResult) -> str:
    spec = result.spec
    lines = [f"# {spec.name}", "", f"**Question.** {spec.question}", "", "**Answer.**", ""]
    lines += [f"- {o.step.title}: {o.conclusion}" for o in result.steps]
    lines += [""] + _summary_lines(result) + [""]
    for i, o in enumerate(result.steps, 1):
        lines += [f"## {i}. {o.step.title} (`{o.step.kind}`, step `{o.step.name}`)", "", o.conclusion, ""]
        lines += [f"- {d}" for d in o.details] + ([""] if o.details else [])
        for p in o.plots:
            lines += [f"![{o.step.title}]({p})", "", f"(vector: [{Path(p).with_suffix('.svg')}]"
                                                     f"({Path(p).with_suffix('.svg')}))", ""]
        lines += [_md_table(o.display), ""]
        files = ", ".join(f"[{o.step.name}_{t}.csv](tables/{o.step.name}_{t}.csv)" for t in o.tables)
        lines += [f"Full tables (CSV; Parquet next to them): {files}", ""]
        for title, text, table in STEP_KINDS[o.step.kind].sections(o.results):
            lines += [f"### {title}", "", text, "", _md_table(table), ""]
    return "\n".join(lines)


def render_html(result: ExperimentResult, images: dict[str, bytes]) -> str:
    spec = result.spec
    e = html.escape
    parts = ["<!DOCTYPE html>", "<html><head><meta charset=\"utf-8\">", f"<title>{e(spec.name)}</title>",
             "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;line-height:1.4}"
             "table{border-collapse:collapse;font-size:0.9em}td,th{border:1px solid #ccc;padding:2px 6px;"
             "text-align:left}img{max-width:100%}code{background:#f4f4f4}</style></head><body>",
             f"<h1>{e(spec.name)}</h1>", f"<p><b>Question.</b> {e(spec.question)}</p>", "<p><b>Answer.</b></p><ul>"]
    parts += [f"<li>{e(o.step.title)}: {e(o.conclusion)}</li>" for o in result.steps]
    parts += ["</ul><ul>"]
    parts += [f"<li>{e(line[2:]).replace('`', '')}</li>" for line in _summary_lines(result)]
    parts += ["</ul>"]
    for i, o in enumerate(result.steps, 1):
        parts += [f"<h2>{i}. {e(o.step.title)} ({e(o.step.kind)}, step {e(o.step.name)})</h2>",
                  f"<p>{e(o.conclusion)}</p>"]
        if o.details:
            parts += ["<ul>"] + [f"<li>{e(d)}</li>" for d in o.details] + ["</ul>"]
        for p in o.plots:
            data = base64.b64encode(images[p]).decode()
            parts.append(f"<p><img alt=\"{e(o.step.title)}\" data-file=\"{e(p)}\" src=\"data:image/png;base64,{data}\"></p>")
        parts.append(o.display.to_html(index=False, escape=True, border=0))
        for title, text, table in STEP_KINDS[o.step.kind].sections(o.results):
            parts += [f"<h3>{e(title)}</h3>", f"<p>{e(text)}</p>", table.to_html(index=False, escape=True, border=0)]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
