"""Fill the docs pages with real output: every ```console block of ``docs/*.md`` keeps its ``$ ``
command lines and gets each command's output (stdout; for a command that exits 2, its one-line error: a page
shows a mistake on purpose) below it, run from the repository root;
``docs/python-api.ipynb`` is rebuilt from ``docs/python-api.py`` (cells split at ``# %%`` lines),
each cell run in one interpreter with its printed output and its last expression's value kept.

    python scripts/build_docs.py            # every page
    python scripts/build_docs.py --check    # only run the commands (exit 1 if one fails)

Run it after a change that alters what a page shows, and commit the pages.
"""
from __future__ import annotations

import argparse
import ast
import contextlib
import io
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
BLOCK = re.compile(r"```console\n(.*?)```", re.S)


def run_command(line: str) -> str:
    words = shlex.split(line, comments=True)
    assert words[0] == "llamasim", line
    out = subprocess.run([sys.executable, "-m", "llama_sim", *words[1:]], cwd=ROOT, capture_output=True, text=True,
                         timeout=900)
    if out.returncode == 2 and out.stderr.startswith("llamasim: error: ") and not out.stdout:
        return out.stderr.rstrip("\n")  # a page shows a mistake and its one-line error on purpose
    if out.returncode != 0:
        raise SystemExit(f"{line}: exit {out.returncode}\n{out.stderr}")
    return out.stdout.rstrip("\n")


def fill_page(path: Path) -> str:
    def block(match: re.Match) -> str:
        commands = [ln[2:] for ln in match.group(1).splitlines() if ln.startswith("$ ")]
        parts = []
        for command in commands:
            print(f"  $ {command}", file=sys.stderr, flush=True)
            parts.append(f"$ {command}\n{run_command(command)}")
        return "```console\n" + "\n\n".join(parts) + "\n```"

    return BLOCK.sub(block, path.read_text())


def build_notebook(source: Path) -> dict:
    """The notebook, its cells run in a temporary working folder (what they write stays out of the tree)."""
    import os
    import tempfile

    here = os.getcwd()
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)
        try:
            return _notebook(source)
        finally:
            os.chdir(here)


def _notebook(source: Path) -> dict:
    cells_src = [c.strip("\n") for c in re.split(r"^# %%.*$", source.read_text(), flags=re.M) if c.strip()]
    scope: dict = {}
    cells = []
    for n, src in enumerate(cells_src, 1):
        if src.startswith('"""') or src.startswith("# md:"):
            text = src.strip('"').strip() if src.startswith('"""') else "\n".join(
                ln[6:] if ln.startswith("# md: ") else ln[5:] for ln in src.splitlines())
            cells.append({"cell_type": "markdown", "metadata": {}, "source": text.splitlines(keepends=True)})
            continue
        tree = ast.parse(src)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            exec(compile(tree, f"<cell {n}>", "exec"), scope)
            value = eval(compile(ast.Expression(last.value), f"<cell {n}>", "eval"), scope) if last else None
        outputs = []
        if buffer.getvalue():
            outputs.append({"output_type": "stream", "name": "stdout", "text": buffer.getvalue().splitlines(True)})
        if value is not None:
            text = value.to_string() if hasattr(value, "to_string") else repr(value)
            outputs.append({"output_type": "execute_result", "execution_count": n, "metadata": {},
                            "data": {"text/plain": text.splitlines(True)}})
        cells.append({"cell_type": "code", "execution_count": n, "metadata": {}, "outputs": outputs,
                      "source": src.splitlines(keepends=True)})
    return {"cells": cells, "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                                        "name": "python3"}}, "nbformat": 4, "nbformat_minor": 5}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    for page in sorted(DOCS.glob("*.md")):
        if "```console" not in page.read_text():
            continue
        print(page.name, file=sys.stderr)
        text = fill_page(page)
        if not args.check:
            page.write_text(text)
    source = DOCS / "python-api.py"
    if source.is_file():
        print(source.name, file=sys.stderr)
        notebook = build_notebook(source)
        if not args.check:
            (DOCS / "python-api.ipynb").write_text(json.dumps(notebook, indent=1) + "\n")


if __name__ == "__main__":
    main()
