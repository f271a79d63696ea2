"""The Typer app, the options every command shares and the helpers of its commands.

Rule-set options (``--dice-layout``, ``--deck-file``, the rule variants, ...) and advise's position
options (``--hand``, ``--row``, ...) are not written here: each rule set declares them
(``RuleSet.options``, its advisor's ``position_help``) and ``rule_set_options``/``position_options``
add them to a command, from the rule sets' declarations: building the commands loads no kernel module
and not Numba, and the commands import what they need (the API, pandas, matplotlib) when they run, so
``llamasim --help`` and ``llamasim games`` start at once.
"""
from __future__ import annotations

import functools
import inspect
import sys
from pathlib import Path
from typing import Callable, Optional

import typer

from llama_sim.core.commands import COMMANDS
from llama_sim.core.ruleset import all_games, get_game, option_flag
from llama_sim.core.output import TERMINAL_WIDTH, check_format, check_out, columns_text  # noqa: F401  (for the commands)

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="Monte Carlo strategy analyser for the L.A.M.A. family of games.",
)

DEBUG = {"on": False}  # --debug: print the details behind a one-line error


def _print_version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            print(f"llamasim {version('llama_sim')}")
        except PackageNotFoundError:  # running from a source tree that was never installed
            print("llamasim (not installed)")
        raise typer.Exit()


@app.callback()
def _global_options(
    debug: bool = typer.Option(False, "--debug", help="On an error, also print the full details (e.g. Numba's compile message)."),
    version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True, help="Print the version and exit."),
):
    """Monte Carlo strategy analyser for the L.A.M.A. family of games."""
    DEBUG["on"] = debug


SeedOpt = typer.Option(1, "--seed", help="One seed determines every number of the run.")
ThreadsOpt = typer.Option(None, "--threads", help="Worker threads (default: all cores). Results do not depend on it.")
FormatOpt = typer.Option("table", "--format", help="table, csv or json (json: one document on stdout).")
OutOpt = typer.Option(None, "--out", help="Also write the table to this .csv, .json or .parquet file.")
ForceOpt = typer.Option(False, "--force", help="Overwrite --out if it exists.")
QuietOpt = typer.Option(False, "--quiet", "-q", help="No progress bar or compile notice.")
RoundsOpt = typer.Option(None, "--rounds", help="Rounds to play (default 100000 unless --games is given).")
GamesOpt = typer.Option(None, "--games", help="Full games to 40 points to play instead of single rounds.")
StratFileOpt = typer.Option(None, "--strategies-file", help="A Python file registering more strategies (repeatable).")
PlotOpt = typer.Option(None, "--plot", help="Also draw the result to this .png or .svg file (matplotlib).")

COMPILE_TIME = "~4-7 s"  # a rule set's first compare or advise, cold, on the 2-core machine: 3.9-6.8 s
# (python benchmarks/first_run.py)


def compile_notice(quiet: bool, what: str = "kernels") -> None:
    """One line on stderr before the first compile of this command (Numba's cache is cold), saying what
    compiles and that it happens once: a command that sits silent for 15 s looks hung. Only on a
    terminal, and not with ``--quiet``: a log or a pipe gets nothing, and loading from the cache is
    silent."""
    from llama_sim.core import jit

    if quiet or not _is_terminal(sys.stderr):
        jit.on_compile = None
        return
    said: list[str] = []

    def notice(label: str) -> None:
        if not said:
            said.append(label)
            print(f"compiling the {what} (first run only, {COMPILE_TIME})...", file=sys.stderr, flush=True)

    jit.on_compile = notice


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):  # replaced or closed
        return False


def setup(game_name: str, strategies_file: Optional[list[Path]], quiet: bool, fmt: str, out: Optional[Path],
          force: bool):
    check_format(fmt)
    check_out(out, force)
    game = get_game(game_name)
    if strategies_file:
        from llama_sim.core import registry

        registry.load_files(strategies_file)
    compile_notice(quiet, f"{game.name} kernels")
    return game


def check_plot(path: Optional[Path], force: bool) -> None:
    """``--plot`` is checked before any work, like ``--out``."""
    from llama_sim.analysis.plots import check_plot_path

    if path is not None:
        check_plot_path(path, force, "--plot")


def save_plot(result, path: Optional[Path], fmt: str, force: bool) -> None:
    if path is None:
        return
    from llama_sim.analysis.plots import save

    save(result.plot(), path, force)
    if fmt == "table":
        print(f"wrote {path}")



def grouped_help(texts: dict[str, list[str]]) -> str:
    """One help line from each rule set's text (rule set name -> its text): rule sets saying the same
    thing share it, e.g. ``lama, party: your hand...; kadabra: ...``."""
    by_text: dict[str, list[str]] = {}
    for game, text in texts.items():
        by_text.setdefault(text, []).append(game)
    return "; ".join(f"{', '.join(games)}: {text}" for text, games in by_text.items())


def rule_set_option_help() -> dict[str, tuple[str, bool]]:
    """Every rule set's options (``RuleSet.options``), by API name: (help, is a flag)."""
    texts: dict[str, dict[str, str]] = {}
    for game in all_games().values():
        for name, text in game.options.items():
            texts.setdefault(name, {})[game.name] = text
    return {name: (grouped_help(by_game), False) for name, by_game in texts.items()}


