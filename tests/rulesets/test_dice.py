"""LAMA Dice: rulebook examples, kernel-vs-reference equality, properties, exact values, the solo optimum."""
import itertools
from fractions import Fraction
from math import comb

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from llama_sim.core import registry, rng, stats
from llama_sim.rulesets.dice import solver as sv
from llama_sim.rulesets.dice.tables import LAYOUTS, p_three_llamas
from llama_sim.core.errors import UsageError
from llama_sim.core import scoring as common
from llama_sim.rulesets import dice
from llama_sim.core.registry import POLICY_SIG
from numba import njit
from llama_sim.core.scoring import largest_token
from llama_sim.run.backends import run
from llama_sim.run.designs import rotation_plan, seat_plan
from llama_sim.strategies import dice as sd

L = dice.LLAMA
ROLL, QUIT, DB, TB = dice.ROLL, dice.QUIT, dice.DISCARD_BASE, dice.TAKE_BASE
DEFAULT = LAYOUTS["12-34-56"]  # die A 1234LL, B 1256LL, C 3456LL
CFG = dice.RULE_SET.config()
LAYOUT_NAMES = list(LAYOUTS)
SPECS = ["threshold", "always_roll", "random", "always_quit", "keep_llama", "solo_optimal",
         "threshold:quit_at=20", "keep_llama:quit_at=16,keep=2", "solo_optimal:quit_at=14,keep_llama=1",
         "watcher", "watcher:danger=5,danger_quit_at=20,solo=0"]


def cards(text):
    """Count vector of a card list such as "2 5 L"."""
    return sv.parse_cards(text)


def roll(a, b, c, layout=DEFAULT):
    """The roll index whose dice A, B, C show the values a, b, c ("1".."6" or "L")."""
    want = tuple(L if x == "L" else int(x) - 1 for x in (a, b, c))
    for o in range(dice.N_ROLLS):
        if tuple(int(f) for f in dice.roll_faces(layout.ravel(), o)) == want:
            return o
    raise ValueError(f"no die face combination {a} {b} {c}")


class Scripted:
    """A policy stand-in for the reference engine: replays actions and records what it saw."""

    def __init__(self, actions):
        self.actions = list(actions)
        self.seen = []

    def __call__(self, obs, hand, legal, params, rng_state):
        self.seen.append((obs.copy(), legal))
        return self.actions.pop(0)


def scripted(*actions):
    return Scripted(actions), np.zeros(registry.MAX_PARAMS)


def player(spec):
    p = registry.parse_spec("dice", spec)
    return p.strategy.policy, p.params


def legal_actions(legal):
    return {a for a in range(dice.N_ACTIONS) if (legal >> a) & 1}


# ----------------------------------------------------------------------------- rulebook examples

def test_rosa_rolls_1_3_llama_discards_3_and_llama_or_may_keep_the_llama():
    """Rosa rolled a 1, a 3 and a llama; she discards a 3 and a llama (she might keep the llama)."""
    o = roll("1", "L", "3")
    for mask, left in [(0b110, "5"), (0b100, "5 L")]:
        rosa = scripted(ROLL, DB + mask, QUIT)
        r = dice.Round([cards("3 5 L"), cards("6")], [rosa, scripted(QUIT)], [0, 0], DEFAULT, rolls=[o])
        res = r.play()
        _, legal = rosa[0].seen[1]
        # die A shows a 1 she does not have: only B (llama) and C (3) can be used
        assert legal_actions(legal) == {DB + 0b010, DB + 0b100, DB + 0b110}
        assert np.array_equal(res.rows[0], cards(left))
        assert res.discarded.sum() == bin(mask).count("1")


def test_john_rolls_2_and_two_llamas_takes_the_2_or_the_llama():
    john = scripted(ROLL, TB + L, QUIT)
    r = dice.Round([cards("1 3 4 5 6 6"), cards("2")], [john, scripted(QUIT)], [0, 0], DEFAULT,
                   rolls=[roll("2", "L", "L")])
    res = r.play()
    obs, legal = john[0].seen[1]
    assert obs[dice.OBS_PHASE] == dice.PHASE_TAKE
    assert legal_actions(legal) == {TB + 1, TB + L}  # the 2 or the llama
    assert res.rows[0, L] == 1 and res.llama_row[L] == 0 and res.llama_row.sum() == 6


def test_three_llamas_return_a_token_and_nothing_else_happens():
    seat0 = scripted(ROLL, QUIT)
    r = dice.Round([cards("L L 4"), cards("2")], [seat0, scripted(QUIT)], [12, 0], DEFAULT,
                   rolls=[roll("L", "L", "L")])
    res = r.play()
    assert np.array_equal(res.rows[0], cards("L L 4"))  # no discard although llamas were rolled
    assert res.returned.tolist() == [10, 0] and r.scores == [2, 0]  # the largest token held
    assert [a for _, a, _ in res.actions] == [ROLL, QUIT, QUIT]
    assert res.penalties[0] == 14 - 10  # the round's card points less the returned token
    # with no token there is nothing to return
    r = dice.Round([cards("L"), cards("2")], [scripted(ROLL, QUIT), scripted(QUIT)], [0, 0], DEFAULT,
                   rolls=[roll("L", "L", "L")])
    assert r.play().returned.tolist() == [0, 0]
    assert largest_token(9, False) == 1 and largest_token(10, False) == 10 and largest_token(0, False) == 0


def test_martin_quits_his_row_stays_and_scores():
    r = dice.Round([cards("1 5 5 6"), cards("4")], [scripted(QUIT), scripted(QUIT)], [0, 0], DEFAULT)
    res = r.play()
    assert res.end == dice.END_ALL_QUIT and res.quit.tolist() == [1, 1]
    assert res.points.tolist() == [12, 4]  # Rosa's 1, two 5s and a 6 score 12


