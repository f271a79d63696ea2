"""``llamasim games`` and ``llamasim strategies``: what there is to play."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import pandas as pd
import typer

from llama_sim.cli.app import FormatOpt, StratFileOpt, app
from llama_sim.core import registry
from llama_sim.core.output import check_format, emit
from llama_sim.core.ruleset import all_games, get_game, option_flag


@app.command()
def games(fmt: str = FormatOpt):
    """List the rule sets and their options."""
    check_format(fmt)
    rows = [{"game": g.name, "title": g.title, "players": f"{g.min_players}-{g.max_players}",
             "options": "; ".join(f"{option_flag(k)}: {v}" for k, v in g.options.items()) or "-"}
            for g in all_games().values()]
    df = pd.DataFrame(rows)
    text = []
    for g in all_games().values():
        text.append(f"{g.name:<8} {g.title:<24} {g.min_players}-{g.max_players} players")
        text.extend(f"{'':9}{option_flag(k)}: {v}" for k, v in g.options.items())
    emit(df, fmt, None, readable_text="\n".join(text))


@app.command()
def strategies(game: Optional[str] = typer.Option(None, "--game", "-g", help="Only this rule set."),
               strategies_file: Optional[Path] = StratFileOpt, fmt: str = FormatOpt):
    """List the registered strategies with their parameters."""
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
    df = pd.DataFrame(rows, columns=["game", "strategy", "params", "presets", "description"])
    text = []
    for g, group in df.groupby("game", sort=False):
        text.append(f"{g}:")
        width = max(len(x) for x in group.strategy)
        for r in group.itertuples():
            text.append(f"  {r.strategy:<{width}}  {r.description}")
            if r.params != "-":
                text.append(f"  {'':<{width}}  params: {r.params}")
            if r.presets != "-":
                text.append(f"  {'':<{width}}  presets (other counts: the nearest, ties to the larger): {r.presets}")
    emit(df, fmt, None, readable_text="\n".join(text))

