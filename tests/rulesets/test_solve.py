"""Tests for llama_sim.rulesets.dice.tables, .solver (the exact solo-phase solver) and .solver_numba."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from llama_sim.rulesets.dice import tables as dt
from llama_sim.rulesets.dice import solver as sv
from llama_sim.rulesets.dice import solver_numba as svn

FULL = np.ones(7, dtype=np.int64)
EMPTY = np.zeros(7, dtype=np.int64)
SOME_LAYOUTS = ["12-34-56", "13-25-46", "16-24-35", "14-26-35"]


# ============================================================================ dice_tables


def _perfect_matchings(items):
    """Independent count: partitions of ``items`` into unordered pairs."""
    if not items:
        return [[]]
    first, rest = items[0], items[1:]
    out = []
    for i, partner in enumerate(rest):
        for m in _perfect_matchings(rest[:i] + rest[i + 1 :]):
            out.append([(first, partner)] + m)
    return out


def test_there_are_15_layouts_matching_the_pairings_of_six_numbers():
    matchings = _perfect_matchings([1, 2, 3, 4, 5, 6])
    assert len(matchings) == 15
    assert len(dt.LAYOUTS) == 15
    names = {"-".join(f"{a}{b}" for a, b in sorted(m)) for m in matchings}
    assert set(dt.LAYOUTS) == names
    assert dt.layout_names() == sorted(names)
    assert set(dt.all_layouts()) == names


def test_the_declared_layouts_are_exactly_those_a_search_over_the_faces_finds():
    """The rule set declares the 15 names (so that the option's help loads nothing) and tables.py builds
    the layouts from them: a brute-force search over every trio of dice must find the same, in the
    same order (a layout's id is its index)."""
    from llama_sim.rulesets.dice import LAYOUT_NAMES

    found = dt.enumerate_layouts()
    assert tuple(found) == LAYOUT_NAMES == tuple(dt.LAYOUTS)
    assert all(np.array_equal(found[n], dt.LAYOUTS[n]) for n in LAYOUT_NAMES)
    with pytest.raises(ValueError):
        dt.layout_of_name("12-13-56")


def test_default_layout():
    assert dt.DEFAULT_LAYOUT_NAME == "12-34-56"
    expected = np.array([[0, 1, 2, 3, 6, 6], [0, 1, 4, 5, 6, 6], [2, 3, 4, 5, 6, 6]])
    assert np.array_equal(dt.LAYOUTS[dt.DEFAULT_LAYOUT_NAME], expected)
    assert np.array_equal(dt.default_layout(), expected)
    assert np.array_equal(dt.parse_layout("1234LL/1256LL/3456LL"), expected)
    assert np.array_equal(dt.parse_layout("default"), expected)
    assert dt.format_layout(expected) == "1234LL/1256LL/3456LL"


@pytest.mark.parametrize("name", sorted(dt.LAYOUTS))
def test_every_layout_is_valid(name):
    arr = dt.LAYOUTS[name]
    assert arr.shape == (3, 6) and arr.dtype == np.int64
    assert np.array_equal(dt.validate_layout(arr), arr)  # already canonical
    numbers = [set(d[d != 6].tolist()) for d in arr]
    for die in arr:
        assert np.count_nonzero(die == 6) == 2
        assert len(set(die[die != 6].tolist())) == 4
    for i, j in itertools.combinations(range(3), 2):
        assert len(numbers[i] & numbers[j]) == 2
    faces = dt.number_face_counts(arr)
    assert faces.tolist() == [2, 2, 2, 2, 2, 2, 6]  # each number on exactly two faces overall
    assert dt.layout_name(arr) == name
    assert np.array_equal(dt.parse_layout(name.upper()), arr)
    assert np.array_equal(dt.parse_layout(dt.format_layout(arr)), arr)
    assert dt.p_three_llamas(arr) == Fraction(1, 27)
    assert dt.p_three_llamas(name) == Fraction(1, 27)


def test_layouts_are_pairwise_different():
    arrs = list(dt.LAYOUTS.values())
    for a, b in itertools.combinations(arrs, 2):
        assert not np.array_equal(a, b)


def test_parse_canonicalises_order_of_dice_and_faces_case_and_spaces():
    a = dt.parse_layout("1234LL/1256LL/3456LL")
    for spec in ["L65L21/4L3L21/6543LL", " 3456ll / 1234LL/ 1 2 5 6 l l ", "LL2143/3456LL/56L12L"]:
        assert np.array_equal(dt.parse_layout(spec), a)
        assert dt.layout_name(spec) == "12-34-56"
    b = dt.parse_layout("1256LL/1345LL/2346LL")  # shares 15, 26, 34
    assert not np.array_equal(a, b)
    assert dt.layout_name(b) == "15-26-34"
    assert np.array_equal(dt.parse_layout("15-26-34"), b)


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("", "empty layout"),
        ("nonsense", "unknown layout"),
        ("12-34-57", "unknown layout"),
        ("1234LL/1256LL", "2 dice"),
        ("1234LL/1256LL/3456LL/123456", "4 dice"),
        ("1234L/1256LL/3456LL", "5 faces"),
        ("1234LLL/1256LL/3456LL", "7 faces"),
        ("1234LX/1256LL/3456LL", "invalid face 'x'"),
        ("1237LL/1256LL/3456LL", "invalid face '7'"),
        ("12345L/1256LL/3456LL", "1 llama faces"),
        ("1123LL/1456LL/2356LL", "same number on two faces"),
        ("1234LL/1234LL/1234LL", "duplicated"),
        ("1234LL/1235LL/3456LL", "number 3 is on 3 dice"),
        ("1234LL/1256LL/1256LL", "duplicated"),
    ],
)
def test_parse_layout_errors_are_clear_one_liners(text, fragment):
    with pytest.raises(ValueError) as info:
        dt.parse_layout(text)
    msg = str(info.value)
    assert fragment in msg
    assert "\n" not in msg