def test_alone_rosa_discards_her_2_then_blows_it_on_2_6_llama():
    """John, Martin and George have quit; Rosa (2, 5) rolls 1 2 4 and discards her 2, then rolls
    2 6 L: none in her row, so although the llama row has them she takes the whole llama row."""
    rosa = scripted(ROLL, DB + 0b010, ROLL)
    r = dice.Round([cards("2 5"), cards("1"), cards("3"), cards("6")], [rosa, None, None, None], [0] * 4, DEFAULT,
                   quit=[False, True, True, True], rolls=[roll("1", "2", "4"), roll("2", "6", "L")])
    res = r.play()
    assert res.end == dice.END_DRAMA and res.last_actor == 0
    assert np.array_equal(res.rows[0], cards("5") + cards("1 2 3 4 5 6 L"))
    assert res.points[0] == 31 and res.llama_row.sum() == 0
    # Not alone, the same roll makes her take a card from the llama row instead.
    rosa = scripted(ROLL, TB + 5, QUIT)
    r = dice.Round([cards("5"), cards("1")], [rosa, scripted(QUIT)], [0, 0], DEFAULT, rolls=[roll("2", "6", "L")])
    res = r.play()
    assert legal_actions(rosa[0].seen[1][1]) == {TB + 1, TB + 5, TB + L}
    assert res.end == dice.END_ALL_QUIT and np.array_equal(res.rows[0], cards("5 6"))


def test_two_4s_rolled_allow_discarding_two_4s_one_4_only_one():
    o = roll("4", "1", "4")  # A and C show a 4
    seat0 = scripted(ROLL, DB + 0b101)
    res = dice.Round([cards("4 4"), cards("2")], [seat0, scripted(QUIT)], [0, 0], DEFAULT, rolls=[o]).play()
    assert legal_actions(seat0[0].seen[1][1]) == {DB + 0b001, DB + 0b100, DB + 0b101}
    assert res.end == dice.END_OUT and res.points.tolist() == [0, 2]
    seat0 = scripted(ROLL, DB + 0b001, QUIT)
    dice.Round([cards("4 6"), cards("2")], [seat0, scripted(QUIT)], [0, 0], DEFAULT, rolls=[o]).play()
    assert legal_actions(seat0[0].seen[1][1]) == {DB + 0b001, DB + 0b100}  # one 4: one die only


def test_the_kernels_discard_masks_are_the_readable_rule_for_every_roll_and_row():
    """``discard_masks`` (bit sets) against ``discard_legal`` on every roll of faces and every
    count 0..3 of the values shown: 343 rolls, 15,484 cases."""
    masks = njit(lambda f0, f1, f2, r0, r1, r2: dice.discard_masks(f0, f1, f2, r0, r1, r2))
    cases = 0
    for f0, f1, f2 in itertools.product(range(dice.N_CODES), repeat=3):
        shown = sorted({f0, f1, f2})
        for counts in itertools.product(range(4), repeat=len(shown)):
            row = np.zeros(dice.N_CODES, np.int64)
            row[shown] = counts
            got = masks(f0, f1, f2, row[f0], row[f1], row[f2])
            want = sum(1 << m for m in range(1, 8) if dice.discard_legal(row, f0, f1, f2, m))
            assert got == want, (f0, f1, f2, counts)
            cases += 1
    assert cases == 15484


def test_discarding_the_last_card_ends_the_round_at_once_and_scores_0():
    seat0 = scripted(ROLL, DB + 0b001)
    res = dice.Round([cards("1"), cards("2 3"), cards("L")], [seat0, scripted(), scripted()], [5, 7, 0], DEFAULT,
                     rolls=[roll("1", "5", "6")]).play()
    assert res.end == dice.END_OUT and res.out_seat == 0 and res.actions == [(0, ROLL, roll("1", "5", "6")), (0, DB + 1, -1)]
    assert res.points.tolist() == [0, 5, 10]


def test_taking_the_last_llama_row_card_ends_the_round():
    seat0 = scripted(ROLL, TB + 0)
    res = dice.Round([cards("5"), cards("2")], [seat0, scripted()], [0, 0], DEFAULT, llama_row=cards("1"),
                     rolls=[roll("1", "2", "3")]).play()
    assert res.end == dice.END_LLAMA_ROW and res.llama_row.sum() == 0 and np.array_equal(res.rows[0], cards("1 5"))
    assert res.points.tolist() == [6, 2]


def test_no_match_anywhere_is_llama_drama():
    seat0 = scripted(ROLL)
    res = dice.Round([cards("5"), cards("2")], [seat0, scripted()], [0, 0], DEFAULT, llama_row=cards("4 6"),
                     rolls=[roll("1", "2", "3")]).play()
    assert res.end == dice.END_DRAMA and np.array_equal(res.rows[0], cards("4 5 6")) and res.points[0] == 15


def test_rolling_then_quitting_order_and_starter():
    """Play goes to seat+1 skipping quit seats; the next round starts with the last player to act."""
    g = dice.reference_game([player("threshold"), player("random"), player("keep_llama")], DEFAULT,
                            rng.new_state(3, 0, 0), rng.new_state(3, 0, 1), rng.new_state(3, 0, 2))
    assert g.starts[0] == 0 and len(g.rounds) > 1
    for prev, start, nxt in zip(g.rounds, g.starts[1:], g.rounds[1:]):
        assert start == prev.last_actor and nxt.actions[0][0] == start


