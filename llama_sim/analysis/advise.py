"""``advise``: what is each legal action worth in a typed-in position?

A *position* (``core.position.Position``) is what the acting seat can see: its own hand (dice: row),
the top card, the other players' hand sizes in turn order after it, who has quit, the draw-pile
size, the discard cards it remembers, everyone's score (Kadabra: tokens, the magic token, the stage,
a running show; dice: everyone's public row and the llama row). The acting seat is seat 0 of the
roll-outs, the others follow in turn order. Which options make a position, how they are read and
checked, the legal actions and the roll-out kernel are the rule set's (``RuleSet.advice``, see
``core.advice.AdviceHooks``); this module is what every rule set shares.

Determinized roll-outs: for roll-out i the rule set deals what the seat cannot see from the stream
(seed, i, DEAL); every legal action is then played on that same deal with the same policy stream
(seed, i, POLICY) (and dice stream (seed, i, DICE)): common random numbers, so paired differences
are tight. The acting seat's first decision is forced to the action (a wrapper policy,
``forced_policy``, plays it at the round's first decision and hands every later decision to the
seat's own strategy); after that every seat plays its strategy (``--policy``, ``--opponents``;
by default the rule set's strongest at the table's player count, ``core.advice.default_policy_at``;
a parameter a spec leaves unset plays the strategy's preset for that count).

Per action: ``penalty_per_round``, the net change of the seat's score over the rest of this round
(card points, minus the token returned on going out; Kadabra: the change of the token total, as in
``compare``), ``went_out_rate`` and, with ``horizon="game"``, ``win_rate``: the game is played on
from the scores to 40 with fresh deals from the stream (seed, i, GAME), ties shared as in
``compare``. Each roll-out is one independent block; intervals are normal intervals over roll-outs
(Wilson for rates), and each action's paired difference to the best has its own interval. The
stop rule looks at the data after every batch, so every printed interval is a Bonferroni interval
over the looks the rule could take (``looks``: level ``1 - (1 - level) / looks``, z = 2.73 for the
8 looks of the default 200,000 roll-outs): whichever look it stops at, each interval holds at the
stated level. A fixed ``n_rollouts`` is one look. A value
whose roll-outs all agree, in a position where the rule set says that action leaves nothing to
chance (``chance_free``), is exact and is reported with ``ci_low == ci_high == value``. A position
the rule set solves exactly (``exact_answer``: a lone dice player) is answered by its solver.

Stop rule (backgammon roll-out style): roll-outs run in batches of fixed sizes (so the same seed
gives the same numbers for any thread count); by default they stop once the best action is 3
standard errors clear of the runner-up (or the Bonferroni quantile, when that is larger: so a stop
on separation always prints a difference interval that excludes 0) or every interval's half-width is below 0.02 (the primary
metric: penalty per round, or the win rate for ``horizon="game"``), at most ``max_rollouts``.
``precision`` replaces the rule by "every half-width below precision"; ``n_rollouts`` fixes the count.

Readings chosen: the covered discard cards are part of the roll-outs' public discard history (the
roll-out policies see the determinized pile, as a player who remembered it would); the roll-out
kernels count decisions from 0 at the position (the rule set's ``turn_index``).

What an advice returns (``AdviceResult``: its table, text, plot and sentence) is ``advise_result``.
"""
from __future__ import annotations

import json
import math
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from llama_sim.analysis.advise_result import (
    COLUMNS, METRICS_GAME, METRICS_ROUND, AdviceResult, advice_sentence, exact_result,
)
from llama_sim.core import aside, interrupt
from llama_sim.core.parameters import Problem, shown
from llama_sim.core.advice import RolloutLineup, advice_of, default_policy_at, forced_policy
from llama_sim.core.errors import Interrupted, UsageError, illegal_action_error
from llama_sim.core.position import Position
from llama_sim.core.registry import MAX_PARAMS, MAX_POLICIES, at_table, parse_spec, with_values
from llama_sim.core.ruleset import all_games, get_game, option_flag
from llama_sim.core.stats import WIN_SCALE, wilson, z_value
from llama_sim.run.chunks import policy_error