def test_validate_layout_rejects_bad_arrays():
    with pytest.raises(ValueError, match="exactly 3 dice"):
        dt.validate_layout(np.zeros((2, 6), dtype=np.int64))
    with pytest.raises(ValueError, match="face codes must be 0..6"):
        dt.validate_layout(np.full((3, 6), 7, dtype=np.int64))
    bad = dt.default_layout().copy()
    bad[0, 0] = 4  # die A becomes 2 3 4 5 L L: number 1 on one die, number 5 on three
    with pytest.raises(ValueError, match="number 1 is on 1 dice"):
        dt.validate_layout(bad)


@pytest.mark.parametrize("name", SOME_LAYOUTS)
def test_outcome_tables(name):
    arr = dt.LAYOUTS[name]
    t = dt.outcome_table(arr)
    assert t.total == 216 and int(t.counts.sum()) == 216
    assert len(t) == 125  # 5 distinct faces per die
    assert sum(t.fractions()) == 1
    # each die: each number face 1/6, llama 1/3
    for d in range(3):
        for code in range(7):
            p = sum(f for f, row in zip(t.fractions(), t.faces) if row[d] == code)
            on_die = int(np.count_nonzero(arr[d] == code))
            assert p == Fraction(on_die, 6)
    assert np.array_equal(t.rolled.sum(axis=1), np.full(len(t), 3))
    assert t.faces[t.lll_index].tolist() == [6, 6, 6]
    assert Fraction(int(t.counts[t.lll_index]), 216) == Fraction(1, 27)
    g = dt.rolled_count_table(arr)
    assert int(g.counts.sum()) == 216
    assert len({tuple(r) for r in g.rolled.tolist()}) == len(g)
    # grouping by values agrees with the per-die table
    agg: dict[tuple, int] = {}
    for r, c in zip(t.rolled.tolist(), t.counts.tolist()):
        agg[tuple(r)] = agg.get(tuple(r), 0) + c
    assert agg == {tuple(r): c for r, c in zip(g.rolled.tolist(), g.counts.tolist())}


# ============================================================================ card helpers


def test_row_penalty_counts_each_code_once():
    assert sv.row_penalty(sv.parse_cards("4 4 L")) == 14
    assert sv.row_penalty(sv.parse_cards("1 5 5 6")) == 12  # the rulebook's Rosa example
    assert sv.row_penalty(EMPTY) == 0
    assert sv.row_penalty(FULL) == 31


def test_parse_and_format_cards():
    assert sv.parse_cards("2 5 L").tolist() == [0, 1, 0, 0, 1, 0, 1]
    assert sv.parse_cards("2,5,l").tolist() == [0, 1, 0, 0, 1, 0, 1]
    assert sv.parse_cards(" L, 2 ,llama 6").tolist() == [0, 1, 0, 0, 0, 1, 2]
    assert sv.parse_cards("").tolist() == [0] * 7
    assert sv.format_cards(sv.parse_cards("L 5 2 5")) == "2 5 5 L"
    assert sv.format_cards(EMPTY) == ""
    for text in ["1 1 3 L L", "6", "L"]:
        assert sv.format_cards(sv.parse_cards(text)) == text


@pytest.mark.parametrize("text", ["7", "0", "2 x", "25", "1;2", "-1"])
def test_parse_cards_errors(text):
    with pytest.raises(ValueError) as info:
        sv.parse_cards(text)
    assert "invalid card" in str(info.value) and "\n" not in str(info.value)


def test_bad_state_arguments_rejected():
    with pytest.raises(ValueError, match="length 7"):
        sv.solve_solo([1, 2, 3], FULL)
    with pytest.raises(ValueError, match="non-negative"):
        sv.solve_solo([1, 0, 0, 0, 0, 0, -1], FULL)
    with pytest.raises(ValueError, match="at most one card"):
        sv.solve_solo("1", "2 2")
    with pytest.raises(ValueError, match="empty"):
        sv.solve_solo("", FULL)