def test_game_scores_follow_points_returns_and_going_out():
    """Score after a round = before + card points - three-llama returns - the going-out token."""
    for seed in range(4):
        players = [player(s) for s in ["always_roll", "threshold", "keep_llama"]]
        g = dice.reference_game(players, DEFAULT, rng.new_state(seed, 0, 0), rng.new_state(seed, 0, 1),
                                rng.new_state(seed, 0, 2))
        scores = np.zeros(3, np.int64)
        for res in g.rounds:
            assert (res.returned <= np.maximum(scores, 0)).all()
            scores = scores - res.returned + res.points
            if res.end == dice.END_OUT:
                scores[res.last_actor] -= largest_token(scores[res.last_actor], False)
            assert (scores >= 0).all()
        assert scores.tolist() == g.final.tolist() and max(g.final) >= 40


# ----------------------------------------------------------------------------- kernel vs reference

def run_kernel(rows, llama_row, discarded, quit, start, scores, specs, cfg, seed):
    n = len(specs)
    players = [registry.parse_spec("dice", s) for s in specs]
    policies, slots = registry.policy_tuple(players)
    params = np.ascontiguousarray(np.array([p.params for p in players]))
    st_ = dict(rows=np.array(rows, np.int64), llama_row=np.array(llama_row, np.int64),
               discarded=np.array(discarded, np.int64), quit=np.array(quit, np.int64),
               scores=np.array(scores, np.int64), returned=np.zeros(n, np.int64))
    log = np.zeros((dice.LOG_CAPACITY, 3), np.int64)
    end, last, k = dice.play_round_entry(
        n, st_["rows"], st_["llama_row"], st_["discarded"], st_["quit"], start, st_["scores"], st_["returned"],
        cfg, policies, slots, params, np.arange(n, dtype=np.int64), rng.new_state(seed, 0, rng.POLICY_STREAM),
        rng.new_state(seed, 0, rng.DICE_STREAM), np.zeros(dice.OBS_LEN, np.int64), log)
    assert k < dice.LOG_CAPACITY
    return dict(end=end, last=last, actions=[tuple(x) for x in log[:k].tolist()], **st_)


def run_reference(rows, llama_row, discarded, quit, start, scores, specs, cfg, seed):
    layout = np.asarray(cfg[1:19]).reshape(3, 6)
    r = dice.Round(np.array(rows), [player(s) for s in specs], list(scores), layout, llama_row=llama_row,
                   discarded=discarded, start=start, quit=[bool(q) for q in quit],
                   prng=rng.new_state(seed, 0, rng.POLICY_STREAM), drng=rng.new_state(seed, 0, rng.DICE_STREAM))
    return r, r.play()


def assert_same(k, r, res):
    assert k["actions"] == [tuple(a) for a in res.actions]
    assert k["end"] == res.end and k["last"] == res.last_actor
    assert np.array_equal(k["rows"], res.rows) and np.array_equal(k["llama_row"], res.llama_row)
    assert np.array_equal(k["discarded"], res.discarded) and np.array_equal(k["quit"], res.quit)
    assert np.array_equal(k["returned"], res.returned) and k["scores"].tolist() == r.scores


def dealt(seed, n):
    rows, aside = dice.reference_deal(n, rng.new_state(seed, 0, rng.DEAL_STREAM))
    return rows, aside


@st.composite
def positions(draw):
    """Any reachable-looking position: rows from the 43 cards, a non-empty llama row, some seats
    quit, any scores."""
    seed = draw(st.integers(0, 2**32 - 1))
    g = np.random.default_rng(seed)
    n = int(g.integers(2, 7))
    llama_row = (g.random(7) < 0.6).astype(np.int64)
    if llama_row.sum() == 0:
        llama_row[int(g.integers(7))] = 1
    pool = np.repeat(np.arange(7), dice.TOTAL_OF_CODE - llama_row)
    g.shuffle(pool)
    rows = np.zeros((n, 7), np.int64)
    pos = 0
    for s in range(n):
        k = min(int(g.integers(1, 10)), len(pool) - pos - (n - 1 - s))
        for c in pool[pos:pos + k]:
            rows[s, c] += 1
        pos += k
    discarded = np.bincount(pool[pos:pos + int(g.integers(0, len(pool) - pos + 1))].astype(np.int64), minlength=7).astype(np.int64)
    quit = (g.random(n) < 0.4).astype(np.int64)
    if quit.all():
        quit[int(g.integers(n))] = 0
    start = int(g.choice(np.flatnonzero(quit == 0)))
    scores = g.integers(0, 45, n).astype(np.int64)
    cfg = dice.RULE_SET.config(dice_layout=LAYOUT_NAMES[int(g.integers(len(LAYOUT_NAMES)))])
    specs = [SPECS[int(i)] for i in g.integers(0, len(SPECS), n)]
    return rows, llama_row, discarded, quit, start, scores, specs, cfg, seed


@given(seed=st.integers(0, 2**32), n=st.integers(2, 6), start=st.integers(0, 5),
       mix=st.lists(st.sampled_from(SPECS), min_size=6, max_size=6), layout=st.sampled_from(LAYOUT_NAMES),
       scores=st.lists(st.integers(0, 45), min_size=6, max_size=6))
def test_kernel_equals_reference_on_fixed_deals_and_dice(seed, n, start, mix, layout, scores):
    rows, _ = dealt(seed, n)
    cfg = dice.RULE_SET.config(dice_layout=layout)
    args = (rows, np.ones(7, np.int64), np.zeros(7, np.int64), np.zeros(n, np.int64), start % n, scores[:n],
            mix[:n], cfg, seed)
    k = run_kernel(*args)
    r, res = run_reference(*args)
    assert_same(k, r, res)