FORCED_COL = MAX_PARAMS  # params column holding the forced first action
SEPARATION_SE = 3.0
DEFAULT_PRECISION = 0.02
DEFAULT_MAX_ROLLOUTS = 200_000
FIRST_BATCH = 2048
# The first batch when no action leaves anything to chance (quitting; a player alone): every roll-out
# should then give the same values, and a few dozen check it (a policy drawing on its random stream
# would differ) instead of 2048 identical ones; should they differ, the usual batches follow.
CHANCE_FREE_BATCH = 64
MAX_ROLLOUTS = 10**9  # days of work at the largest table: beyond it a count is a typing slip
WINDOW = 256  # chunks handed to the threads at a time
CHUNK = 512  # roll-outs per kernel call (threads take whole chunks; results never depend on them)


# ================================================================================ positions


def position_keys() -> tuple[set[str], dict[str, str]]:
    """Every rule set's position options, and those a file may give as a list -> what joins the items."""
    keys, lists = set(), {}
    for rule_set in all_games().values():
        keys |= set(rule_set.advice_position_help()[0])
        lists.update(rule_set.position_lists)
    return keys, lists


def load_position_file(path: str | Path) -> dict:
    """A position as a TOML or JSON file with the command's option names (``hand_sizes`` or
    ``hand-sizes``)."""
    path = Path(path)
    if not path.is_file():
        raise UsageError(f"position file not found: {path}")
    try:
        text = path.read_text()
        data = json.loads(text) if path.suffix.lower() == ".json" else tomllib.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"could not read position file {path}: {' '.join(str(exc).split())[:200]}") from None
    except RecursionError:  # both parsers recurse into nested arrays
        raise UsageError(f"could not read position file {path}: nested too deeply") from None
    if not isinstance(data, dict):
        raise UsageError(f"position file {path}: expected a table of options")
    known, lists = position_keys()
    out = {}
    for key, value in data.items():
        k = key.replace("-", "_")
        if k not in known:
            raise UsageError(f"position file {path}: unknown key '{key}' (known: {', '.join(sorted(known))})")
        if isinstance(value, list) and k in lists:
            value = lists[k].join(" ".join(map(str, r)) if isinstance(r, list) else str(r) for r in value)
        out[k] = value
    return out


def make_position(game: str, *, deck_counts=None, **options) -> Position:
    """Parse and check a typed-in position (the ``advise`` options); UsageError names the problem.
    An option the rule set does not take is an error; ``deck_counts`` is the deck (cards per code)
    when a deck file replaces the rule set's own."""
    rule_set = get_game(game)
    advice = advice_of(rule_set)
    for key, value in options.items():
        if value is not None and value is not False and key not in advice.position_keys:
            takes = ", ".join(option_flag(k) for k in advice.position_keys)
            raise UsageError(f"{option_flag(key)} is not a {rule_set.name} option "
                             f"({rule_set.name} positions take {takes})")
    for key in advice.position_flags:  # a flag is a boolean, never the string "false" (API, file or spec)
        if options.get(key) is not None and not isinstance(options[key], bool):
            raise Problem(key, f"must be true or false, not {shown(options[key])}")
    return advice.make_position(deck_counts, **{k: v for k, v in options.items() if k in advice.position_keys})


# ================================================================================ actions and line-up


def root_actions(pos: Position) -> list[int]:
    """The acting seat's legal actions at the position (the rule set's action enum)."""
    return advice_of(get_game(pos.game)).root_actions(pos)


def action_names(game: str) -> tuple[str, ...]:
    return get_game(game).action_names