# ============================================================================ brute force


def _pen(cards) -> int:
    return sum(10 if c == 6 else c + 1 for c in set(cards))


def _remove(cards: tuple, taken: list) -> tuple | None:
    rest = list(cards)
    for c in taken:
        if c not in rest:
            return None
        rest.remove(c)
    return tuple(rest)


def brute_force(start_cards: tuple, llama_cards: tuple, layout: np.ndarray, tol=1e-13):
    """Naive value iteration over sorted card tuples, all 216 ordered rolls, the three-llama
    self-loop iterated to convergence; discards enumerated as subsets of the dice."""
    start_cards = tuple(sorted(start_cards))
    states = set()
    for k in range(len(start_cards) + 1):
        for idx in itertools.combinations(range(len(start_cards)), k):
            states.add(tuple(start_cards[i] for i in idx))
    rolls = [tuple(int(layout[d, f]) for d, f in enumerate(fs)) for fs in itertools.product(range(6), repeat=3)]
    options: dict[tuple, list] = {}
    for s in states:
        if not s:
            continue
        per_roll = []
        for roll in rolls:
            if roll == (6, 6, 6):
                per_roll.append(("stay",))
                continue
            nexts = set()
            for k in (1, 2, 3):
                for dice in itertools.combinations(range(3), k):
                    rest = _remove(s, [roll[d] for d in dice])
                    if rest is not None:
                        nexts.add(rest)
            if nexts:
                per_roll.append(("next", sorted(nexts)))
            else:
                per_roll.append(("drama", _pen(s + tuple(llama_cards))))
        options[s] = per_roll
    V = {s: float(_pen(s)) for s in states}
    V[()] = 0.0
    for _ in range(10_000):
        new = {(): 0.0}
        for s, per_roll in options.items():
            total = 0.0
            for opt in per_roll:
                if opt[0] == "stay":
                    total += V[s]
                elif opt[0] == "drama":
                    total += opt[1]
                else:
                    total += min(V[n] for n in opt[1])
            new[s] = min(float(_pen(s)), total / 216)
        delta = max(abs(new[s] - V[s]) for s in states)
        V = new
        if delta < tol:
            return V, options, rolls
    raise AssertionError("value iteration did not converge")


def _counts(cards) -> np.ndarray:
    return np.bincount(np.asarray(cards, dtype=np.int64), minlength=7).astype(np.int64)


def _random_rows(rng: random.Random, n: int, max_cards: int):
    for _ in range(n):
        k = rng.randint(1, max_cards)
        yield tuple(sorted(rng.choice(range(7)) for _ in range(k)))


@pytest.mark.parametrize("layout_name", SOME_LAYOUTS)
def test_dp_agrees_with_brute_force_value_iteration(layout_name):
    rng = random.Random(hash(layout_name) % 1000)
    layout = dt.LAYOUTS[layout_name]
    llama_rows = [tuple(range(7)), (), (6,), (0, 3, 5), (1, 2, 4, 6)]
    checked = 0
    for start in list(_random_rows(rng, 10, 4)) + [(6, 6, 6), (0, 0), (5, 6), (0, 1, 2, 3)]:
        lr = rng.choice(llama_rows)
        V, _, _ = brute_force(start, lr, layout)
        for s, v in V.items():
            if not s:
                continue
            got = sv.solve_solo(_counts(s), _counts(lr), layout)
            assert got.value == pytest.approx(v, abs=1e-9), (s, lr)
            assert sv.solo_value_for(_counts(s), _counts(lr), layout) == pytest.approx(v, abs=1e-9)
            assert got.quit_value == _pen(s)
            checked += 1
    assert checked > 40


