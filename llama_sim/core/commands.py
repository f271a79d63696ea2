"""Every command's parameters, declared once.

A ``Command`` lists its ``Param``s (``core.parameters``): name, kind, bounds, default, help and
command-line flag. The
command line's options (``cli/app.py:declared``), the Python API's argument checks (``api.py``) and
an experiment spec step's keys (``present/spec.py``) are all derived from it and read values with
``Command.read``: the three entry points accept the same values and say the same ``name: problem``
for the same mistake, each adding only its own prefix (``llamasim: error:``, the spec file and step,
the exception's name). Types are strict: a boolean is a boolean (never the string "false"), a
number is in range where it is read (no overflow, no NaN), a list of player counts is a set.

Rule-set options are not declared here: a command that takes them says so (``rule_options``) and
they come from the RuleSet. Nothing here imports Numba, numpy or pandas: the command line builds
its options from these declarations at start-up.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, Callable

from llama_sim.core.parameters import (  # noqa: F401  (the limits and the reading, for the entry points)
    MAX_SWEEP_GRID, MAX_SWEEP_VALUES, Param, Problem, shown,
)

MAX_PLAYS = 10**11  # the most rounds or games one run plays: beyond it a count is a typing slip
MAX_SEED = 2**64 - 1
MAX_THREADS = 4096
MAX_ROLLOUTS = 10**9
MIN_PRECISION = 1e-6  # a smaller half-width would need far more than MAX_PLAYS rounds
DEFAULT_ROUNDS = 100_000
# The cap of a --precision run when none is given (rounds, or games with --games, per table).
DEFAULT_MAX_ROUNDS = 20_000_000


@dataclass(frozen=True)
class Command:
    """A command's declaration: its parameters (in the API's order), whether it takes the rule set's
    options (``rule_options``) and advise's position options (``position``), and its cross-checks,
    each ``check(values) -> None`` raising ``Problem`` (``values``: the read parameters, defaults
    filled in). Checks that need the rule set (player counts) are ``game_checks(values, rule_set)``."""

    name: str
    params: tuple[Param, ...]
    rule_options: bool = True
    position: bool = False
    checks: tuple[Callable[[dict], None], ...] = ()
    game_checks: tuple[Callable[[dict, Any], None], ...] = ()

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.params]

    def unknown(self, key: str, extra: tuple[str, ...] = ()):
        """A key the command does not take: ``Problem`` with the close match, or the list."""
        close = difflib.get_close_matches(key, self.names + list(extra), n=1, cutoff=0.75)
        hint = f"did you mean {close[0]}?" if close else f"{self.name} takes: {', '.join(self.names)}"
        raise Problem(key, f"{self.name} has no such parameter ({hint})")

    def read(self, given: dict, *, text: bool = False, rule_set=None) -> dict:
        """Every declared parameter's value (given ones checked, the others their default), then the
        cross-checks (and the rule set's, when ``rule_set`` is known). A key the command does not
        declare is left to the caller (rule-set and position options)."""
        values = {}
        for p in self.params:
            values[p.name] = p.read(given.get(p.name), text=text)
        self.check(values, rule_set)
        return values

    def check(self, values: dict, rule_set=None) -> None:
        for check in self.checks:
            check(values)
        if rule_set is not None:
            for check in self.game_checks:
                check(values, rule_set)


# ------------------------------------------------------------------------------------ shared checks

def one_count(values: dict) -> None:
    """rounds or games, never both."""
    if values.get("rounds") is not None and values.get("games") is not None:
        raise Problem("games", "give rounds or games, not both")


def precision_caps(values: dict) -> None:
    if values.get("max_rounds") is not None and values.get("precision") is None:
        raise Problem("max_rounds", "applies only with precision")
    one_count(values)


def player_range(name: str = "players") -> Callable[[dict, Any], None]:
    """Each player count within the rule set's range."""
    def check(values: dict, rule_set) -> None:
        counts = values.get(name)
        for n in counts if isinstance(counts, list) else [] if counts is None else [counts]:
            if not rule_set.min_players <= n <= rule_set.max_players:
                raise Problem(name, f"{rule_set.name} is played by {rule_set.min_players} to "
                                    f"{rule_set.max_players} players, not {n}")
    return check


def at_least_two(name: str, what: str) -> Callable[[dict], None]:
    def check(values: dict) -> None:
        if values[name] is not None and values[name] != ["all"] and len(values[name]) < 2:
            raise Problem(name, f"{what} needs at least two strategies")
    return check


def listed_once(name: str) -> Callable[[dict], None]:
    def check(values: dict) -> None:
        names = values[name] or []
        for i, s in enumerate(names):
            if s in names[:i]:
                raise Problem(name, f"lists '{s}' twice")
    return check


def fit_seats(values: dict, rule_set) -> None:
    """The compared strategies fit the table."""
    n = values.get("players")
    n = n if n is not None else default_players(rule_set)
    k = len(values["strategies"])
    for count in n if isinstance(n, list) else [n]:
        if k > count:
            raise Problem("players", f"{k} strategies do not fit {count} seats")


def seats_fit(values: dict, rule_set) -> None:
    n = len(values["seats"])
    if not rule_set.min_players <= n <= rule_set.max_players:
        raise Problem("seats", f"{rule_set.name} is played by {rule_set.min_players} to {rule_set.max_players} "
                               f"players, not {n}")


def vs_fits(values: dict, rule_set) -> None:
    n = values["players"]
    vs = values.get("vs") or []
    if 1 + max(1, len(vs)) > n:
        raise Problem("vs", f"{1 + len(vs)} strategies do not fit {n} seats")


def default_players(rule_set) -> int:
    """A table of 4, within the rule set's range."""
    return min(max(4, rule_set.min_players), rule_set.max_players)


# ------------------------------------------------------------------------------------ parameters

def _p(name, kind, help, **kw) -> Param:
    return Param(name, kind, help, **kw)


GAME = _p("game", "str", "Rule set (llamasim games lists them).", required=True, short="-g", spec_key=None,
          metavar="GAME")
SEED = _p("seed", "int", "One seed determines every number of the run.", default=1, low=0, high=MAX_SEED,
          spec_key=None)
THREADS = _p("threads", "int", "Worker threads (default: all cores). Results do not depend on it.", low=1,
             high=MAX_THREADS, spec_key=None)
ROUNDS = _p("rounds", "int", f"Rounds to play (default {DEFAULT_ROUNDS:,} unless games is given).", low=1,
            high=MAX_PLAYS)
GAMES = _p("games", "int", "Full games to 40 points to play instead of single rounds.", low=1, high=MAX_PLAYS)
PRECISION = _p("precision", "float", "Play in batches until every covered 95% interval's half-width is at most "
                                     "this.", low=MIN_PRECISION, high=1e6, metavar="X")
MAX_ROUNDS = _p("max_rounds", "int", f"With precision: stop at this many rounds (games with games) per table even "
                                     f"if not precise (default {DEFAULT_MAX_ROUNDS:,}).", low=1, high=MAX_PLAYS)
METRICS = _p("metrics", "strings", "Compared metric (repeatable): gets paired differences, a ranking and the "
                                   "precision target. Default penalty_per_round, plus win_rate with games.",
             flag="--metric", metavar="METRIC")
BACKEND = _p("backend", "choice", "local (threads) or dask (needs the dask extra).", default="local",
             choices=("local", "dask"), spec_key=None, metavar="local|dask")
SCHEDULER = _p("scheduler", "str", "Dask scheduler address (default: start a LocalCluster on this machine).",
               spec_key=None, metavar="ADDRESS")
WORKERS = _p("workers", "int", "Dask LocalCluster worker processes (default: one per core).", low=1,
             high=MAX_THREADS, spec_key=None)
STRATEGIES_FILE = _p("strategies_file", "paths", "A Python file registering more strategies (repeatable).", spec_key=None,
                     metavar="FILE.py")
LUCK = _p("luck", "switch", "Luck-adjusted penalties: subtract each chance event's luck under the rule set's value "
                           "function (unbiased; narrower intervals). Default: the rule set's (llamasim games).",
          metavar="on|off")
QUIET = _p("quiet", "bool", "No progress bar or compile notice.", default=False, short="-q", spec_key=None)

RUN = (SEED, THREADS, STRATEGIES_FILE, QUIET)  # every playing command's run settings
BACKENDS = (BACKEND, SCHEDULER, WORKERS)


def _players(default=None, many=False, help="Players at the table (default 4).") -> Param:
    return _p("players", "counts", help, default=default, short="-p", many=many)  # the rule set says the range


def _strategies(name="strategies", help="Strategies: name or name:k=v,k=v.", flag=None, **kw) -> Param:
    return _p(name, "strings", help, required=kw.pop("required", True), flag=flag, metavar="STRATEGY", **kw)


def _strategy(name="strategy", help="A strategy: name or name:k=v,k=v.", **kw) -> Param:
    return _p(name, "str", help, required=kw.pop("required", True), metavar="STRATEGY", **kw)


COMMANDS: dict[str, Command] = {}


def declare(command: Command) -> Command:
    COMMANDS[command.name] = command
    return command


SIMULATE = declare(Command("simulate", (
    GAME,
    _strategies("seats", "Strategy of the next seat (repeat per seat): name or name:k=v,k=v.", flag="--seat",
                short="-s"),
    ROUNDS, GAMES, LUCK, *RUN), checks=(one_count,), game_checks=(seats_fit,)))

COMPARE = declare(Command("compare", (
    GAME,
    _strategies(help="Strategies to compare: name or name:k=v,k=v."),
    _players(many=False, help="Players at the table (default 4)."),
    ROUNDS, GAMES, PRECISION, MAX_ROUNDS, METRICS, LUCK, *BACKENDS, *RUN),
    checks=(precision_caps, at_least_two("strategies", "compare")), game_checks=(player_range(), fit_seats)))

SEAT_TABLE = declare(Command("seat_table", (
    GAME,
    _strategies(help="Strategies, each played in every seat."),
    _players(many=True, help="Player counts (default: every count the rule set allows)."),
    ROUNDS, GAMES, PRECISION, MAX_ROUNDS, METRICS, LUCK, *BACKENDS, *RUN),
    checks=(precision_caps, listed_once("strategies")), game_checks=(player_range(),)))

def _league_two(values: dict) -> None:
    if values["strategies"] != ["all"] and len(values["strategies"]) < 2:
        raise Problem("strategies", "a league needs at least two strategies")


LEAGUE = declare(Command("league", (
    GAME,
    _strategies(help="Strategies of the league ('all': every built-in one).", default=["all"], required=False),
    _players(many=True, help="Player counts (default: every count the rule set allows)."),
    ROUNDS, GAMES, METRICS, LUCK, *BACKENDS, *RUN),
    checks=(one_count, _league_two, listed_once("strategies")), game_checks=(player_range(),)))

SWEEP = declare(Command("sweep", (
    GAME,
    _strategy(help="The strategy whose parameter is swept (name or name:k=v)."),
    _p("param", "grid", "Parameter range k=lo:hi:step, e.g. quit_at=0:20:1; give it twice for a 2-D grid.",
       required=True, spec_key="grid", metavar="K=LO:HI:STEP"),
    _strategies("vs", "Opponent strategies (repeatable; default: the swept strategy at its defaults).",
                flag="--vs", required=False, default=[]),
    _players(default=4, help="Players at the table."),
    ROUNDS, GAMES, LUCK, *RUN), checks=(one_count,), game_checks=(player_range(), vs_fits)))

LUCK_GAIN = declare(Command("luck_gain", (
    GAME,
    _strategies(help="Strategies to compare with luck adjustment off and on: name or name:k=v,k=v."),
    _players(many=True, help="Player counts (default 2 and 4)."),
    ROUNDS, GAMES, *RUN),
    checks=(one_count, at_least_two("strategies", "luck_gain")), game_checks=(player_range(), fit_seats)))

TUNE = declare(Command("tune", (
    GAME,
    _strategy(help="The strategy to tune (name, or name:k=v for another starting point)."),
    _players(default=4, help="Players at the table."),
    _p("vs", "strings", "The other seats: strategy specs, comma-separated (one fills every seat, or one per other "
                        "seat), or 'self' (the current best).", default=["self"], metavar="STRATEGIES", sep=","),
    _p("budget", "int", "Rounds to play in all (a full game counts its rounds); a quarter goes to the final check.",
       default=200_000, low=1000, high=MAX_PLAYS),
    _p("metric", "choice", "win_rate (full games to 40) or penalty_per_round (single rounds).",
       default="win_rate", choices=("win_rate", "penalty_per_round"), metavar="METRIC"),
    LUCK,
    _p("candidates", "int", "Candidates per race round (default 8 + 8 per parameter, at most 32).", low=2,
       high=10_000),
    SEED, THREADS, STRATEGIES_FILE), game_checks=(player_range(),)))

SOLVE = declare(Command("solve", (
    _p("game", "str", "Rule set with an exact solver (dice).", flag=None, spec_key=None, metavar="GAME"),
    _p("row", "str", "The solo player's row, e.g. \"2 5 L\" (L = llama).", metavar="ROW"),
    _p("llama_row", "str", "Cards still in the llama row.", default="1 2 3 4 5 6 L", metavar="ROW"),
    _p("score", "int", "The solo player's score (tokens held, 0..39): three llamas and going out return its "
                       "largest token, which the values count.", default=0, low=0, high=39),
    _p("table", "bool", "The whole optimal policy: every sub-row of row (every row of up to 6 cards without "
                        "row).", default=False)),
    checks=()))

ADVISE = declare(Command("advise", (
    GAME,
    _p("position_file", "path", "The position as a TOML or JSON file with the same keys.", flag="--position",
       spec_key=None, metavar="FILE"),
    _p("actions", "strings", "Only these actions (repeatable), e.g. --action draw --action quit.", flag="--action",
       metavar="ACTION"),
    _players(help="Players at the table; the position's other hands (or rows) must number one fewer (default: "
                  "as many as they give)."),
    _strategy("policy", "Roll-out strategy of every seat (default: the rule set's strongest at the table's player "
                        "count; unset parameters play that count's preset).", required=False),
    _strategies("opponents", "Per-seat strategies of the other players, e.g. greedy,smart,smart.", flag="--opponents",
                required=False, sep=","),
    _p("horizon", "choice", "round (points over the rest of this round) or game (also the win rate).",
       default="round", choices=("round", "game"), metavar="round|game"),
    _p("rollouts", "int", "Exactly this many roll-outs (each plays every action).", low=2, high=MAX_ROLLOUTS),
    _p("precision", "float", "Stop once every action's 95% half-width is below this.", low=MIN_PRECISION,
       high=1e6, metavar="X"),
    _p("max_rollouts", "int", "Cap of the default stop rule.", default=200_000, low=2, high=MAX_ROLLOUTS),
    SEED, THREADS, STRATEGIES_FILE), position=True, game_checks=(player_range(),)))

CHART = declare(Command("chart", (
    GAME,
    _players(default=4, help="Players at the table."),
    _strategy("policy", "The policy every seat plays, also in the roll-outs (default: the strongest built-in).",
              required=False),
    _p("games", "int", "Full games to 40 points whose stuck decisions are valued.", default=20_000, low=2,
       high=MAX_PLAYS),
    _p("measure", "choice", "own: the deciding player's net score change over the rest of the round (as "
                            "penalty_per_round); relative: that minus the others' mean change (what decides a game); "
                            "win: minus the win share, the rest of the game played out (what the bundled charts use).",
       default="own", choices=("own", "relative", "win"), metavar="own|relative|win"),
    _p("pile_edges", "edges", "Lower edges of the draw-pile bins, e.g. 0,1,2,4,8,16 (default "
                              "0,1,2,3,4,6,8,11,15,20,26,32,40; dice: cards left in the llama row, default 1,...,7).",
       flag="--pile-bins", metavar="EDGES"),
    _p("opp_edges", "edges", "Lower edges of the smallest-opponent-hand bins (default 1,2,3,4,5,6,7,9,12,16; dice: "
                             "the smallest row of another player still in, default 1,...,10).",
       flag="--opponent-bins", metavar="EDGES"),
    SEED, THREADS, STRATEGIES_FILE), rule_options=False, game_checks=(player_range(),)))

CARD = declare(Command("card", (
    GAME,
    _players(default=4, help="Players at the table."),
    _p("games", "int", "Full games each candidate rule plays against the chart (compare rounds them up to whole "
                       "deal blocks); the card's figures come from 4 times as many fresh games.", default=50_000,
       low=100, high=MAX_PLAYS),
    SEED, THREADS), rule_options=False, game_checks=(player_range(),)))

GRADE = declare(Command("grade", (
    GAME,
    _strategies(help="Strategy to grade (repeatable).", flag="--strategy", short="-s"),
    _players(default=4, help="Players at the table (the strategy in every seat)."),
    _p("decisions", "int", "Decisions to grade per strategy (whole rounds).", default=2000, low=1, high=1_000_000),
    _p("rollouts", "int", "Roll-outs per action to select the best, and as many again to value the choice.",
       default=200, low=2, high=100_000),
    _strategy("policy", "Roll-out strategy of every seat: one of the expert's bases (default: the expert's own).",
              required=False),
    _p("mistakes", "int", "Costliest mistakes to list per strategy.", default=5, low=0, high=1000),
    SEED, THREADS, STRATEGIES_FILE), game_checks=(player_range(),)))

BENCH = declare(Command("bench", (
    _p("game", "str", "Only this rule set (default: all).", short="-g", spec_key=None, metavar="GAME"),
    _p("rounds", "int", "Rounds for the kernel timing.", default=400_000, low=1, high=MAX_PLAYS),
    _p("reference_rounds", "int", "Rounds for the reference-engine timing.", default=2_000, low=1,
       high=1_000_000),
    THREADS, QUIET), rule_options=False))

VARIANTS = declare(Command("variants", (
    GAME,
    _strategies(help="Strategies to compare under each variant."),
    _p("variants", "variants", "Rule variants: name = { option = value, ... }.", required=True, flag=""),
    _players(default=4, many=True, help="Player counts."),
    ROUNDS, GAMES, *RUN), checks=(one_count,), game_checks=(player_range(), fit_seats)))

RUN_SPEC = declare(Command("run", (
    _p("spec", "spec", "An experiment spec, e.g. experiments/lama-quit-threshold.toml.", required=True, flag=None,
       spec_key=None, metavar="SPEC"),
    _p("out", "path", "Report folder (default reports/<name>).", spec_key=None, metavar="FOLDER"),
    _p("scale", "float", "Multiply every rounds/games count (e.g. 0.01 for a quick look).", default=1.0, low=1e-6,
       high=1000, spec_key=None, metavar="X"),
    _p("force", "bool", "Replace the report folder if it exists.", default=False, spec_key=None),
    QUIET), rule_options=False))

TRACE = declare(Command("trace", (
    GAME,
    _strategies("seats", "Strategy of the next seat (repeat per seat): name or name:k=v,k=v.", flag="--seat",
                short="-s", spec_key=None),
    _p("games", "bool", "Trace one full game to 40 points instead of one round.", default=False, spec_key=None),
    _p("round", "int", "Which round (with games: which game) of the seed to trace, as simulate plays them from 0.",
       default=0, low=0, high=MAX_PLAYS, spec_key=None),
    SEED,
    _p("values", "bool", "Also the expert's value of each legal action (points over the rest of the round, lower "
                         "is better) and the points the choice lost.", default=False, spec_key=None),
    _p("rollouts", "int", "With values: roll-outs per decision.", default=200, low=2, high=100_000, spec_key=None),
    STRATEGIES_FILE), game_checks=(seats_fit,)))

CHECK = declare(Command("check", (
    _p("files", "paths", "Strategies files to check (every strategy in them).", required=True, flag=None,
       spec_key=None, metavar="FILE.py"),
    _p("rounds", "int", "Rounds per player count (and twice, for determinism).", default=2000, low=10,
       high=10_000_000, spec_key=None),
    _p("games", "int", "Full games per player count.", default=100, low=1, high=1_000_000, spec_key=None),
    SEED,
    _p("decisions", "int", "First decisions of each strategy to show as a trace.", default=6, low=0, high=1000,
       spec_key=None)), rule_options=False))