def select_actions(pos: Position, wanted: list[str] | None) -> list[int]:
    """The actions to value: every legal one, or those named in ``wanted`` (UsageError on an unknown
    or illegal one)."""
    advice = advice_of(get_game(pos.game))
    legal = advice.root_actions(pos)
    if not wanted:
        return legal
    names = action_names(pos.game)
    lookup = {n.lower(): a for a, n in enumerate(names)}
    chosen = []
    for w in wanted:
        key = advice.action_key(pos, " ".join(w.lower().split()))
        if key not in lookup:
            raise UsageError(f"unknown action '{w}' (actions: {', '.join(names[a] for a in legal)})")
        a = lookup[key]
        if a not in legal:
            raise UsageError(advice.why_illegal(pos, names[a]))
        if a not in chosen:
            chosen.append(a)
    return chosen


def turn_index(game: str) -> int:
    """The rule set's observation field counting the round's decisions (what ``forced_policy`` reads)."""
    return advice_of(get_game(game)).turn_index


def lineup(game: str, n: int, policy: str | None, opponents: list[str] | None) -> RolloutLineup:
    """Who plays the roll-outs: entries 0..n-1 are the seats' players (``policy``, by default the rule
    set's strongest at ``n`` players, and ``opponents``), each with the preset of a table of ``n`` for
    the parameters its spec leaves unset (as every command plays them); entry n is seat 0's
    forced-first-action wrapper."""
    own = at_table(parse_spec(game, policy or default_policy_at(advice_of(get_game(game)), n)), n)
    if opponents:
        if len(opponents) != n - 1:
            raise UsageError(f"--opponents: {n - 1} strategies needed (one per other player), got {len(opponents)}")
        players = [own] + [at_table(parse_spec(game, s), n) for s in opponents]
    else:
        players = [own] * n
    funcs, keys, slots = [], [], []
    for p in players:
        key = p.strategy.game + "." + p.strategy.name
        if key not in keys:
            keys.append(key)
            funcs.append(p.strategy.policy)
        slots.append(keys.index(key))
    funcs.append(forced_policy(game, keys[0], funcs[0], turn_index(game)))
    slots.append(len(funcs) - 1)
    if len(funcs) > MAX_POLICIES:
        raise UsageError(f"at most {MAX_POLICIES - 1} different strategies in one advise line-up")
    funcs_t = tuple(funcs) + (funcs[0],) * (MAX_POLICIES - len(funcs))
    params = np.zeros((n + 1, MAX_PARAMS + 1), np.float64)
    for s, p in enumerate(players):
        params[s, :MAX_PARAMS] = p.params
    params[n, :MAX_PARAMS] = players[0].params
    first = np.arange(n, dtype=np.int64)
    first[0] = n
    return RolloutLineup(players, funcs_t, np.array(slots, np.int64), params, first, np.arange(n, dtype=np.int64))


# ================================================================================ roll-outs


def _chance_free(pos: Position, action_name: str, horizon: str) -> bool:
    """True when the roll-outs of this action leave nothing to chance (so all-equal roll-outs are the
    exact value): the rule set says so for the round horizon; a game horizon deals new rounds."""
    return horizon == "round" and advice_of(get_game(pos.game)).chance_free(pos, action_name)


def _runner(pos: Position, actions: list[int], line: RolloutLineup, horizon: str, seed: int, cfg):
    """A function ``run(first, count, s1, s2)`` playing roll-outs first..first+count-1."""
    return advice_of(get_game(pos.game)).rollout_runner(pos, np.array(actions, np.int64), line, horizon == "game",
                                                        np.uint64(seed % 2**64), cfg)


@dataclass
class _Moments:
    """Per-roll-out sums of the vector (penalty_k.., went_out_k.., win60_k..) and of its outer product."""

    k: int
    n: int = 0
    z: float = math.nan  # the quantile of every interval: Bonferroni over the stop rule's looks
    s1: np.ndarray = None
    s2: np.ndarray = None

    def __post_init__(self):
        d = 3 * self.k
        self.s1 = np.zeros(d, np.int64)
        self.s2 = np.zeros((d, d), np.int64)

    def mean(self) -> np.ndarray:
        return self.s1 / self.n

    def cov(self) -> np.ndarray:
        if self.n < 2:
            return np.zeros_like(self.s2, dtype=np.float64)
        m = self.mean()
        c = (self.s2 - self.n * np.outer(m, m)) / (self.n - 1)
        c[np.abs(c) < 1e-12] = 0.0
        return c