@pytest.mark.parametrize("layout_name", ["12-34-56", "15-26-34"])
def test_after_three_llamas_nothing_happens_and_the_player_may_then_quit(layout_name):
    """Three llamas leave the row unchanged and the turn ends; at the next turn the player may
    quit. So "roll on (then play optimally)" is one roll followed by the optimum, which after
    three llamas is V(row) = min(quit, roll), not another roll: when quitting is optimal the roll
    value is p(LLL) quit + the rest, not the rest / (1 - p(LLL))."""
    layout = dt.LAYOUTS[layout_name]
    checked_quit = 0
    for start, lr in [((0, 2, 6), tuple(range(7))), ((0, 0, 4), ()), ((1, 3, 5, 6), (6,))]:
        V, options, _ = brute_force(start, lr, layout)
        for s, per_roll in options.items():
            total = 0.0
            for opt in per_roll:
                if opt[0] == "stay":
                    total += V[s]
                elif opt[0] == "drama":
                    total += opt[1]
                else:
                    total += min(V[n] for n in opt[1])
            got = sv.solve_solo(_counts(s), _counts(lr), layout)
            assert got.roll_value == pytest.approx(total / 216, abs=1e-9), (s, lr)
            plan = svn.solo_plan(_counts(start), _counts(lr), layout)
            assert plan.roll_values[0, svn.state_index_nb(_counts(s), plan.strides)] == pytest.approx(total / 216, abs=1e-9)
            checked_quit += got.best_action == "quit"
    assert checked_quit > 3
    # a lone 1 with the full llama row: quit (1); rolling once and then quitting after three llamas
    # is worth 1/27 * 1 + 71/108 * 31, not 71/104 * 31 (= rolling again after three llamas)
    one = sv.solve_solo("1", FULL, layout_name, exact=True)
    assert one.best_action == "quit" and one.roll_value == Fraction(1, 27) + Fraction(71 * 31, 108)


@pytest.mark.parametrize("layout_name", ["12-34-56", "15-26-34"])
def test_best_discard_is_optimal_against_brute_force(layout_name):
    layout = dt.LAYOUTS[layout_name]
    rng = random.Random(7)
    n_discards = 0
    for start in [(0, 0, 3, 6, 6), (2, 2, 2, 5), (1, 4, 6, 6), (0, 1, 2, 3, 4, 5)]:
        lr = tuple(range(7)) if rng.random() < 0.5 else (3,)
        V, options, rolls = brute_force(start, lr, layout)
        for s, per_roll in options.items():
            for roll, opt in zip(rolls, per_roll):
                d = sv.best_discard(_counts(s), _counts(lr), layout, roll)
                if opt[0] != "next":
                    assert not d.any()
                    continue
                rest = _remove(s, [c for c in range(7) for _ in range(int(d[c]))])
                assert rest is not None and rest in opt[1], (s, roll, d)  # legal
                assert V[rest] == pytest.approx(min(V[n] for n in opt[1]), abs=1e-9)
                n_discards += 1
    assert n_discards > 500


# ============================================================================ with the score: token returns


def _token(score: int) -> int:
    """RULES.md: the token returned is the largest held; the dice game has 1s and 10s only."""
    return 10 if score >= 10 else 1 if score >= 1 else 0


def _levels(score: int) -> list[int]:
    out = [score]
    while out[-1] > 0:
        out.append(out[-1] - _token(out[-1]))
    return out


def _next_rows(cards: tuple, roll: tuple) -> set:
    """Rows left by every legal discard after ``roll``: each chosen die discards one card of its value."""
    out = set()
    for k in (1, 2, 3):
        for dice in itertools.combinations(range(3), k):
            rest = _remove(cards, [roll[d] for d in dice])
            if rest is not None:
                out.add(rest)
    return out


def scored_fractions(llama_cards: tuple, layout: np.ndarray):
    """Independent exact recursion over (sorted card tuple, score) with all 216 ordered rolls, in
    Fractions. Going out scores 0 and returns _token(score); three llamas at score > 0 return
    _token(score) and the player decides again at the lower score; at score 0 they change nothing,
    so V = min(Q, (loops V + rest) / 216), whose solution is min(Q, rest / (216 - loops)). Returns
    (V, R): R(cards, score) = one roll, then V."""
    rolls = [tuple(int(layout[d, f]) for d, f in enumerate(fs)) for fs in itertools.product(range(6), repeat=3)]
    memo: dict = {}

    def parts(cards, score):
        rest, loops = Fraction(0), 0
        for roll in rolls:
            if roll == (6, 6, 6):
                t = _token(score)
                if t:
                    rest += V(cards, score - t) - t
                else:
                    loops += 1
                continue
            nexts = _next_rows(cards, roll)
            rest += min(V(n, score) for n in nexts) if nexts else _pen(cards + tuple(llama_cards))
        return rest, loops

    def V(cards, score):
        cards = tuple(sorted(cards))
        if not cards:
            return Fraction(-_token(score))
        key = (cards, score)
        if key not in memo:
            rest, loops = parts(cards, score)
            memo[key] = min(Fraction(_pen(cards)), rest / (216 - loops))
        return memo[key]

    def R(cards, score):
        cards = tuple(sorted(cards))
        rest, loops = parts(cards, score)
        return (rest + loops * V(cards, score)) / 216

    return V, R


