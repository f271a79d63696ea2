"""LAMA Dice from a typed-in position: the position kernel (``run_positions``), ``simulate_position``
and ``simulate_solo`` (advisor roll-outs, checks against the exact solver), and the exact solo-phase
results of ``llamasim solve dice`` (``solve_position_table``, ``exact_solver``; the solver itself is
``solver.py``).
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
from numba import types

from llama_sim.core import rng as R
from llama_sim.core.scoring import accumulate, add_seat, largest_token
from llama_sim.core.errors import UsageError
from llama_sim.core.jit import Kernel
from llama_sim.core.registry import POLICIES_TYPE
from llama_sim.core.ruleset import Solved
from llama_sim.core.views import copy_into
from llama_sim.rulesets.dice.codes import (
    CODE_NAMES, END_OUT, LAYOUT_NAMES, LLAMA, MAX_PLAYERS, MIN_PLAYERS, N_CODES, N_DICE, OBS_LEN, ROW_SIZE,
    TOTAL_OF_CODE, layout_config,
)
from llama_sim.rulesets.dice.kernel import play_core, round_points
from llama_sim.rulesets.dice.tables import LAYOUTS, format_layout

RUN_POSITIONS_SIG = types.void(
    types.uint64, types.int64, types.int64, types.int64,
    types.int64[:, ::1], types.int64[::1], types.int64[::1], types.int64[::1], types.int64, types.int64[::1],
    POLICIES_TYPE, types.int64[::1], types.float64[:, ::1], types.int64[::1],
    types.int64[::1], types.int64[:, ::1], types.int64[::1],
)


def _run_positions(seed, first, count, n, rows0, llama0, discarded0, quit0, start, scores0,
                   policies, slot_of_entry, params, cfg, s1, s2, ends):
    """Play the position ``count`` times (samples first..first+count-1, each with its own policy
    and dice streams from (seed, sample)); one unit per seat, round metrics (penalty, went out,
    quit) accumulated as one block per sample; ``ends`` counts END_* reasons. The penalty is the net
    change of the seat's score, as in the game kernel: the round's points less the tokens returned
    after three llamas and, by the player who went out, after scoring."""
    rows = np.zeros((n, N_CODES), np.int64)
    llama_row = np.zeros(N_CODES, np.int64)
    discarded = np.zeros(N_CODES, np.int64)
    quit = np.zeros(n, np.int64)
    scores = np.zeros(n, np.int64)
    returned = np.zeros(n, np.int64)
    obs = np.zeros(OBS_LEN, np.int64)
    log = np.zeros((0, 3), np.int64)
    prng = np.zeros(2, np.uint64)
    dice_rng = np.zeros(2, np.uint64)
    entry_of_seat = np.arange(n)
    bad = np.zeros(3, np.int64)
    v = np.zeros(3 * n, np.int64)
    for b in range(first, first + count):
        R.seed_state(prng, seed, b, R.POLICY_STREAM)
        R.seed_state(dice_rng, seed, b, R.DICE_STREAM)
        copy_into(rows, rows0)
        copy_into(llama_row, llama0)
        copy_into(discarded, discarded0)
        copy_into(quit, quit0)
        copy_into(scores, scores0)
        returned[:] = 0
        end, last_actor, k = play_core(n, rows, llama_row, discarded, quit, start, scores, returned, cfg,
                                       policies, slot_of_entry, params, entry_of_seat, prng, dice_rng,
                                       obs, log, bad)
        if k < 0:
            raise ValueError("illegal action", bad[0], bad[1], bad[2])
        ends[end] += 1
        v[:] = 0
        for s in range(n):
            p = round_points(rows, s, end, last_actor) - returned[s]
            out = 1 if (end == END_OUT and s == last_actor) else 0
            if out:  # scored 0, so the score it returns a token from is the one it holds
                p -= largest_token(scores[s], False)
            add_seat(v, n, s, p, out, quit[s], 0, 0, 0, False)
        accumulate(v, s1, s2)


run_positions = Kernel(_run_positions, lambda: RUN_POSITIONS_SIG, "dice position kernel")


def check_position(rows, llama_row, discarded=None, quit=None, start=0, scores=None):
    """Validate a typed-in position; returns it as arrays. Raises UsageError on impossible input."""
    rows = np.array(rows, dtype=np.int64)
    if rows.ndim != 2 or rows.shape[1] != N_CODES or not MIN_PLAYERS <= rows.shape[0] <= MAX_PLAYERS:
        raise UsageError(f"rows must be {MIN_PLAYERS}..{MAX_PLAYERS} count vectors of length {N_CODES}")
    n = rows.shape[0]
    llama_row = np.array(llama_row, dtype=np.int64)
    discarded = np.zeros(N_CODES, np.int64) if discarded is None else np.array(discarded, dtype=np.int64)
    quit = np.zeros(n, np.int64) if quit is None else np.array(quit, dtype=np.int64)
    scores = np.zeros(n, np.int64) if scores is None else np.array(scores, dtype=np.int64)
    if llama_row.shape != (N_CODES,) or llama_row.min() < 0 or llama_row.max() > 1:
        raise UsageError("the llama row holds at most one card of each value")
    if llama_row.sum() == 0:
        raise UsageError("the llama row is empty: the round is over")
    if (rows < 0).any() or (discarded < 0).any() or (scores < 0).any():
        raise UsageError("counts and scores must be non-negative")
    if quit.shape != (n,) or scores.shape != (n,) or discarded.shape != (N_CODES,):
        raise UsageError("quit and scores need one entry per seat, discarded one per value")
    used = rows.sum(axis=0) + llama_row + discarded
    for c in range(N_CODES):
        if used[c] > TOTAL_OF_CODE[c]:
            raise UsageError(f"impossible position: {used[c]} cards of value {CODE_NAMES[c]} "
                             f"(the game has {TOTAL_OF_CODE[c]})")
    if (rows.sum(axis=1) == 0).any():
        raise UsageError("every row needs at least one card (an empty row has gone out)")
    if quit.min() < 0 or quit.max() > 1 or quit.sum() == n:
        raise UsageError("quit flags are 0/1 and someone must still be in the round")
    if not 0 <= start < n or quit[start]:
        raise UsageError(f"seat {start} cannot start: it is not a seat still in the round")
    return rows, llama_row, discarded, quit, int(start), scores


def simulate_position(rows, llama_row, players, n_rounds: int, seed: int = 1, layout=None, *,
                      discarded=None, quit=None, start: int = 0, scores=None, threads: int = 1):
    """Play a typed-in position ``n_rounds`` times with the kernel.

    ``players`` are ``registry.Player`` objects (one per seat; quit seats' strategies never act).
    Returns ``(tally, ends)``: a round-mode ``stats.Tally`` with one unit per seat (each sample is
    an independent block; use ``stats.estimate(tally, "penalty_per_round", seat)``) and the count
    of each END_* reason.
    """
    from llama_sim.core.registry import policy_tuple
    from llama_sim.core.stats import ROUND_METRICS, Tally

    rows, llama_row, discarded, quit, start, scores = check_position(rows, llama_row, discarded, quit, start, scores)
    n = rows.shape[0]
    if len(players) != n:
        raise UsageError(f"{n} rows but {len(players)} players")
    if n_rounds <= 0:
        raise UsageError("the number of rounds must be positive")
    cfg = layout_config(layout)
    policies, slots = policy_tuple(players)
    params = np.ascontiguousarray(np.array([p.params for p in players], dtype=np.float64))
    d = 3 * n
    threads = max(1, int(threads))
    cuts = np.linspace(0, n_rounds, threads + 1).astype(np.int64)
    results = []

    def work(k):
        s1 = np.zeros(d, np.int64)
        s2 = np.zeros((d, d), np.int64)
        ends = np.zeros(4, np.int64)
        run_positions(np.uint64(seed % 2**64), int(cuts[k]), int(cuts[k + 1] - cuts[k]), n, rows, llama_row,
                      discarded, quit, start, scores, policies, slots, params, cfg, s1, s2, ends)
        return s1, s2, ends

    if threads == 1:
        results = [work(0)]
    else:
        from concurrent.futures import ThreadPoolExecutor

        run_positions.get()
        with ThreadPoolExecutor(threads) as pool:
            results = list(pool.map(work, range(threads)))
    s1 = sum(r[0] for r in results)
    s2 = sum(r[1] for r in results)
    ends = sum(r[2] for r in results)
    return Tally(ROUND_METRICS, n, np.ones(n, np.int64), n_rounds, s1, s2), ends


def simulate_solo(row, llama_row, strategy: str = "solo_optimal", n_rounds: int = 100_000, seed: int = 1,
                  layout=None, threads: int = 1, score: int = 0):
    """Play a solo position (everybody else has quit) ``n_rounds`` times with the kernel.

    ``row``/``llama_row``: card text ("2 5 L") or count vectors; ``strategy``: a spec such as
    ``"solo_optimal"``; ``score``: the solo player's score. Returns ``(estimate, ends)``: the
    ``stats.Estimate`` of the round's penalty for the solo player, token returns included
    (comparable with ``llamasim solve dice --score``), and the count of each END_*."""
    from llama_sim.core.registry import parse_spec
    from llama_sim.rulesets.dice.solver import parse_cards
    from llama_sim.core.stats import estimate

    row = parse_cards(row) if isinstance(row, str) else np.asarray(row, np.int64)
    lrow = parse_cards(llama_row) if isinstance(llama_row, str) else np.asarray(llama_row, np.int64)
    other = np.zeros(N_CODES, np.int64)
    other[int(np.argmax(TOTAL_OF_CODE - row - lrow))] = 1  # a quit opponent's card, never played
    players = [parse_spec("dice", strategy), parse_spec("dice", "always_quit")]
    tally, ends = simulate_position(np.array([row, other]), lrow, players, n_rounds, seed=seed, layout=layout,
                                    quit=[0, 1], scores=[score, 0], threads=threads)
    return estimate(tally, "penalty_per_round", 0), ends


# --------------------------------------------------------------------------------------------
# The solo phase, solved exactly (``llamasim solve dice``; the solver is ``llama_sim.rulesets.dice.solver``)
# --------------------------------------------------------------------------------------------


def parse_solo_position(row: str | None, llama_row: str) -> tuple[np.ndarray | None, np.ndarray]:
    """Parse and check ``--row`` / ``--llama-row`` card lists; UsageError on impossible input.

    A row starts with 6 cards and grows only by taking llama-row cards, so it holds at most
    6 + (7 - cards left in the llama row) cards; no value can exceed its 6 (llamas: 7) copies."""
    from llama_sim.rulesets.dice.solver import parse_cards

    try:
        lrow = parse_cards(llama_row)
        own = None if row is None else parse_cards(row)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if lrow.max() > 1:
        raise UsageError(f"the llama row holds at most one card of each value, got '{llama_row}'")
    if lrow.sum() == 0:
        raise UsageError("the llama row is empty: the round is already over")
    if own is not None:
        if own.sum() == 0:
            raise UsageError("the row is empty: that player has gone out, there is nothing to decide")
        for c in range(N_CODES):
            if own[c] + lrow[c] > TOTAL_OF_CODE[c]:
                raise UsageError(f"impossible position: {own[c] + lrow[c]} cards of value {CODE_NAMES[c]} in the row "
                                 f"and the llama row (the game has {TOTAL_OF_CODE[c]})")
        most = ROW_SIZE + N_CODES - int(lrow.sum())
        if own.sum() > most:
            raise UsageError(f"impossible position: a row holds at most {most} cards when {int(lrow.sum())} "
                             f"are left in the llama row (6 dealt + 1 per card taken), got {int(own.sum())}")
    return own, lrow


def _partial_discards(row_text: str, lrow: np.ndarray, layout: str, score: int = 0) -> str:
    """The rolls after which the optimum does NOT discard every card it could: "roll: discard"
    items (e.g. "1 3 L: 3" keeps the llama), '; '-separated, "-" if none. With ``best`` this
    column completes the policy: after every other roll, discard all matching cards."""
    from llama_sim.rulesets.dice.tables import rolled_count_table
    from llama_sim.rulesets.dice.solver import best_discard, format_cards, parse_cards

    row = parse_cards(row_text)
    items = []
    tab = rolled_count_table(layout)
    by_allowance: dict[tuple, np.ndarray] = {}  # the best discard depends on the roll only through it
    for faces, rolled in zip(tab.faces, tab.rolled):
        if rolled[LLAMA] == N_DICE:
            continue
        allow = np.minimum(rolled, row)
        if allow.sum() == 0:
            continue
        key = tuple(allow.tolist())
        if key not in by_allowance:
            by_allowance[key] = best_discard(row, lrow, layout, faces, score=score)
        d = by_allowance[key]
        if not np.array_equal(d, allow):
            items.append(f"{format_cards(rolled)}: {format_cards(d)}")
    return "; ".join(items) or "-"


def check_solo_score(score) -> int:
    """The solo player's score for ``solve``: a whole number 0..39 (a game is over once a score
    reaches 40); UsageError otherwise."""
    from llama_sim.core.position import LAST_SCORE, whole

    try:
        value = whole(score)
    except (TypeError, ValueError, OverflowError):
        raise UsageError(f"--score must be a whole number from 0 to {LAST_SCORE}, got {score!r}") from None
    if not 0 <= value <= LAST_SCORE:
        raise UsageError(f"--score must be from 0 to {LAST_SCORE} (a game is over once a score reaches 40), "
                         f"got {value}")
    return value


def exact_solver(row: str | None, llama_row: str, table: bool, dice_layout: str | None = None,
                 score: int = 0) -> Solved:
    """``llamasim solve``: ``solve_position_table``'s table and text, with the plot's title and, for the
    table of every row, the exact value of the deal."""
    if row is None and not table:
        raise UsageError('give --row (e.g. --row "2 5 L"), or --table for every row')
    df, text = solve_position_table(row, llama_row, dice_layout, table, check_solo_score(score))
    layout, lrow = str(df["dice_layout"].iloc[0]), df["llama_row"].iloc[0]
    return Solved(df, text, {"dice_layout": layout}, subject="LAMA Dice solo phase",
                  title=f"LAMA Dice solo phase, dice {layout}, llama row {lrow}, score {df['score'].iloc[0]}",
                  dealt=dealt_solo_value(df))


DEALT_CARDS = 6
DECK_COUNTS = (5, 5, 5, 5, 5, 5, 6)  # the 36 cards a row is dealt from: five each of 1..6, six llamas
FULL_LLAMA_ROW = "1 2 3 4 5 6 L"


def dealt_row_weights() -> dict[tuple[int, ...], Fraction]:
    """Every six-card row a player can be dealt (count vector over 1..6, llama) with its exact
    probability: the multivariate hypergeometric prod C(K_c, r_c) / C(36, 6)."""
    total = math.comb(sum(DECK_COUNTS), DEALT_CARDS)
    out = {}
    for counts in itertools.product(*(range(min(k, DEALT_CARDS) + 1) for k in DECK_COUNTS)):
        if sum(counts) == DEALT_CARDS:
            out[counts] = Fraction(math.prod(math.comb(k, r) for k, r in zip(DECK_COUNTS, counts)), total)
    return out


def dealt_solo_value(policy) -> tuple[float, float] | None:
    """(optimal value, quit-at-once value) of a freshly dealt row in the solo phase, averaged exactly
    over the deal; ``policy``: a ``solve`` table. None unless it holds every dealt row under the full
    llama row."""
    from llama_sim.rulesets.dice.solver import parse_cards

    weights = dealt_row_weights()
    if (len(policy) <= 1 or policy.llama_row.iloc[0] != FULL_LLAMA_ROW
            or (policy.row.str.split().str.len() == DEALT_CARDS).sum() != len(weights)):
        return None
    by_row = {tuple(int(x) for x in parse_cards(r)): (v, q) for r, v, q in
              zip(policy.row, policy.value, policy.quit_value)}
    value = quit_value = 0.0
    for counts, w in weights.items():
        v, q = by_row[counts]
        value += float(w) * v
        quit_value += float(w) * q
    return value, quit_value


def solve_position_table(row: str | None, llama_row: str, layout: str | None, table: bool, score: int = 0):
    """The ``solve`` command's result: (DataFrame, readable text).

    Without ``table``: one line (dice_layout, llama_row, score, row, quit_value, roll_value, best,
    value) for the given row at the solo player's ``score``. With ``table``: the optimal policy at
    ``score`` for every sub-row of ``row`` (every row of up to 6 cards when ``row`` is None), same
    columns plus ``keeps``: the rolls after which the optimal discard leaves a matching card in the
    row (see ``_partial_discards``)."""
    import pandas as pd

    from llama_sim.rulesets.dice.solver import (
        format_cards, policy_table, score_levels, solo_table, solve_solo, token_returned,
    )

    cfg = layout_config(layout)
    name = LAYOUT_NAMES[int(cfg[0])]
    own, lrow = parse_solo_position(row, llama_row)
    score = check_solo_score(score)
    lr_text = format_cards(lrow)
    head = (f"LAMA Dice, solo phase (everybody else has quit), dice {name} "
            f"({format_layout(LAYOUTS[name])}), llama row {lr_text}, score {score}")
    token = token_returned(score)
    if token:
        returns = (f"three llamas return the largest token held (a {token} at score {score}; the score goes "
                   f"{' -> '.join(map(str, score_levels(score)))} with each) and going out returns the largest "
                   f"token then held")
    else:
        returns = "at score 0 no token can be returned, so three llamas change nothing (solved exactly)"
    note = (f"Values are the expected rest of the round under optimal play: the points of the row at its end "
            f"less the tokens returned; {returns}.")
    if table:
        df = policy_table(own, lrow, name, score=score) if own is not None else solo_table(lrow, name, score=score)
        df["keeps"] = [_partial_discards(r, lrow, name, score) for r in df["row"]]
        df.insert(0, "score", score)
        df.insert(0, "llama_row", lr_text)
        df.insert(0, "dice_layout", name)
        scope = f"every sub-row of {format_cards(own)}" if own is not None else "every row of up to 6 cards"
        shown = df.drop(columns=["dice_layout", "llama_row", "score", "keeps"]).assign(
            partial_discards=[0 if k == "-" else k.count(";") + 1 for k in df["keeps"]])
        text = (f"{head}\nOptimal policy for {scope} ({len(df)} rows). After a roll the optimum discards every "
                f"matching card it may, except after the partial_discards rolls listed in column keeps "
                f"(--format csv/json or --out)\n{shown.to_string(index=False)}\n{note}")
        return df, text
    v = solve_solo(own, lrow, name, score=score)
    df = pd.DataFrame([{"dice_layout": name, "llama_row": lr_text, "score": score, "row": format_cards(own),
                        "quit_value": float(v.quit_value), "roll_value": float(v.roll_value),
                        "best": v.best_action, "value": float(v.value)}])
    text = (f"{head}\nrow {format_cards(own)}\n"
            f"  quit now:                        {float(v.quit_value):.4f}\n"
            f"  roll on (then play optimally):   {float(v.roll_value):.4f}\n"
            f"  optimal choice:                  {v.best_action}\n{note}")
    return df, text
