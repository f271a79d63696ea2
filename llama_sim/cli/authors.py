"""Commands for strategy authors: trace (watch a line-up play) and check (a strategies file before a
long run). Each imports the API when it runs."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

from llama_sim.cli.app import FormatOpt, ForceOpt, OutOpt, QuietOpt, app, declared, rule_set_options, setup
from llama_sim.core.errors import UsageError
from llama_sim.core.output import check_format, emit


@app.command()
@rule_set_options
@declared("trace")
def trace(fmt: str = FormatOpt, out: Optional[Path] = OutOpt, force: bool = ForceOpt, quiet: bool = QuietOpt,
          **params):
    """One round (or with --games one game) of a line-up, every decision in words: who, what the player
    saw, the legal actions, the choice; --values adds the expert's value of each legal action and the
    points the choice lost. The round is the one simulate plays with that seed."""
    from llama_sim import api

    setup(params["game"], params.get("strategies_file"), quiet, fmt, out, force)
    res = api.trace(**params)
    emit(res.decisions, fmt, out, readable_text=res.text(), force=force)


@app.command()
@declared("check")
def check(fmt: str = FormatOpt, quiet: bool = QuietOpt, **params):
    """Check strategies files before a long run: every strategy compiles, plays only legal actions at
    every player count against the built-ins (rounds and games), gives the same result twice with one
    seed; its speed against the rule set's benchmark strategy and its first decisions. Exit status 2
    (and the first problem on stderr) unless all is well."""
    from llama_sim import api
    from llama_sim.cli.app import compile_notice

    check_format(fmt)
    compile_notice(quiet, "kernels and strategies")
    res = api.check(**params)
    emit(res.table, fmt, None, readable_text=res.text())
    if not res.ok:
        sys.stdout.flush()
        raise UsageError(res.problems[0])