@given(positions())
def test_kernel_equals_reference_from_any_position(pos):
    k = run_kernel(*pos)
    r, res = run_reference(*pos)
    assert_same(k, r, res)


@pytest.mark.parametrize("games_mode,blocks", [(False, 300), (True, 12)])
def test_kernel_tallies_equal_reference_tallies(games_mode, blocks):
    players = [registry.parse_spec("dice", s) for s in ["threshold", "random", "keep_llama", "solo_optimal"]]
    cfg = dice.RULE_SET.config(dice_layout="14-26-35")
    plan = rotation_plan(dice.RULE_SET, 4, players, games_mode, cfg)
    tally = run(plan, 99, 0, blocks, threads=1)
    d = tally.s1.shape[0]
    s1, s2 = np.zeros(d, np.int64), np.zeros((d, d), np.int64)
    dice.reference_blocks(99, 0, blocks, 4, plan.entry_of_seat, plan.unit_of_seat, len(players), games_mode,
                          [(p.strategy.policy, p.params) for p in plan.entries], plan.cfg, s1, s2)
    assert np.array_equal(tally.s1, s1) and np.array_equal(tally.s2, s2)
    assert tally.s1.any()


def test_kernel_game_equals_reference_game():
    specs = ["threshold", "random", "always_roll"]
    players = [registry.parse_spec("dice", s) for s in specs]
    policies, slots = registry.policy_tuple(players)
    params = np.ascontiguousarray(np.array([p.params for p in players]))
    for block in range(8):
        d1, p1, r1 = (rng.new_state(5, block, s) for s in range(3))
        d2, p2, r2 = d1.copy(), p1.copy(), r1.copy()
        pen, out, qu, fin = (np.zeros(3, np.int64) for _ in range(4))
        rounds = dice.play_game(3, policies, slots, params, np.arange(3), d1, p1, r1, CFG, pen, out, qu, fin)
        ref = dice.reference_game([player(s) for s in specs], DEFAULT, d2, p2, r2)
        assert rounds == len(ref.rounds)
        assert fin.tolist() == ref.final.tolist() and pen.tolist() == ref.penalty.tolist()
        assert out.tolist() == ref.went_out.tolist() and qu.tolist() == ref.quit.tolist()
        assert max(fin) >= 40


def test_randint_is_the_exact_integer_floor_of_the_top_53_bits_times_n():
    """``rng.randint`` (dice rolls, deals, policies) = floor((x >> 11) * n / 2**53) for the generator's
    next output x; it agrees with the float floor(uniform * n) but at rounding boundaries."""
    a = rng.new_state(11, 2, rng.DICE_STREAM)
    b = a.copy()
    same = 0
    for n in list(range(1, 250)) * 20:
        x = int(rng.next_u64(b))
        assert dice.randint(a, n) == ((x >> 11) * n) >> 53
        same += ((x >> 11) * n) >> 53 == int(float(x >> 11) * 2.0 ** -53 * n)
    assert np.array_equal(a, b) and same == 249 * 20


def test_illegal_policy_action_is_refused_by_kernel(tmp_path):
    src = tmp_path / "bad_dice.py"
    src.write_text(
        "from llama_sim.core.registry import strategy\n"
        "@strategy('dice', 'always_discard_test', 'returns a discard at a roll/quit decision')\n"
        "def always_discard_test(obs, hand, legal, params, rng):\n"
        "    return 9\n")
    registry.load_file(src)
    players = [registry.parse_spec("dice", "always_quit"), registry.parse_spec("dice", "always_discard_test")]
    for games_mode in (False, True):
        plan = seat_plan(dice.RULE_SET, players, games_mode, CFG)
        # seat 0 quits, seat 1 (entry 1) cheats: the kernel's ValueError("illegal action", 1, 1, 9)
        # reaches the user as one line naming the strategy, the seat and the action
        with pytest.raises(UsageError) as kernel_err:
            run(plan, 1, 0, 10, threads=1)
        assert str(kernel_err.value).startswith("strategy 'always_discard_test' (seat 1) chose an illegal action: "
                                                "take 1, having seen seat 1 of ")
        d = len(plan.metrics) * 2
        with pytest.raises(ValueError) as reference_err:
            dice.reference_blocks(1, 0, 10, 2, plan.entry_of_seat, plan.unit_of_seat, 2, games_mode,
                                  [(p.strategy.policy, p.params) for p in players], plan.cfg,
                                  np.zeros(d, np.int64), np.zeros((d, d), np.int64))
        assert reference_err.value.args == ("illegal action", 1, 1, 9)


@njit(POLICY_SIG, cache=True)
def cheat(obs, hand, legal, params, rng_state):
    """Returns action params[0] in phase params[1]; otherwise ROLL, or the first legal action."""
    if obs[dice.OBS_PHASE] == params[1]:
        return np.int64(params[0])
    if obs[dice.OBS_PHASE] == dice.PHASE_TURN:
        return dice.ROLL
    for a in range(dice.N_ACTIONS):
        if (legal >> a) & 1:
            return a
    return -1


@pytest.mark.parametrize("case", ["discard in a turn", "take in a turn", "quit after a roll",
                                  "discard a die not in the row", "discard two 3s holding one",
                                  "take a value not rolled", "take a card gone from the llama row",
                                  "roll when asked to take", "no such action"])