def scored_value_iteration(start_cards: tuple, llama_cards: tuple, layout: np.ndarray, score: int,
                           optional_return: bool = False, tol=1e-13):
    """Naive value iteration over every (sub-row, score level) pair, floats. ``optional_return``: after
    three llamas the player may also keep the token (the rulebook's "may"); the solver always returns."""
    start_cards = tuple(sorted(start_cards))
    rows = {tuple(start_cards[i] for i in idx) for k in range(len(start_cards) + 1)
            for idx in itertools.combinations(range(len(start_cards)), k)}
    levels = _levels(score)
    rolls = [tuple(int(layout[d, f]) for d, f in enumerate(fs)) for fs in itertools.product(range(6), repeat=3)]
    options = {r: [sorted(_next_rows(r, roll)) for roll in rolls] for r in rows if r}
    V = {(r, sc): (float(_pen(r)) if r else -_token(sc)) for r in rows for sc in levels}
    for _ in range(10_000):
        new = dict(V)
        for r, per_roll in options.items():
            for sc in levels:
                t = _token(sc)
                total = 0.0
                for roll, nexts in zip(rolls, per_roll):
                    if roll == (6, 6, 6):
                        returned = V[(r, sc - t)] - t
                        total += min(returned, V[(r, sc)]) if optional_return else returned
                    elif nexts:
                        total += min(V[(n, sc)] for n in nexts)
                    else:
                        total += _pen(r + tuple(llama_cards))
                new[(r, sc)] = min(float(_pen(r)), total / 216)
        delta = max(abs(new[k] - V[k]) for k in V)
        V = new
        if delta < tol:
            return V
    raise AssertionError("value iteration did not converge")


def test_lone_llama_pair_at_score_10_counts_the_returned_tokens():
    """Row L L alone, full llama row, score 10: quitting costs 10; rolling on is worth 25508/3159
    (8.0747...) once the 10 returned after three llamas or on going out counts. Ignoring the tokens
    (score 0: nothing can be returned) rolling is worth 13.79 and the player quits."""
    layout = dt.LAYOUTS["12-34-56"]
    V, R = scored_fractions(tuple(range(7)), layout)
    at10 = sv.solve_solo("L L", FULL, exact=True, score=10)
    assert at10.roll_value == R((6, 6), 10) == Fraction(25508, 3159)
    assert float(at10.roll_value) == pytest.approx(8.0747, abs=1e-4)
    assert at10.quit_value == 10 and at10.best_action == "roll" and at10.value == V((6, 6), 10)
    at0 = sv.solve_solo("L L", FULL, exact=True, score=0)
    assert at0.roll_value == R((6, 6), 0) and float(at0.roll_value) == pytest.approx(13.7949, abs=1e-4)
    assert at0.best_action == "quit"
    assert sv.solve_solo("L L", FULL, score=10).roll_value == pytest.approx(25508 / 3159, abs=1e-12)


@pytest.mark.parametrize("layout_name", ["12-34-56", "15-26-34"])
def test_scored_values_agree_with_an_independent_fraction_recursion(layout_name):
    layout = dt.LAYOUTS[layout_name]
    rng = random.Random(11)
    checked = 0
    for start, lr in [((0, 6), tuple(range(7))), ((1, 4, 6), (2, 3, 6)), ((2, 2, 5), ()), ((6, 6, 6), (6,)),
                      ((0, 3, 5, 6), tuple(range(7)))]:
        V, R = scored_fractions(lr, layout)
        for score in sorted({0, 1, 2, 9, 10, 11, 20, 39, rng.randrange(40)}):
            for k in range(1, len(start) + 1):
                for sub in set(itertools.combinations(start, k)):
                    got = sv.solve_solo(_counts(sub), _counts(lr), layout_name, exact=True, score=score)
                    assert got.value == V(sub, score), (sub, lr, score)
                    assert got.roll_value == R(sub, score), (sub, lr, score)
                    assert got.quit_value == _pen(sub)
                    assert got.best_action == ("roll" if got.roll_value < got.quit_value else "quit")
                    checked += 1
    assert checked > 200


@pytest.mark.parametrize("score", [1, 10, 23])
def test_scored_values_agree_with_value_iteration_and_returning_is_optimal(score):
    """Floats against naive value iteration over (row, score); and letting the player keep the token
    after three llamas (the rulebook's "may") changes no value: always returning is optimal."""
    layout = dt.LAYOUTS["13-25-46"]
    for start, lr in [((0, 4, 6, 6), tuple(range(7))), ((1, 1, 5), (0, 6))]:
        always = scored_value_iteration(start, lr, layout, score)
        optional = scored_value_iteration(start, lr, layout, score, optional_return=True)
        for (row, sc), v in always.items():
            assert optional[(row, sc)] == pytest.approx(v, abs=1e-9)
            if row:
                assert sv.solo_value_for(_counts(row), _counts(lr), "13-25-46", score=sc) == pytest.approx(v, abs=1e-9)
            else:
                assert v == -_token(sc) == sv.solo_value_for(_counts(row), _counts(lr), "13-25-46", score=sc)