def position_option_help() -> dict[str, tuple[str, bool]]:
    """Every advisor's position options (``RuleSet.advice_position_help``: declared with the rule set, or
    the advisor's), by API name: (help, is a flag)."""
    texts: dict[str, dict[str, str]] = {}
    flags: set[str] = set()
    for game in all_games().values():
        position_help, position_flags = game.advice_position_help()
        flags |= position_flags
        for name, text in position_help.items():
            texts.setdefault(name, {})[game.name] = text
    return {name: (grouped_help(by_game), name in flags) for name, by_game in texts.items()}


def declared_options(declared: Callable[[], dict[str, tuple[str, bool]]]):
    """A decorator giving a command (which takes ``**options``) the options ``declared()`` names as
    ``--flag`` options; it receives those given, by API name, for the rule set to check."""
    def decorate(command):
        signature = inspect.signature(command)
        own = [p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
        options = declared()
        added = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=bool if flag else Optional[str],
                                   default=typer.Option(False if flag else None, option_flag(name), help=text))
                 for name, (text, flag) in options.items()]

        @functools.wraps(command)
        def run(*args, **kwargs):
            given = {name: kwargs.pop(name) for name in options if name in kwargs}
            return command(*args, **kwargs, **{k: v for k, v in given.items() if v is not None and v is not False})

        run.__signature__ = signature.replace(parameters=own + added)
        return run
    return decorate


rule_set_options = declared_options(rule_set_option_help)  # --dice-layout, --deck-file, the variants, ...
position_options = declared_options(position_option_help)  # advise: --hand, --row, --ones, ...


def _help(p) -> str:
    """A parameter's help, with its default where the help does not say it."""
    default = p.default
    if default in (None, False, [], ()) or "default" in p.help.lower():
        return p.help
    shown_default = ",".join(map(str, default)) if isinstance(default, (list, tuple)) else default
    return f"{p.help} (default {shown_default})"


def _typer_parameter(p) -> inspect.Parameter:
    """The Typer option (or argument) of a declared parameter. Values arrive as text and are read by
    the declaration (``Param.read(text=True)``), so a wrong value gets the API's and the spec's words."""
    names = [n for n in (p.cli_flag, p.short) if n]
    if p.kind == "bool":
        annotation, default = bool, typer.Option(False, *names, help=_help(p))
    else:
        required = ... if p.required else None
        if p.cli_flag is None:
            default = typer.Argument(required, help=_help(p), metavar=p.metavar or "VALUE", show_default=False)
        else:
            metavar = p.metavar or {"int": "N", "float": "X", "path": "PATH", "counts": "N"}.get(p.kind, "TEXT")
            default = typer.Option(required, *names, help=_help(p), metavar=metavar, show_default=False)
        annotation = list[str] if p.repeated else str
        if p.cli_flag is not None or not p.repeated:  # (a repeated argument is a list, never None)
            annotation = Optional[annotation]
    return inspect.Parameter(p.name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=default)


def declared(command_name: str):
    """A decorator giving a command the options of its declaration (``core.commands``) that it does
    not write itself; they reach it read and checked, by their declared names (only those given)."""
    command_decl = COMMANDS[command_name]

    def decorate(command):
        signature = inspect.signature(command)
        own = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in signature.parameters.values()
               if p.kind is not inspect.Parameter.VAR_KEYWORD]
        own_names = {p.name for p in own}
        params = [p for p in command_decl.params if p.cli_flag != "" and p.name not in own_names]
        added = [_typer_parameter(p) for p in params]

        @functools.wraps(command)
        def run(*args, **kwargs):
            for p in params:
                value = kwargs.pop(p.name, None)
                if value in (None, False, []) and not p.required:
                    continue
                if p.sep and isinstance(value, str):  # "a,b,c" on the command line
                    value = [item for item in value.split(p.sep) if item.strip()] or value
                kwargs[p.name] = p.read(value, text=True)
            return command(*args, **kwargs)

        positional = [typer_p for typer_p, p in zip(added, params) if p.cli_flag is None]
        options = [typer_p for typer_p, p in zip(added, params) if p.cli_flag is not None]
        run.__signature__ = signature.replace(parameters=positional + own + options)
        return run
    return decorate


def num(value, digits: int = 4, sign: bool = False) -> str:
    import math

    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"


def ci_cell(value, low, high, sign: bool = False) -> str:
    """``value [low, high]`` as ``num`` prints them; ``value [n/a]`` when the run gave no interval."""
    bounds = (num(low, sign=sign), num(high, sign=sign))
    return f"{num(value, sign=sign)} " + ("[n/a]" if bounds == ("-", "-") else f"[{bounds[0]}, {bounds[1]}]")


def pval(p: float) -> str:
    import math

    if p is None or math.isnan(p):
        return "-"
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


def aligned(rows: list[list[str]], keep: int = 1, together: int = 1) -> str:
    """``rows`` (a heading row first) in aligned columns; columns that would pass ``TERMINAL_WIDTH`` go
    to a block below, the first ``keep`` columns repeated (``core.output.columns_text``)."""
    return columns_text(rows, keep, together=together)


def out_paths(out: Optional[Path], names: tuple[str, ...], force: bool) -> dict[str, Path]:
    """``x.csv`` holds the results, ``x.<table>.csv`` every other table; all checked before running."""
    if out is None:
        return {}
    paths = {n: out if n == "results" else out.with_name(f"{out.stem}.{n}{out.suffix}") for n in names}
    for path in paths.values():
        check_out(path, force)
    return paths
