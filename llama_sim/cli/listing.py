"""``llamasim games`` and ``llamasim strategies``: what there is to play.

Both read declarations only (the rule sets', the strategies'), compile nothing and build a pandas
table only for ``--format csv|json``: a listing should answer at once. ``strategies`` reads the
built-in strategies from the listing cached with the kernels (``core.declarations.read_listing``), so that
it imports neither Numba nor the strategy modules once one run has written it.
"""
from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Optional

import typer

from llama_sim.cli.app import FormatOpt, StratFileOpt, aligned, app
from llama_sim.core.output import TERMINAL_WIDTH, check_format
from llama_sim.core.ruleset import all_games, get_game, option_flag


def _wrapped(text: str, first: str, rest: str) -> str:
    """``text`` after ``first``, wrapped to the terminal's width with ``rest`` before each further line."""
    return textwrap.fill(text, TERMINAL_WIDTH, initial_indent=first, subsequent_indent=rest, break_on_hyphens=False)


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
    rows = [{"game": g.name, "title": g.title, "players": f"{g.min_players}-{g.max_players}", "luck": _luck(g),
             "options": "; ".join(f"{option_flag(k)}: {v}" for k, v in g.options.items()) or "-"}
            for g in all_games().values()]
    text = []
    for g in all_games().values():
        text.append(f"{g.name:<8} {g.title:<24} {g.min_players}-{g.max_players} players, luck adjustment {_luck(g)}")
        text.extend(_wrapped(f"{option_flag(k)}: {v}", " " * 9, " " * 11) for k, v in g.options.items())
    _listing(rows, ["game", "title", "players", "luck", "options"], fmt, "\n".join(text))


def _luck(rule_set) -> str:
    """What ``--luck`` does by default in ``rule_set``: on, off (``--luck on`` adjusts) or none."""
    return {None: "none", False: "off", True: "on"}[rule_set.luck_default]


@app.command()
def strategies(game: Optional[str] = typer.Option(None, "--game", "-g", help="Only this rule set."),
               players: Optional[int] = typer.Option(None, "--players", "-p", help="Show the values each strategy "
                                                     "plays at this many players (a spec naming no values: the "
                                                     "preset for that count, else the defaults)."),
               strategies_file: Optional[list[Path]] = StratFileOpt, fmt: str = FormatOpt,
               observation: bool = typer.Option(False, "--observation", help="With --game: what a policy sees, "
                                                "the observation's fields with their corner cases, and the actions.")):
    """List the registered strategies with their parameters (default [low, high]) and presets.

    A spec that leaves a parameter unset plays the preset of the table's player count (a count without
    its own preset takes the nearest, ties to the larger: 3 players -> 4's, 5 -> 6's). --players N
    shows what plays at N and which values come from a preset."""
    from llama_sim.core.errors import UsageError

    check_format(fmt)
    if observation:
        return _observation(game, fmt)
    names = [get_game(game).name] if game else list(all_games())
    if players is not None:
        for g in names:
            rules = get_game(g)
            if not rules.min_players <= players <= rules.max_players:
                raise UsageError(f"--players {players}: {g} is played by {rules.min_players} to {rules.max_players}")
    rows, text = [], []
    for g, declared in _declared(names, strategies_file).items():
        if not declared:
            continue
        text.append(f"{g}:" if players is None else f"{g}, at {players} players:")
        width = max(len(s.name) for s in declared)
        for s in declared:
            row = {"game": g, "strategy": s.name,
                   "params": ", ".join(f"{p.name}={p.default:g} [{p.low:g}, {p.high:g}]" for p in s.params) or "-",
                   "presets": "; ".join(f"{n}p: " + ",".join(f"{k}={v:g}" for k, v in vals.items())
                                        for n, vals in sorted(s.presets.items())) or "-",
                   "description": s.description,
                   "notes": "; ".join(f"{n}p: {note}" for n, note in sorted(s.preset_notes.items())) or "-"}
            indent = f"  {'':<{width}}  "
            text.append(_wrapped(s.description, f"  {s.name:<{width}}  ", indent))
            if players is None:
                if s.params:
                    text.append(_wrapped(f"params: {row['params']}", indent, indent + "  "))
                if s.presets:
                    text.append(_wrapped(f"presets (other counts: the nearest, ties to the larger): {row['presets']}",
                                         indent, indent + "  "))
                text.extend(_wrapped(f"note on the {n}p preset: {note}", indent, indent + "  ")
                            for n, note in sorted(s.preset_notes.items()))
            else:
                count = s.preset_count(players)
                values = s.values_at(players)
                row.update(players=players, plays=", ".join(f"{k}={v:g}" for k, (v, _) in values.items()) or "-",
                           preset=f"{count}p" if count is not None else "-")
                groups = [(", ".join(f"{k}={v:g}" for k, (v, c) in values.items() if c == count), _preset_label(count, players)),
                          (", ".join(f"{k}={v:g}" for k, (v, c) in values.items() if c is None), "defaults")]
                if values:
                    text.append(_wrapped("plays: " + "; ".join(f"{vals} ({what})" for vals, what in groups if vals),
                                         indent, indent + "  "))
                if count is not None and count in s.preset_notes:
                    text.append(_wrapped(f"note: {s.preset_notes[count]}", indent, indent + "  "))
            rows.append(row)
    columns = ["game", "strategy", "params", "presets", "description", "notes"]
    if players is not None:
        columns[2:2] = ["players", "plays", "preset"]
    if players is not None:
        text.append("(a spec's own values, e.g. smart:quit_at=6, always win)")
    _listing(rows, columns, fmt, "\n".join(text))


def _observation(game: Optional[str], fmt: str) -> None:
    """``strategies --observation``: the observation and the actions of one rule set, as its kit declares them."""
    from llama_sim.core.errors import UsageError
    from llama_sim.core.kit import observation_table

    if game is None:
        raise UsageError("--observation: give the rule set with --game")
    fields, actions = observation_table(get_game(game).name)
    if fmt != "table":
        return _listing([{"part": "observation", **f} for f in fields] + [{"part": "action", **a} for a in actions],
                        ["part", "field", "index", "meaning", "corner case", "action"], fmt, "")
    rows = [["field", "index", "meaning", "corner case"]] + [[f["field"], f["index"], f["meaning"], f["corner case"]]
                                                            for f in fields]
    print(f"{game}: obs (int64), what the acting player sees; hand: its own cards, a count per card code\n")
    print(aligned(rows, keep=1))
    print("\nactions (legal: bit a of the int64 mask; return one of them)")
    print(aligned([["action", "meaning"]] + [[str(a["action"]), a["meaning"]] for a in actions]))


def _declared(names: list[str], strategies_file: Optional[list[Path]]):
    """Each rule set's strategies. A process that has not imported the registry knows only the built-in
    ones: it reads them from the listing kept in the kernel cache, or imports them and keeps the listing
    for the next process. Once imported, the registry may hold more (a strategies file, the caller's own
    code in the Python API): it is asked."""
    from llama_sim.core.declarations import read_listing, write_listing

    fresh = "llama_sim.core.registry" not in sys.modules
    found = read_listing(names) if fresh and not strategies_file else None
    if found is not None:
        return found
    from llama_sim.core import registry

    registry.load_files(strategies_file)
    if fresh:
        write_listing({g: [registry.get(g, name) for name in registry.builtin_strategies(g, searches=True)]
                       for g in all_games()})
    return {g: registry.strategies_for(g) for g in names}


def _preset_label(count: int | None, players: int) -> str:
    if count is None:
        return "-"
    return f"{count}p preset" if count == players else f"{count}p preset, the nearest to {players}p"