def test_score_levels_and_bad_scores():
    assert sv.score_levels(0) == [0]
    assert sv.score_levels(10) == [10, 0]
    assert sv.score_levels(39) == [39, 29, 19, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]
    assert sv.score_levels(23) == _levels(23) == svn.score_levels_nb(23).tolist()
    assert [sv.token_returned(s) for s in (0, 1, 9, 10, 39)] == [0, 1, 1, 10, 10]
    for bad in (-1, 40, 1.5, True, "3"):
        with pytest.raises(ValueError, match="score"):
            sv.solve_solo("L", FULL, score=bad)


def test_discards_depend_on_the_score():
    """Holding 1 1 L (full llama row) after rolling 1, 1, 3: at score 0 the optimum discards one 1
    (1 L is worth 7.16, L alone 9.54), at score 10 both (L is worth 2.50, 1 L 4.12: a lone llama goes
    out on any llama face, and going out returns the 10). Both choices are the best by the independent
    recursion, which tells the two rows apart at each score."""
    V, _ = scored_fractions(tuple(range(7)), dt.LAYOUTS["12-34-56"])
    assert V((0, 6), 0) < V((6,), 0) and V((6,), 10) < V((0, 6), 10)
    assert sv.best_discard("1 1 L", FULL, "12-34-56", [0, 0, 2]).tolist() == [1, 0, 0, 0, 0, 0, 0]
    assert sv.best_discard("1 1 L", FULL, "12-34-56", [0, 0, 2], score=10).tolist() == [2, 0, 0, 0, 0, 0, 0]


# ============================================================================ hand-derived


@pytest.mark.parametrize("layout_name", sorted(dt.LAYOUTS))
def test_single_number_card_exact(layout_name):
    # Every number is on one face of each of two dice: P(v shown) = 1 - (5/6)^2 = 11/36.
    # Three llamas (1/27) never shows v and loops.  P(no v, not LLL) = 1 - 11/36 - 1/27 = 71/108
    # -> rolling on: R = (71/108) D / (1 - 1/27) = 71 D / 104, D = drama penalty = pen({v} + llama
    # row); when quitting is better, one roll then quit after three llamas: (v+1)/27 + (71/108) D.
    for v in range(6):
        for lr_codes in [range(7), [], [v], [6], [0, 5]]:
            lr = _counts(list(lr_codes))
            D = _pen([v] + list(lr_codes))
            got = sv.solve_solo(_counts([v]), lr, layout_name, exact=True)
            assert got.quit_value == v + 1
            quit_best = v + 1 <= Fraction(71 * D, 104)
            assert got.roll_value == (Fraction(v + 1, 27) + Fraction(71 * D, 108) if quit_best else Fraction(71 * D, 104))
            assert got.best_action == ("quit" if quit_best else "roll")
    # Concretely: a lone 1 with the full llama row: quit (1 < 71*31/104 = 21.16...).
    assert sv.solve_solo("1", FULL, layout_name).best_action == "quit"
    # With an empty llama row drama costs nothing extra: rolling a lone 6 is worth 71*6/104.
    assert sv.solve_solo("6", EMPTY, layout_name, exact=True).value == Fraction(426, 104)


@pytest.mark.parametrize("layout_name", sorted(dt.LAYOUTS))
def test_single_llama_card_exact(layout_name):
    # Each die shows a llama with prob 2/6: P(no llama) = (4/6)^3 = 8/27; LLL = 1/27 loops.
    # R = (8/27) D / (26/27) = 4 D / 13.
    full = sv.solve_solo("L", FULL, layout_name, exact=True)
    assert full.roll_value == Fraction(4 * 31, 13) and full.best_action == "roll"
    empty = sv.solve_solo("L", EMPTY, layout_name, exact=True)
    assert empty.roll_value == Fraction(40, 13) and empty.value == Fraction(40, 13)
    some = sv.solve_solo("L", "3", layout_name, exact=True)
    assert some.roll_value == Fraction(4 * 13, 13)
    assert some.best_action == "roll"


@pytest.mark.parametrize("layout_name", ["12-34-56", "16-25-34"])
def test_pair_of_equal_numbers_exact(layout_name):
    # Row {v, v}: k = number of dice showing v (v on two dice, one face each):
    # P(k=2) = 1/36 -> discard both -> 0; P(k=1) = 10/36 -> one v left: V(v);
    # P(k=0) = 25/36 of which 1/27 is LLL (loop) -> drama D.
    for v in range(6):
        for lr_codes in [[], list(range(7))]:
            D = _pen([v] + lr_codes)
            Vv = min(Fraction(v + 1), Fraction(71 * D, 104))
            S = Fraction(10, 36) * Vv + (Fraction(25, 36) - Fraction(1, 27)) * D
            R = S / Fraction(26, 27)  # rolling on after three llamas
            got = sv.solve_solo(_counts([v, v]), _counts(lr_codes), layout_name, exact=True)
            assert got.roll_value == (R if R < v + 1 else Fraction(v + 1, 27) + S)  # else quit after LLL
            assert got.value == min(Fraction(v + 1), R)