def _primary(horizon: str) -> int:
    return 2 if horizon == "game" else 0


def _order(mom: _Moments, horizon: str) -> list[int]:
    """Action indices best first (lowest penalty; highest win rate for the game horizon)."""
    p = _primary(horizon)
    m = mom.mean()[p * mom.k:(p + 1) * mom.k]
    keys = -m if horizon == "game" else m
    return sorted(range(mom.k), key=lambda i: (keys[i], i))


def _stop(mom: _Moments, horizon: str, precision: float | None, z: float) -> bool:
    k, p = mom.k, _primary(horizon)
    cov = mom.cov()
    scale = WIN_SCALE if p == 2 else 1
    idx = [p * k + i for i in range(k)]
    half = [z * math.sqrt(cov[j, j] / mom.n) / scale for j in idx]
    if precision is not None:
        return max(half) < precision
    if max(half) < DEFAULT_PRECISION or k == 1:
        return True
    order = _order(mom, horizon)
    a, b = idx[order[0]], idx[order[1]]
    d = abs(mom.mean()[a] - mom.mean()[b])
    var = cov[a, a] + cov[b, b] - 2 * cov[a, b]
    if var <= 0:
        return d > 0
    return d / math.sqrt(var / mom.n) >= max(SEPARATION_SE, z)


def looks(cap: int, first_batch: int) -> int:
    """How many times the stop rule can look before ``cap`` roll-outs (the batch sizes of
    ``run_rollouts``: the first batch, then doubling the roll-outs so far)."""
    n = count = 0
    while n < cap:
        n += min(max(first_batch if n == 0 else FIRST_BATCH, n), cap - n)
        count += 1
    return count


def _compile_kernel_aside(game: str, n: int, policy, opponents, horizon: str) -> None:
    """Compile the rule set's roll-out kernel for ``horizon`` while its cold strategies compile in another
    process (``core.aside``), before ``lineup`` loads them."""
    hooks = advice_of(get_game(game))
    kernels = getattr(hooks, "rollout_kernel", None)
    if kernels is None:
        return
    kernel = kernels.of(horizon == "game")
    try:
        named = [parse_spec(game, s).strategy for s in [policy or default_policy_at(hooks, n), *(opponents or [])]]
    except UsageError:
        return  # (``lineup`` says what is wrong)
    with aside.start(kernel, named, forced=named[:1]):
        kernel.get()