def test_an_illegal_action_in_any_phase_raises_in_kernel_and_reference(case):
    """Seat 1 (line-up entry 2: entries are seated 1, 2, 0) rolls first; rolls are scripted through
    the dice stream's first value, found by search."""
    T, D, K = dice.PHASE_TURN, dice.PHASE_DISCARD, dice.PHASE_TAKE
    rows = np.array([cards("1 2 3 4 5 6"), cards("3 5 L"), cards("1 2 4 6 6 6")])
    cases = {  # phase, bad action, dice A B C wanted, llama row
        "discard in a turn": (T, DB + 1, None, "1 2 3 4 5 6 L"),
        "take in a turn": (T, TB + 2, None, "1 2 3 4 5 6 L"),
        "quit after a roll": (D, QUIT, ("3", "5", "4"), "1 2 3 4 5 6 L"),
        "discard a die not in the row": (D, DB + 4, ("3", "1", "4"), "1 2 3 4 5 6 L"),
        "discard two 3s holding one": (D, DB + 5, ("3", "2", "3"), "1 2 3 4 5 6 L"),
        "take a value not rolled": (K, TB + 5, ("1", "2", "4"), "1 2 3 4 5 6 L"),
        "take a card gone from the llama row": (K, TB + 0, ("1", "2", "4"), "2 3 4 5 6 L"),
        "roll when asked to take": (K, ROLL, ("1", "2", "4"), "1 2 3 4 5 6 L"),
        "no such action": (T, dice.N_ACTIONS, None, "1 2 3 4 5 6 L"),
    }
    phase, bad, want, lrow = cases[case]
    seed = 0
    if want is not None:  # a dice stream whose first roll shows ``want``
        target = roll(*want)
        seed = next(s for s in range(100_000) if dice.randint(rng.new_state(s, 0, rng.DICE_STREAM), 216) == target)
    params = np.zeros(registry.MAX_PARAMS)
    params[:2] = bad, phase
    quitter = player("always_quit")
    entries = [quitter, quitter, (cheat, params)]
    entry_of_seat = np.array([1, 2, 0], np.int64)
    expected = ("illegal action", 2, 1, bad)
    r = dice.Round(rows.copy(), [common.SeatEntry(entries[e], e) for e in entry_of_seat], [0, 0, 0], DEFAULT,
                   llama_row=cards(lrow), start=1, drng=rng.new_state(seed, 0, rng.DICE_STREAM))
    with pytest.raises(ValueError) as err:
        r.play()
    assert err.value.args == expected
    policies = (quitter[0], cheat) + (quitter[0],) * 4
    with pytest.raises(ValueError) as err:
        dice.play_round_entry(3, rows.copy(), cards(lrow), np.zeros(7, np.int64), np.zeros(3, np.int64), 1,
                              np.zeros(3, np.int64), np.zeros(3, np.int64), CFG, policies,
                              np.array([0, 0, 1], np.int64), np.array([e[1] for e in entries]), entry_of_seat,
                              rng.new_state(1), rng.new_state(seed, 0, rng.DICE_STREAM),
                              np.zeros(dice.OBS_LEN, np.int64), np.zeros((0, 3), np.int64))
    assert err.value.args == expected


# ----------------------------------------------------------------------------- properties