def test_two_dice_showing_a_value_discard_two_cards():
    # 3 is on dice A and C of the default layout; A = 3, B = L, C = 3
    assert sv.best_discard("3 3", EMPTY, None, [2, 6, 2]).tolist() == [0, 0, 2, 0, 0, 0, 0]
    assert sv.best_discard("3 3", EMPTY, None, [2, 6, 6]).tolist() == [0, 0, 1, 0, 0, 0, 0]
    # a single 3 rolled never allows discarding two 3s
    assert sv.best_discard("3 3 3", FULL, None, [2, 0, 4]).tolist() == [0, 0, 1, 0, 0, 0, 0]


def test_exact_and_float_agree():
    for row in ["1 2", "3 L", "4 4 6", "2 5 L L"]:
        for lr in [FULL, EMPTY, "2 L"]:
            e = sv.solve_solo(row, lr, exact=True)
            f = sv.solve_solo(row, lr)
            assert float(e.roll_value) == pytest.approx(f.roll_value, abs=1e-12)
            assert e.best_action == f.best_action


# ============================================================================ policy sanity


def test_quit_on_tiny_row_roll_on_heavy_row():
    assert sv.solve_solo("1", FULL).best_action == "quit"
    heavy = sv.solve_solo("5 6 L L", FULL)
    assert heavy.best_action == "roll" and heavy.roll_value < heavy.quit_value
    assert sv.solve_solo("6 L", FULL).best_action == "roll"


def test_tie_rule_quits():
    # No small state ties exactly, so the rule itself is checked directly.
    assert not sv.prefer_roll(Fraction(5), Fraction(5))
    assert sv.prefer_roll(Fraction(5), Fraction(5) - Fraction(1, 10**15))
    assert not sv.prefer_roll(5.0, 5.0)
    assert not sv.prefer_roll(5.0, 5.0 - 1e-13)  # float near-tie -> quit
    assert sv.prefer_roll(5.0, 4.999)
    assert not sv.prefer_roll(5.0, 5.1)
    for q, r in [(5.0, 5.0), (5.0, 5.0 - 1e-13), (5.0, 4.999), (5.0, 5.1), (3.0, 2.0)]:
        assert svn.prefer_roll_nb(q, r) == sv.prefer_roll(q, r)


def test_equally_good_discards_prefer_more_cards():
    # Full llama row: "1" and "1 1" are both worth 1 (quit), so after rolling 1, 1, L holding
    # 1 1 1, discarding one or two 1s is equally good; the rule discards two.
    for row in ["1", "1 1"]:
        assert sv.solve_solo(row, FULL, exact=True).value == 1
    assert sv.best_discard("1 1 1", FULL, None, [0, 0, 6]).tolist() == [2, 0, 0, 0, 0, 0, 0]
    plan = svn.solo_plan("1 1 1", FULL)
    out = np.zeros(7, dtype=np.int64)
    row = sv.parse_cards("1 1 1")
    assert svn.best_discard_nb(row, sv.parse_cards("1 1 L"), plan.strides, plan.values[0], out) == 2
    assert out.tolist() == [2, 0, 0, 0, 0, 0, 0]


def test_best_discard_special_rolls():
    # three llamas: nothing happens, even holding llamas
    assert not sv.best_discard("L L 3", FULL, None, [6, 6, 6]).any()
    # no match: drama, nothing to discard
    assert not sv.best_discard("3", FULL, None, [0, 1, 4]).any()
    # llama faces match llama cards (Rosa discards a llama)
    d = sv.best_discard("L", FULL, None, [0, 2, 6])
    assert d.tolist() == [0, 0, 0, 0, 0, 0, 1]
    # the last card gone is always best
    assert sv.best_discard("3 L", FULL, None, [2, 6, 6]).tolist() == [0, 0, 1, 0, 0, 0, 1]
    with pytest.raises(ValueError, match="3 face codes"):
        sv.best_discard("3", FULL, None, [2, 6])


@pytest.mark.parametrize("lr", [FULL, EMPTY, "6 L"])
def test_solo_table_sanity(lr):
    df = sv.solo_table(lr, "12-34-56", max_cards=4)
    n_rows = sum(len(list(itertools.combinations_with_replacement(range(7), k))) for k in range(1, 5))
    assert len(df) == n_rows and df["row"].is_unique
    assert list(df.columns[:4]) == ["row", "quit_value", "roll_value", "best"]
    assert (df["value"] <= df["quit_value"] + 1e-12).all()  # V(row) <= row_penalty(row)
    assert (df["value"] > 0).all()
    assert np.allclose(df["value"], np.minimum(df["quit_value"], df["roll_value"]))
    assert ((df["best"] == "roll") == (df["roll_value"] < df["quit_value"] - 1e-12)).all()
    for text, q in zip(df["row"], df["quit_value"]):
        assert q == sv.row_penalty(sv.parse_cards(text))