def run_rollouts(pos: Position, actions: list[int], *, policy=None, opponents=None, horizon="round",
                 n_rollouts=None, precision=None, max_rollouts=DEFAULT_MAX_ROLLOUTS, seed=1, threads=1,
                 cfg=None, level=0.95) -> _Moments:
    """Play roll-outs in fixed batches until the stop rule holds; the batches and chunks do not
    depend on ``threads``, so the result is the same for any thread count."""
    if horizon not in ("round", "game"):
        raise UsageError(f"--horizon must be round or game, got '{horizon}'")
    for option, value in (("--rollouts", n_rollouts), ("--max-rollouts", max_rollouts)):
        if value is not None and not 2 <= value <= MAX_ROLLOUTS:
            raise UsageError(f"{option} must be from 2 to {MAX_ROLLOUTS:,} ({MAX_ROLLOUTS:.0e}), not {value}")
    if precision is not None and precision <= 0:
        raise UsageError("--precision must be positive")
    _compile_kernel_aside(pos.game, pos.n, policy, opponents, horizon)
    line = lineup(pos.game, pos.n, policy, opponents)
    run = _runner(pos, actions, line, horizon, seed, cfg)
    cap = n_rollouts if n_rollouts is not None else max_rollouts
    if threads is None:
        threads = 1
    if int(threads) < 1:
        raise UsageError(f"--threads must be at least 1, got {threads}")
    threads = int(threads)
    pool = ThreadPoolExecutor(threads) if threads > 1 else None
    names = action_names(pos.game)
    first_batch = CHANCE_FREE_BATCH if all(_chance_free(pos, names[a], horizon) for a in actions) else FIRST_BATCH
    tries = 1 if n_rollouts is not None else looks(cap, first_batch)
    z = z_value(1 - (1 - level) / tries)
    mom = _Moments(len(actions), z=z)
    try:
        while mom.n < cap:
            batch = first_batch if mom.n == 0 else FIRST_BATCH
            size = min(max(batch, mom.n), cap - mom.n) if n_rollouts is None else cap - mom.n
            starts = range(mom.n, mom.n + size, CHUNK)

            def work(first, end=mom.n + size):
                s1 = np.zeros_like(mom.s1)
                s2 = np.zeros_like(mom.s2)
                try:
                    interrupt.call(run, first, min(CHUNK, end - first), s1, s2)
                except (Interrupted, UsageError):
                    raise
                except Exception as exc:  # an engine's illegal-action report, or a strategies file's code
                    labels = [p.label for p in line.players] + [line.players[0].label]  # entry n: the wrapper
                    raise (illegal_action_error(exc, labels, action_names(pos.game))
                           or policy_error(exc, line.players)) from None
                return s1, s2

            # the batch's chunks a window at a time (a batch may hold 10^9 roll-outs): integer sums,
            # so the order of arrival changes nothing
            for window in range(0, len(starts), WINDOW):
                part = starts[window:window + WINDOW]
                for s1, s2 in (pool.map(work, part) if pool else map(work, part)):
                    mom.s1 += s1
                    mom.s2 += s2
            mom.n += size
            if n_rollouts is None and _stop(mom, horizon, precision, z):
                break
    finally:
        if pool:
            pool.shutdown()
    return mom


def advise_position(pos: Position, *, actions: list[str] | None = None, policy=None, opponents=None,
                    horizon="round", n_rollouts=None, precision=None, max_rollouts=DEFAULT_MAX_ROLLOUTS, seed=1,
                    threads=1, level=0.95, **rule_options) -> AdviceResult:
    """Value every legal action (or ``actions``) of a position: roll-outs, or the rule set's exact
    answer where it has one. The reusable core of ``llamasim advise`` and the quit charts.
    ``rule_options``: the rule set's options (``RuleSet.config``), e.g. a dice layout."""
    rule_set = get_game(pos.game)
    advice = advice_of(rule_set)
    chosen = select_actions(pos, actions)
    names = rule_set.action_names
    cfg = rule_set.config(**rule_options)
    answer = advice.exact_answer(pos, [names[a] for a in chosen], cfg, horizon)
    if answer is not None:
        return exact_result(pos, [names[a] for a in chosen], answer, horizon, seed)
    mom = run_rollouts(pos, chosen, policy=policy, opponents=opponents, horizon=horizon, n_rollouts=n_rollouts,
                       precision=precision, max_rollouts=max_rollouts, seed=seed, threads=threads, cfg=cfg,
                       level=level)
    players = lineup(pos.game, pos.n, policy, opponents).players
    z = mom.z
    k = len(chosen)
    mean, cov, n = mom.mean(), mom.cov(), mom.n
    order = _order(mom, horizon)
    ranking = [names[chosen[i]] for i in order]
    best_i = order[0]
    metrics = METRICS_GAME if horizon == "game" else METRICS_ROUND
    raw = {"penalty_per_round": 0, "went_out_rate": 1, "win_rate": 2}
    exact = {names[chosen[i]]: _chance_free(pos, names[chosen[i]], horizon) and
             all(cov[raw[m] * k + i, raw[m] * k + i] == 0 for m in metrics) for i in range(k)}
    rows, values = [], {}
    for i in order:
        a = names[chosen[i]]
        for m in metrics:
            j = raw[m] * k + i
            scale = WIN_SCALE if m == "win_rate" else 1
            v = mean[j] / scale
            se = math.sqrt(cov[j, j] / n) / scale
            if exact[a]:
                lo = hi = v
            elif m == "penalty_per_round":
                lo, hi = v - z * se, v + z * se
            else:
                lo, hi = wilson(v, n, z)
                if cov[j, j] == 0 and v not in (0.0, 1.0):
                    lo = hi = v
            values[(a, m)] = (v, lo, hi)
            rows.append(dict(game=pos.game, action=a, metric=m, value=v, ci_low=lo, ci_high=hi, n=n, seed=seed,
                             best=i == best_i))
    for i in order:
        a = names[chosen[i]]
        for m in metrics:
            j, jb = raw[m] * k + i, raw[m] * k + best_i
            scale = WIN_SCALE if m == "win_rate" else 1
            d = (mean[j] - mean[jb]) / scale
            var = max(cov[j, j] + cov[jb, jb] - 2 * cov[j, jb], 0.0)
            se = math.sqrt(var / n) / scale
            lo, hi = d - z * se, d + z * se
            values[(a, m + "_vs_best")] = (d, lo, hi)
            rows.append(dict(game=pos.game, action=a, metric=m + "_vs_best", value=d, ci_low=lo, ci_high=hi, n=n,
                             seed=seed, best=i == best_i))
    table = pd.DataFrame(rows, columns=COLUMNS)
    return AdviceResult(pos.game, pos, table, ranking, "roll-outs", horizon, n, seed, [p.label for p in players],
                        advice_sentence(values, ranking, horizon, exact, advice.phrase),
                        strategy_values=[with_values(p.label, p.values()) for p in players],
                        exact_actions=[a for a in ranking if exact[a]])