def replay(rows0, llama0, quit0, start, layout, actions, n):
    """An independent re-reading of the rules, step by step over the action log: checks turn order
    and legality of every action, and that the round ends exactly when an end condition arises.
    Returns (rows, llama row, discarded, end)."""
    rows = np.array(rows0, np.int64).copy()
    llama = np.array(llama0, np.int64).copy()
    quit = [bool(q) for q in quit0]
    discarded = np.zeros(7, np.int64)
    faces = layout.ravel()
    end = None
    pending = None
    expect = start
    for seat, a, o in actions:
        assert end is None, "an action after the round ended"
        if pending is None:
            while quit[expect]:
                expect = (expect + 1) % n
            assert seat == expect, "out of turn"
            assert a in (ROLL, QUIT)
            assert o == -1 if a == QUIT else 0 <= o < 216
            expect = (seat + 1) % n
            if a == QUIT:
                quit[seat] = True
                if all(quit):
                    end = dice.END_ALL_QUIT
                continue
            f = [int(faces[o // 36]), int(faces[6 + (o // 6) % 6]), int(faces[12 + o % 6])]
            alone = sum(not q for q in quit) == 1
            if f == [L, L, L]:
                continue
            if any(rows[seat, c] > 0 for c in f):
                pending = ("discard", seat, f)
            elif not alone and any(llama[c] for c in f):
                pending = ("take", seat, f)
            else:
                rows[seat] += llama
                llama[:] = 0
                end = dice.END_DRAMA
        else:
            kind, s, f = pending
            assert seat == s and o == -1
            if kind == "discard":
                assert DB + 1 <= a <= DB + 7
                chosen = [f[i] for i in range(3) if (a - DB) >> i & 1]
                for c in set(chosen):
                    assert chosen.count(c) <= rows[seat, c], "discarded a card not in the row"
                    rows[seat, c] -= chosen.count(c)
                    discarded[c] += chosen.count(c)
                if rows[seat].sum() == 0:
                    end = dice.END_OUT
            else:
                c = a - TB
                assert 0 <= c < 7 and c in f and llama[c] == 1, "took a card not rolled or not in the llama row"
                llama[c] = 0
                rows[seat, c] += 1
                if llama.sum() == 0:
                    end = dice.END_LLAMA_ROW
            pending = None
    assert pending is None and end is not None, "the round stopped without an end condition"
    return rows, llama, discarded, end


def check_round(res, rows0, llama0, discarded0, quit0, start, layout, set_aside):
    n = len(rows0)
    rows, llama, disc, end = replay(rows0, llama0, quit0, start, layout, res.actions, n)
    assert end == res.end and np.array_equal(rows, res.rows) and np.array_equal(llama, res.llama_row)
    assert np.array_equal(disc + discarded0, res.discarded)
    # 43 cards conserved: rows + llama row + set aside + discarded
    total = res.rows.sum(axis=0) + res.llama_row + set_aside + res.discarded
    assert total.tolist() == dice.TOTAL_OF_CODE.tolist() and total.sum() == 43
    for s in range(n):
        if s == res.out_seat:
            assert res.points[s] == 0 and res.rows[s].sum() == 0
        else:
            assert res.rows[s].sum() > 0
            assert res.points[s] == sum(int(dice.PENALTY[c]) for c in range(7) if res.rows[s, c] > 0)
            assert 1 <= res.points[s] <= 31
    if res.end == dice.END_ALL_QUIT:
        assert res.quit.all() and res.llama_row.sum() > 0
    else:
        assert not res.quit[res.last_actor]
    if res.end in (dice.END_DRAMA, dice.END_LLAMA_ROW):
        assert res.llama_row.sum() == 0


@given(seed=st.integers(0, 2**32), n=st.integers(2, 6), mix=st.lists(st.sampled_from(SPECS), min_size=6, max_size=6),
       layout=st.sampled_from(LAYOUT_NAMES))
def test_round_properties_from_deals(seed, n, mix, layout):
    rows, aside = dealt(seed, n)
    assert rows.sum(axis=1).tolist() == [6] * n and aside.sum() == 36 - 6 * n
    cfg = dice.RULE_SET.config(dice_layout=layout)
    _, res = run_reference(rows, np.ones(7, np.int64), np.zeros(7, np.int64), np.zeros(n, np.int64), 0, [0] * n,
                           mix[:n], cfg, seed)
    check_round(res, rows, np.ones(7, np.int64), np.zeros(7, np.int64), np.zeros(n), 0, LAYOUTS[layout], aside)
    assert (res.returned == 0).all()  # nobody holds a token in a first round


@given(positions())
def test_round_properties_from_any_position(pos):
    rows, llama_row, discarded, quit, start, scores, specs, cfg, seed = pos
    aside = dice.TOTAL_OF_CODE - rows.sum(axis=0) - llama_row - discarded
    r, res = run_reference(*pos)
    check_round(res, rows, llama_row, discarded, quit, start, np.asarray(cfg[1:19]).reshape(3, 6), aside)
    assert (np.array(r.scores) == np.array(scores) - res.returned).all() and (np.array(r.scores) >= 0).all()


# ----------------------------------------------------------------------------- exact values

@pytest.mark.parametrize("name", LAYOUT_NAMES)
def test_three_llamas_have_probability_1_in_27(name):
    faces = LAYOUTS[name].ravel()
    lll = sum(1 for o in range(216) if tuple(dice.roll_faces(faces, o)) == (L, L, L))
    assert Fraction(lll, 216) == Fraction(1, 27) == p_three_llamas(name)


def test_three_llamas_frequency_on_the_dice_stream():
    state = rng.new_state(2024, 0, rng.DICE_STREAM)
    faces = DEFAULT.ravel()
    n = 100_000
    hits = sum(1 for _ in range(n) if tuple(dice.roll_faces(faces, dice.randint(state, 216))) == (L, L, L))
    lo, hi = stats.wilson(hits / n, n, 1.96 * 1.5)
    assert lo <= 1 / 27 <= hi


def test_always_quit_mean_penalty_is_exact():
    """Each value 1..6 is in a 6-card row with probability 1 - C(31,6)/C(36,6), a llama with
    1 - C(30,6)/C(36,6): sum_v v (1 - C(31,6)/C(36,6)) + 10 (1 - C(30,6)/C(36,6)) = 20.0134 per player."""
    exact = sum(range(1, 7)) * (1 - comb(31, 6) / comb(36, 6)) + 10 * (1 - comb(30, 6) / comb(36, 6))
    assert 21 * (1 - Fraction(comb(31, 6), comb(36, 6))) + 10 * (1 - Fraction(comb(30, 6), comb(36, 6))) \
        == Fraction(109193, 5456)  # = 20.01338...
    assert abs(exact - 109193 / 5456) < 1e-12
    players = [registry.parse_spec("dice", "always_quit")] * 4
    tally = run(seat_plan(dice.RULE_SET, players, False, CFG), 2024, 0, 30_000, threads=2)
    for u in range(4):
        est = stats.estimate(tally, "penalty_per_round", u)
        assert est.ci_low <= exact <= est.ci_high
    assert abs(tally.s1[:4].sum() / (4 * tally.blocks) - exact) < 0.06
    assert tally.s1[4:8].sum() == 0 and tally.s1[8:12].sum() == 4 * tally.blocks


def solo(row, llama_row, spec, n, seed, layout=None, score=0):
    return dice.simulate_solo(row, llama_row, spec, n, seed, layout, score=score)


@pytest.mark.parametrize("row,llama_row,layout,score", [
    ("2 5 L", "1 2 3 4 5 6 L", None, 0),
    ("1 3 4 6 L", "2 5 L", "13-25-46", 0),
    ("4 4 6 L L", "1 2 3 4 5 6 L", "16-24-35", 0),
    ("L L", "1 2 3 4 5 6 L", None, 10),
    ("2 5 L", "1 2 3 4 5 6 L", None, 13),
    ("1 3 4 6 L", "2 5 L", "13-25-46", 21),
])
def test_simulated_solo_optimal_agrees_with_solve(row, llama_row, layout, score):
    """The kernel's net score change (points less the tokens returned after three llamas and on going
    out) with solo_optimal at the player's score, against the exact value at that score."""
    exact = sv.solve_solo(row, llama_row, layout, score=score).value
    est, ends = solo(row, llama_row, "solo_optimal", 30_000, 7, layout, score)
    assert est.ci_low <= exact <= est.ci_high, (est, exact)
    if score:  # the score matters: ignoring the tokens would be clearly off
        assert not est.ci_low <= sv.solve_solo(row, llama_row, layout).value <= est.ci_high
    assert ends[dice.END_LLAMA_ROW] == 0 and ends[dice.END_ALL_QUIT] + ends[dice.END_OUT] + ends[dice.END_DRAMA] == 30_000


def test_solve_beats_the_heuristics_alone():
    """The exact optimum is a lower bound: threshold and keep_llama do no better (alone at 2 5 L)."""
    exact = sv.solve_solo("2 5 L", "1 2 3 4 5 6 L").value
    for spec in ["threshold", "always_roll", "keep_llama"]:
        est, _ = solo("2 5 L", "1 2 3 4 5 6 L", spec, 20_000, 3)
        assert est.ci_high > exact


@given(seed=st.integers(0, 2**32 - 1))
def test_numba_solo_dp_of_the_policy_equals_the_solver(seed):
    g = np.random.default_rng(seed)
    layout = int(g.integers(15))
    score = int(g.integers(40)) if g.random() < 0.7 else 0
    row = np.zeros(7, np.int64)
    for c in g.integers(0, 7, int(g.integers(1, 7))):
        row[c] += 1
    lrow = (g.random(7) < 0.5).astype(np.int64)
    lrow[int(g.integers(7))] = 1
    lmask = sum(1 << c for c in range(7) if lrow[c])
    strides, values, q, r = sd.solo_values(row, lmask, layout, score)
    ref = sv.solve_solo(row, lrow, LAYOUT_NAMES[layout], score=score)
    assert q == ref.quit_value and abs(r - ref.roll_value) < 1e-9
    assert abs(values[-1] - ref.value) < 1e-9
    # the policy's decisions: roll/quit, and a discard reaching the solver's optimal value
    obs = np.zeros(dice.OBS_LEN, np.int64)
    obs[dice.OBS_ROWS:dice.OBS_ROWS + 7] = row
    obs[dice.OBS_LLAMA_ROW:dice.OBS_LLAMA_ROW + 7] = lrow
    obs[dice.OBS_LAYOUT_ID] = layout
    obs[dice.OBS_ACTIVE] = 1
    obs[dice.OBS_SCORES] = score  # seat 0's
    assert values[0] == -sv.token_returned(score)
    assert (sd.solo_turn(obs, row) == ROLL) == (ref.best_action == "roll")
    faces = LAYOUTS[LAYOUT_NAMES[layout]].ravel()
    for o in g.integers(0, 216, 12):
        f = [int(x) for x in dice.roll_faces(faces, int(o))]
        if f == [L, L, L] or not any(row[c] for c in f):
            continue
        legal = np.zeros(dice.N_ACTIONS, np.uint8)
        for m in range(1, 8):
            legal[DB + m] = dice.discard_legal(row, *f, m)
        obs[dice.OBS_DICE:dice.OBS_DICE + 3] = f
        a = sd.solo_discard(obs, row, common.legal_bits(legal))
        assert legal[a]
        after = row.copy()
        for i in range(3):
            if (a - DB) >> i & 1:
                after[f[i]] -= 1
        best = row - sv.best_discard(row, lrow, LAYOUT_NAMES[layout], f, score=score)
        solver = sv.get_solver(LAYOUT_NAMES[layout])
        assert abs(solver.value(after, lrow, score=score) - solver.value(best, lrow, score=score)) < 1e-9


# ----------------------------------------------------------------------------- strategies

def obs_for(row, dice_faces=(-1, -1, -1), phase=dice.PHASE_TURN, active=2):
    obs = np.zeros(dice.OBS_LEN, np.int64)
    obs[dice.OBS_ROWS:dice.OBS_ROWS + 7] = cards(row)  # seat 0's row: its hand (see decide)
    obs[dice.OBS_DICE:dice.OBS_DICE + 3] = dice_faces
    obs[dice.OBS_PHASE] = phase
    obs[dice.OBS_ACTIVE] = active
    obs[dice.OBS_LLAMA_ROW:dice.OBS_LLAMA_ROW + 7] = 1
    obs[dice.OBS_LAYOUT_ID] = LAYOUT_NAMES.index("12-34-56")
    return obs


def decide(spec, obs, legal=None):
    policy, params = player(spec)
    seat = obs[dice.OBS_SEAT]
    hand = obs[dice.OBS_ROWS + 7 * seat:dice.OBS_ROWS + 7 * seat + 7].copy()
    if legal is None:
        legal = np.zeros(dice.N_ACTIONS, np.uint8)
        if obs[dice.OBS_PHASE] == dice.PHASE_TURN:
            legal[[ROLL, QUIT]] = 1
        else:
            f = obs[dice.OBS_DICE:dice.OBS_DICE + 3]
            for m in range(1, 8):
                legal[DB + m] = dice.discard_legal(hand, *f, m)
    return int(policy(obs, hand, common.legal_bits(legal), params, rng.new_state(0)))


def test_threshold_quits_exactly_at_or_below_quit_at():
    assert decide("threshold", obs_for("4 6")) == QUIT  # 10 <= 10
    assert decide("threshold", obs_for("5 6")) == ROLL  # 11
    assert decide("threshold:quit_at=11", obs_for("5 6")) == QUIT
    assert decide("always_roll", obs_for("1")) == ROLL
    assert decide("always_quit", obs_for("1 2 3 4 5 6 L")) == QUIT


def test_always_roll_discards_all_it_can_and_takes_the_lowest_card():
    # roll 4 4 L with two 4s and a llama in the row: discard all three
    assert decide("always_roll", obs_for("4 4 L 6", (3, L, 3), dice.PHASE_DISCARD)) == DB + 0b111
    # one 4 only: one of the 4-dice plus the llama
    assert decide("always_roll", obs_for("4 L 6", (3, L, 3), dice.PHASE_DISCARD)) == DB + 0b011
    legal = np.zeros(dice.N_ACTIONS, np.uint8)
    legal[[TB + 4, TB + L]] = 1
    assert decide("always_roll", obs_for("1", (4, L, L), dice.PHASE_TAKE), legal) == TB + 4


def test_keep_llama_keeps_one_llama_when_it_can_discard_something_else():
    # Rosa's roll 1 3 L with 3 5 L: keep_llama discards the 3 only, threshold the 3 and the llama
    o = obs_for("3 5 L", (0, L, 2), dice.PHASE_DISCARD)
    assert decide("keep_llama", o) == DB + 0b100
    assert decide("threshold", o) == DB + 0b110
    # only the llama matches: it must be discarded
    assert decide("keep_llama", obs_for("3 5 L", (0, L, 3), dice.PHASE_DISCARD)) == DB + 0b010
    # the last other card goes: then the llama goes too (out)
    assert decide("keep_llama", obs_for("3 L", (0, L, 2), dice.PHASE_DISCARD)) == DB + 0b110
    # two llamas in the row, two llama dice: discard one llama, keep one (keep=2: keep both)
    assert decide("keep_llama", obs_for("5 6 L L", (L, L, 4), dice.PHASE_DISCARD)) == DB + 0b101
    assert decide("keep_llama:keep=2", obs_for("5 6 L L", (L, L, 4), dice.PHASE_DISCARD)) == DB + 0b100
    # 5 L L with L L 5 rolled: everything goes, the player goes out
    assert decide("keep_llama", obs_for("5 L L", (L, L, 4), dice.PHASE_DISCARD)) == DB + 0b111


def test_solo_optimal_uses_the_heuristic_until_alone():
    o = obs_for("2 5 L", active=3)
    assert decide("solo_optimal", o) == ROLL  # 17 > 10
    o = obs_for("1 2", active=3)
    assert decide("solo_optimal", o) == QUIT
    # alone with 2 5 L the optimum rolls; with a single 2 it quits
    assert decide("solo_optimal", obs_for("2 5 L", active=1)) == ROLL
    assert decide("solo_optimal", obs_for("2", active=1)) == QUIT


# ----------------------------------------------------------------------------- configuration

def test_every_layout_is_nameable_and_described():
    for i, name in enumerate(LAYOUT_NAMES):
        cfg = dice.RULE_SET.config(dice_layout=name)
        assert cfg[0] == i and np.array_equal(cfg[1:].reshape(3, 6), LAYOUTS[name])
        assert dice.RULE_SET.describe_config(cfg)["dice_layout"] == name
    assert dice.RULE_SET.config()[0] == LAYOUT_NAMES.index("12-34-56")
    assert np.array_equal(dice.RULE_SET.config(dice_layout="3456LL/1234LL/1256LL"), dice.RULE_SET.config())


@pytest.mark.parametrize("bad", ["12-34-57", "1234LL/1256LL", "1234LL/1234LL/5656LL", "", "123LLL/1256LL/3456LL"])
def test_invalid_layout_is_a_usage_error(bad):
    with pytest.raises(UsageError, match="invalid --dice-layout"):
        dice.RULE_SET.config(dice_layout=bad)
    with pytest.raises(UsageError, match="only the option --dice-layout"):
        dice.RULE_SET.config(deck_file="x.toml")


def test_impossible_positions_are_refused():
    with pytest.raises(UsageError, match="impossible"):
        dice.check_position([cards("2 2 2 2 2 2"), cards("2")], cards("2"))
    with pytest.raises(UsageError, match="llama row is empty"):
        dice.check_position([cards("2"), cards("3")], np.zeros(7))
    with pytest.raises(UsageError, match="someone must still be in"):
        dice.check_position([cards("2"), cards("3")], cards("L"), quit=[1, 1])
    with pytest.raises(UsageError, match="impossible"):
        dice.parse_solo_position("1 1 1 1 1 1 1", "1 2 3")
    with pytest.raises(UsageError, match="at most 8 cards"):
        dice.parse_solo_position("1 1 2 2 3 3 4 4 5", "1 2 3 4 5")


def test_threads_and_chunks_do_not_change_results():
    players = [registry.parse_spec("dice", s) for s in ["threshold", "random", "solo_optimal"]]
    plan = rotation_plan(dice.RULE_SET, 3, players, False, CFG)
    assert run(plan, 7, 0, 6000, threads=1, chunk=1000) == run(plan, 7, 0, 6000, threads=2, chunk=700)
    gplan = rotation_plan(dice.RULE_SET, 3, players, True, CFG)
    assert run(gplan, 7, 0, 40, threads=1) == run(gplan, 7, 0, 40, threads=2, chunk=7)
    rows = np.array([cards("2 5 L"), cards("1 1"), cards("6")])
    solo3 = [registry.parse_spec("dice", s) for s in ["solo_optimal", "threshold", "keep_llama"]]
    a, ea = dice.simulate_position(rows, cards("1 3 L"), solo3, 3000, seed=4, quit=[0, 0, 1], start=1)
    b, eb = dice.simulate_position(rows, cards("1 3 L"), solo3, 3000, seed=4, quit=[0, 0, 1], start=1, threads=2)
    assert a == b and np.array_equal(ea, eb) and ea.sum() == 3000
