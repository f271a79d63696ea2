"""``llamasim games`` and ``llamasim strategies``: what there is to play.

Both read declarations only (the rule sets', the strategies'), compile nothing and build a pandas
table only for ``--format csv|json``: a listing should answer at once.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from llama_sim.cli.app import FormatOpt, StratFileOpt, app
from llama_sim.core.output import check_format
from llama_sim.core.ruleset import all_games, get_game, option_flag


def _listing(rows: list[dict], columns: list[str], fmt: str, text: str) -> None:
    """The readable ``text`` for ``--format table``; else ``rows`` as a table in the format asked."""
    if fmt == "table":
        print(text)
        return
    import pandas as pd

    from llama_sim.core.output import emit

    emit(pd.DataFrame(rows, columns=columns), fmt, None)


@app.command()
def games(fmt: str = FormatOpt):
    """List the rule sets and their options."""
    check_format(fmt)
    rows = [{"game": g.name, "title": g.title, "players": f"{g.min_players}-{g.max_players}",
             "options": "; ".join(f"{option_flag(k)}: {v}" for k, v in g.options.items()) or "-"}
            for g in all_games().values()]
    text = []
    for g in all_games().values():
        text.append(f"{g.name:<8} {g.title:<24} {g.min_players}-{g.max_players} players")
        text.extend(f"{'':9}{option_flag(k)}: {v}" for k, v in g.options.items())
    _listing(rows, ["game", "title", "players", "options"], fmt, "\n".join(text))


@app.command()
def strategies(game: Optional[str] = typer.Option(None, "--game", "-g", help="Only this rule set."),
               strategies_file: Optional[Path] = StratFileOpt, fmt: str = FormatOpt):
    """List the registered strategies with their parameters."""
    from llama_sim.core import registry

    check_format(fmt)
    names = [get_game(game).name] if game else list(all_games())
    if strategies_file is not None:
        registry.load_file(strategies_file)
    rows = []
    for g in names:
        for s in registry.strategies_for(g):
            rows.append({"game": g, "strategy": s.name,
                         "params": ", ".join(f"{p.name}={p.default:g} [{p.low:g}, {p.high:g}]" for p in s.params) or "-",
                         "presets": "; ".join(f"{n}p: " + ",".join(f"{k}={v:g}" for k, v in vals.items())
                                              for n, vals in sorted(s.presets.items())) or "-",
                         "description": s.description})
    text = []
    for g in names:
        group = [r for r in rows if r["game"] == g]
        if not group:
            continue
        text.append(f"{g}:")
        width = max(len(r["strategy"]) for r in group)
        for r in group:
            text.append(f"  {r['strategy']:<{width}}  {r['description']}")
            if r["params"] != "-":
                text.append(f"  {'':<{width}}  params: {r['params']}")
            if r["presets"] != "-":
                text.append(f"  {'':<{width}}  presets (other counts: the nearest, ties to the larger): {r['presets']}")
    _listing(rows, ["game", "strategy", "params", "presets", "description"], fmt, "\n".join(text))