def advise(game: str, *, position_file=None, actions=None, policy=None, opponents=None, horizon="round",
           rollouts=None, precision=None, max_rollouts=DEFAULT_MAX_ROLLOUTS, seed=1, threads=1, n_rollouts=None,
           players=None, **options) -> AdviceResult:
    """``llamasim advise`` as a library call: the position as keyword options (``hand``, ``top``,
    ``hand_sizes``, ``quit``, ``pile``, ``discard``, ``scores``; Kadabra ``ones``, ``tens``, ``magic``,
    ``stage``, ``show``; dice ``row``, ``llama_row``, ``rows``, ``alone``) or a TOML/JSON ``position_file``.
    Options the rule set declares (``RuleSet.options``: ``deck_file``, ``dice_layout``) set the rules.
    ``players``: the table's size, checked against the position (hand sizes or rows typed for another
    table are refused rather than answered for the table they give).
    Returns an ``AdviceResult`` (``table``, ``ranking``, ``best``, ``sentence``, ``plot()``).
    ``n_rollouts`` is the old name of ``rollouts`` (the command line's and the spec's)."""
    if n_rollouts is not None:
        import warnings

        warnings.warn("advise(n_rollouts=...) is now advise(rollouts=...)", DeprecationWarning, stacklevel=3)
        rollouts = n_rollouts if rollouts is None else rollouts
    rule_set = get_game(game)
    rule_options = {k: v for k, v in options.items() if k in rule_set.options and v is not None}
    position = {k: v for k, v in options.items() if k not in rule_set.options}
    if position_file is not None:
        given = {k: v for k, v in position.items() if v not in (None, False)}
        if given:
            raise UsageError(f"give the position either in --position or as options, not both ({', '.join(given)})")
        position = load_position_file(position_file)
    counts = advice_of(rule_set).deck_counts(rule_set.config(**rule_options)) if rule_options else None
    pos = make_position(game, deck_counts=counts, **position)
    if players is not None and players != pos.n:
        raise Problem("players", f"the position gives a table of {pos.n} players (you and {pos.n - 1} other "
                                 f"{'hand' if pos.hand_sizes is not None else 'row'}{'s' if pos.n != 2 else ''}), "
                                 f"not {players}: give one {'hand size' if pos.hand_sizes is not None else 'row'} "
                                 f"per other player")
    return advise_position(pos, actions=actions, policy=policy, opponents=opponents, horizon=horizon,
                           n_rollouts=rollouts, precision=precision, max_rollouts=max_rollouts, seed=seed,
                           threads=threads, **rule_options)