def test_solo_table_lists_only_rows_the_43_cards_allow_beside_the_llama_row():
    """43 cards: 6 of each number and 7 llamas, one of each in the llama row. With the 3 still in
    the llama row no row holds six 3s (the CLI refuses --row "3 3 3 3 3 3" --llama-row 3)."""
    df = sv.solo_table("3", "12-34-56")
    assert "3 3 3 3 3 3" not in set(df["row"]) and "2 2 2 2 2 2" in set(df["row"])
    full = set(sv.solo_table(FULL, "12-34-56")["row"])
    assert not any(f"{v} {v} {v} {v} {v} {v}" in full for v in range(1, 7)) and "L L L L L L" in full
    for text in df["row"]:
        assert (sv.parse_cards(text) + sv.parse_cards("3") <= sv.MAX_COUNTS).all()


def test_policy_table_matches_solver():
    start = "2 2 5 L"
    df = sv.policy_table(start, FULL, "13-25-46")
    assert len(df) == 3 * 2 * 2 - 1
    assert set(df["row"]) == {sv.format_cards(np.array(t)) for t in itertools.product([0], [0, 1, 2], [0], [0], [0, 1], [0], [0, 1]) if any(t)}
    for _, rec in df.iterrows():
        got = sv.solve_solo(rec["row"], FULL, "13-25-46")
        assert rec["quit_value"] == got.quit_value and rec["roll_value"] == got.roll_value
        assert rec["best"] == got.best_action
    assert isinstance(df, pd.DataFrame)


def test_layout_matters():
    # 1 and 2 share both dice in 12-34-56 but not in 13-24-56: P(some match) differs.
    a = sv.solve_solo("1 2", FULL, "12-34-56").roll_value
    b = sv.solve_solo("1 2", FULL, "13-24-56").roll_value
    assert abs(a - b) > 1e-6


# ============================================================================ numba plan


@pytest.mark.parametrize("layout_name", ["12-34-56", "14-25-36"])
def test_numba_plan_matches_python_solver(layout_name):
    rng = random.Random(3)
    for start_text, lr, score in [("1 2 3 4 5 6", FULL, 0), ("3 3 L L 6", EMPTY, 12), ("1 1 5 L L L", "2 5", 0),
                                  ("2 L L", FULL, 39), ("4 5 L", "1 L", 3)]:
        start = sv.parse_cards(start_text)
        lrc = lr if not isinstance(lr, str) else sv.parse_cards(lr)
        plan = svn.solo_plan(start, lrc, layout_name, score=score)
        n = int(np.prod(start + 1))
        assert plan.scores.tolist() == sv.score_levels(score)
        assert plan.values.shape == plan.roll_values.shape == (len(plan.scores), n)
        assert plan.values[:, 0].tolist() == [-sv.token_returned(s) for s in plan.scores]
        for level, lscore in enumerate(plan.scores):
            lscore = int(lscore)
            for t in itertools.product(*(range(int(c) + 1) for c in start)):
                row = np.array(t, dtype=np.int64)
                idx = svn.state_index_nb(row, plan.strides)
                if not row.any():
                    assert idx == 0
                    continue
                ref = sv.solve_solo(row, lrc, layout_name, score=lscore)
                assert plan.quit_values[idx] == ref.quit_value
                assert plan.roll_values[level, idx] == pytest.approx(ref.roll_value, abs=1e-9)
                assert bool(plan.roll_better[level, idx]) == (ref.best_action == "roll")
                # discards chosen by the Numba helper are as good as the Python ones
                out = np.zeros(7, dtype=np.int64)
                for _ in range(5):
                    faces = [int(dt.LAYOUTS[layout_name][d, rng.randrange(6)]) for d in range(3)]
                    rolled = np.bincount(np.array(faces), minlength=7).astype(np.int64)
                    k = svn.best_discard_nb(row, rolled, plan.strides, plan.values[level], out)
                    py = sv.best_discard(row, lrc, layout_name, faces, score=lscore)
                    assert k == int(out.sum()) == int(py.sum())
                    if not py.any():
                        assert k == 0
                        continue
                    assert k > 0 and (out <= np.minimum(rolled, row)).all()
                    v_nb = plan.values[level, svn.state_index_nb(row - out, plan.strides)]
                    v_py = sv.solo_value_for(row - py, lrc, layout_name, score=lscore)
                    assert v_nb == pytest.approx(v_py, abs=1e-9)


def test_decision_tables_exclude_three_llamas():
    t = svn.decision_tables("12-34-56")
    assert t.denom == 208 and int(t.weights.sum()) == 208
    assert not (t.rolled[:, 6] == 3).any()
    assert (t.rolled.sum(axis=1) == 3).all()
