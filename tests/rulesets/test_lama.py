"""L.A.M.A.: rulebook examples, kernel-vs-reference equality, properties, exact values."""
from math import comb

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from llama_sim.core import registry, rng, stats
from llama_sim.rulesets import lama
from llama_sim.core.errors import UsageError
from llama_sim.core.scoring import distinct_penalty, largest_token, legal_bits
from llama_sim.run.backends import run
from llama_sim.run.designs import rotation_plan, seat_plan

import shedding_helpers as helpers  # tests/shedding_helpers.py



L = lama.LLAMA
QUIT, DRAW = lama.QUIT, lama.DRAW


def player(spec):
    return helpers.player("lama", spec)


def scripted(actions):
    """A policy stand-in for the reference engine that replays a fixed list of actions."""
    it = iter(actions)

    def policy(obs, hand, legal, params, rng_state):
        return next(it)

    return policy, np.zeros(registry.MAX_PARAMS)


def counts(cards):
    c = np.zeros(lama.N_CODES, np.int64)
    for card in cards:
        c[card] += 1
    return c


# ----------------------------------------------------------------------------- rulebook examples

def test_victor_plays_a_6_and_judy_a_llama_on_it():
    assert lama.playable(5, L)  # llama on a 6
    assert lama.playable(L, L) and lama.playable(L, 0)  # llama or 1 on a llama
    assert not lama.playable(5, 0)  # a 1 is not playable on a 6
    assert not lama.playable(4, L)  # nor a llama on a 5
    assert lama.playable(2, 2) and lama.playable(2, 3) and not lama.playable(2, 4) and not lama.playable(2, 1)


def test_can_play_table_every_top_and_card():
    """Independent of ``playable``'s wording: on a 1..5 the same value or one higher; on a 6 a 6 or
    a llama; on a llama a llama or a 1. Nothing else, and the kernel's table says the same."""
    fits = {top: {c for c in range(lama.N_CODES) if lama.CAN_PLAY[top, c]} for top in range(lama.N_CODES)}
    for v in range(5):
        assert fits[v] == {v, v + 1}
    assert fits[5] == {5, L} and fits[L] == {L, 0}
    assert all(bool(lama.CAN_PLAY[t, c]) == lama.playable(t, c) for t in range(7) for c in range(7))


def test_judy_two_ones_and_a_llama_score_11():
    assert distinct_penalty(counts([0, 0, L]), lama.PENALTY) == 11
    assert distinct_penalty(counts([3, 3, L]), lama.PENALTY) == 14  # two 4s and a llama


def test_judy_returns_her_10_marker():
    assert largest_token(11, False) == 10
    assert largest_token(9, False) == 1
    assert largest_token(0, False) == 0
    assert largest_token(25, False) == 10  # no 20s in L.A.M.A.


def test_alone_judy_plays_3_and_two_4s_and_cannot_draw():
    """Jacques, Victor and Henri have quit; Judy plays her 3 and two 4s, then cannot go on."""
    hands = [[0, 0, L, 2, 3, 3], [5], [4], [1]]
    r = lama.Round(hands=[list(h) for h in hands], draw_pile=[1, 1, 1], discard=[2], players=[None] * 4,
                   scores=[0] * 4, quit=[False, True, True, True])
    assert r.legal(0)[DRAW] == 0  # alone: no drawing although the pile has cards
    r.players = [scripted([2, 3, 3, QUIT])] + [None] * 3
    result = r.play()
    assert [a for _, a in result.actions] == [2, 3, 3, QUIT]
    assert result.penalties[0] == 11 and result.out_seat == -1


def test_drawing_ends_the_turn_then_alone_player_plays_and_quits():
    hands = [[1], [4, 4], [4]]
    r = lama.Round(hands=[list(h) for h in hands], draw_pile=[5], discard=[0],
                   players=[scripted([DRAW, 1, QUIT]), scripted([QUIT]), scripted([QUIT])], scores=[0] * 3)
    res = r.play()
    # Seat 0 draws (and may not play that turn), the others quit, seat 0 alone plays its 2 on the 1;
    # its 6 does not fit on a 2 and the pile is empty, so it quits.
    assert res.actions == [(0, DRAW), (1, QUIT), (2, QUIT), (0, 1), (0, QUIT)]
    assert list(res.penalties) == [6, 5, 5] and res.out_seat == -1 and res.last_card_seat == 0


def test_draw_only_while_the_pile_has_cards_and_quitting_always_allowed():
    hands = [[1, 5], [4, 4], [3]]
    r = lama.Round(hands=[list(h) for h in hands], draw_pile=[], discard=[0], players=[None] * 3, scores=[0] * 3)
    legal = r.legal(0)
    assert legal[DRAW] == 0  # the pile ran out: no drawing, though two others are still in
    assert legal[1] == 1 and legal[QUIT] == 1  # quitting is offered although the 2 fits on the 1
    r.draw_pile = [2]
    assert r.legal(0)[DRAW] == 1


def test_round_ends_at_once_on_last_card():
    hands = [[1], [1, 2], [5]]
    r = lama.Round(hands=[list(h) for h in hands], draw_pile=[3, 3], discard=[0],
                   players=[scripted([1]), scripted([]), scripted([])], scores=[0, 7, 12])
    res = r.play()
    assert res.actions == [(0, 1)] and res.out_seat == 0
    assert list(res.penalties) == [0, 5, 6]


def test_everyone_quitting_ends_the_round():
    hands = [[5], [5], [5]]
    r = lama.Round(hands=[list(h) for h in hands], draw_pile=[], discard=[0],
                   players=[scripted([QUIT]) for _ in range(3)], scores=[0] * 3)
    res = r.play()
    assert [a for _, a in res.actions] == [QUIT] * 3 and list(res.penalties) == [6, 6, 6]


# ----------------------------------------------------------------------------- kernel vs reference

# Every built-in L.A.M.A. strategy (read from the registry, so a new one is checked without listing it
# here) and some non-default parameter values.
SPECS = [s.name for s in registry.strategies_for("lama") if s.source.startswith("llama_sim.strategies")] + [
    "threshold:quit_at=3", "smart:quit_at=9,ten_quit_at=2", "climber:min_opponents=1,same=1,far_up=1.5"]


def kernel_round(deck, specs, prng_seed, start=0):
    return helpers.kernel_round(lama, deck, specs, prng_seed, start)


def reference_round(deck, specs, prng_seed, start=0):
    return helpers.reference_round(lama, deck, specs, prng_seed, start)


@given(seed=st.integers(0, 2**32), n=st.integers(2, 6), start=st.integers(0, 5),
       mix=st.lists(st.sampled_from(SPECS), min_size=6, max_size=6))
def test_kernel_equals_reference_on_fixed_decks(seed, n, start, mix):
    deck = lama.DECK.copy()
    rng.shuffle(deck, rng.new_state(seed))
    specs = mix[:n]
    k = kernel_round(deck, specs, seed, start % n)
    r = reference_round(deck, specs, seed, start % n)
    assert k["actions"] == [tuple(a) for a in r.actions]
    assert np.array_equal(k["hands"], r.hands)
    assert k["out"] == r.out_seat and k["last_card"] == r.last_card_seat and k["last_actor"] == r.last_actor
    assert np.array_equal(k["quit"], r.quit) and k["left"] == r.draw_pile_left


@pytest.mark.parametrize("games_mode,blocks", [(False, 300), (True, 20)])
def test_kernel_tallies_equal_reference_tallies(games_mode, blocks):
    players = [registry.parse_spec("lama", s) for s in ["greedy", "random", "threshold:quit_at=5", "smart"]]
    plan = rotation_plan(lama.RULE_SET, 4, players, games_mode, np.zeros(1, np.int64))
    tally = run(plan, 99, 0, blocks, threads=1)
    d = tally.s1.shape[0]
    s1, s2 = np.zeros(d, np.int64), np.zeros((d, d), np.int64)
    lama.reference_blocks(99, 0, blocks, 4, plan.entry_of_seat, plan.unit_of_seat, len(players), games_mode,
                          [(p.strategy.policy, p.params) for p in plan.entries], plan.cfg, s1, s2)
    assert np.array_equal(tally.s1, s1) and np.array_equal(tally.s2, s2)


def test_kernel_game_equals_reference_game():
    specs = ["greedy", "random", "threshold", "smart"]
    players = [registry.parse_spec("lama", s) for s in specs]
    policies, slots = registry.policy_tuple(players)
    params = np.array([p.params for p in players])
    for block in range(10):
        d1, p1 = rng.new_state(5, block, 0), rng.new_state(5, block, 1)
        d2, p2 = d1.copy(), p1.copy()
        pen, out, qu, fin = (np.zeros(4, np.int64) for _ in range(4))
        rounds = lama.play_game_entry(4, policies, slots, params, np.arange(4), d1, p1, pen, out, qu, fin)
        ref = lama.reference_game([player(s) for s in specs], d2, p2)
        assert rounds == len(ref.rounds)
        assert list(fin) == list(ref.final) and list(pen) == list(ref.penalty)
        assert list(out) == list(ref.went_out) and list(qu) == list(ref.quit)
        assert max(fin) >= 40 and max(s for s in ref.final) >= 40


# ----------------------------------------------------------------------------- properties

@given(seed=st.integers(0, 2**32), n=st.integers(2, 6), mix=st.lists(st.sampled_from(SPECS), min_size=6, max_size=6))
def test_round_properties(seed, n, mix):
    deck = lama.DECK.copy()
    rng.shuffle(deck, rng.new_state(seed, 1))
    specs = mix[:n]
    res = reference_round(deck, specs, seed)
    # Replay the actions on a fresh round and check every one was legal when taken.
    hands, pile, discard = lama.deal(deck, n)
    replay = lama.Round(hands, pile, discard, [scripted([a for s, a in res.actions if s == seat]) for seat in range(n)],
                        [0] * n)
    seen = []
    for seat, action in res.actions:
        assert replay.legal(seat)[action] == 1
        seen.append((seat, action))
        if action == QUIT:
            replay.quit[seat] = True
        elif action == DRAW:
            replay.hands[seat].append(replay.draw_pile.pop(0))
        else:
            replay.hands[seat].remove(action)
            replay.discard.append(action)
    # Conservation: hands + discard pile + draw pile = the 56 cards, eight of each.
    total = res.hands.sum(axis=0) + counts(replay.discard) + counts(replay.draw_pile)
    assert list(total) == [8] * 7
    assert res.hands.sum() + len(replay.discard) + res.draw_pile_left == 56
    # Scores: 0 for the player who went out, distinct-value sum otherwise, within 0..31.
    for s in range(n):
        expected = 0 if s == res.out_seat else sum(lama.PENALTY[c] for c in range(7) if res.hands[s, c] > 0)
        assert res.penalties[s] == expected and 0 <= res.penalties[s] <= 31
        if s != res.out_seat:
            assert res.hands[s].sum() > 0
    # The round ended on one of the two conditions.
    assert res.out_seat >= 0 or all(res.quit)


# ----------------------------------------------------------------------------- exact values

def test_always_quit_four_players_mean_penalty_is_exact():
    """31 x (1 - C(48,6)/C(56,6)) = 19.2835: each value is held with probability 1 - C(48,6)/C(56,6).

    The pooled estimate (all four seats of every deal, one unit, intervals over deals) must hold the
    exact value in its 95% interval; each seat's own estimate in its 99.9% interval (four intervals
    at once: a 95% check per seat would fail one run in five by chance alone)."""
    exact = 31 * (1 - comb(48, 6) / comb(56, 6))
    assert abs(exact - 19.2835) < 1e-4
    quitter = registry.parse_spec("lama", "always_quit")
    pooled_plan = rotation_plan(lama.RULE_SET, 4, [quitter], False, np.zeros(1, np.int64))
    pooled = stats.estimate(run(pooled_plan, 2024, 0, 20_000, threads=2), "penalty_per_round", 0)
    assert pooled.ci_low <= exact <= pooled.ci_high and pooled.n == 4 * 4 * 20_000
    plan = seat_plan(lama.RULE_SET, [quitter] * 4, False, np.zeros(1, np.int64))
    tally = run(plan, 2024, 0, 40_000, threads=2)
    for u in range(4):
        est = stats.estimate(tally, "penalty_per_round", u, level=0.999)
        assert est.ci_low <= exact <= est.ci_high
    assert tally.s1[4:8].sum() == 0  # nobody ever goes out
    assert tally.s1[8:12].sum() == 4 * tally.blocks  # everybody quits


def test_always_quit_starter_quits_first_and_others_follow():
    deck = lama.DECK.copy()
    k = kernel_round(deck, ["always_quit"] * 3, 0, start=2)
    assert k["actions"] == [(2, QUIT), (0, QUIT), (1, QUIT)] and k["last_card"] == -1 and k["last_actor"] == 1


def test_next_round_starter_is_last_player_to_play_a_card():
    """In a full game, round r+1's first actor is round r's last card player (or last actor)."""
    specs = ["greedy", "threshold", "random"]
    ref = lama.reference_game([player(s) for s in specs], rng.new_state(3, 0, 0), rng.new_state(3, 0, 1))
    for prev, nxt in zip(ref.rounds, ref.rounds[1:]):
        expected = prev.last_card_seat if prev.last_card_seat >= 0 else prev.last_actor
        assert nxt.actions[0][0] == expected


def test_threads_do_not_change_results():
    players = [registry.parse_spec("lama", s) for s in ["greedy", "random"]]
    plan = rotation_plan(lama.RULE_SET, 3, players, False, np.zeros(1, np.int64))
    a = run(plan, 7, 0, 9000, threads=1, chunk=1000)
    b = run(plan, 7, 0, 9000, threads=2, chunk=700)
    assert a == b
    gplan = rotation_plan(lama.RULE_SET, 3, players, True, np.zeros(1, np.int64))
    assert run(gplan, 7, 0, 50, threads=1) == run(gplan, 7, 0, 50, threads=2, chunk=7)


def test_illegal_policy_action_is_refused_by_kernel(tmp_path):
    src = tmp_path / "bad.py"
    src.write_text(
        "from llama_sim.core.registry import strategy\n"
        "@strategy('lama', 'always_draw_test', 'draws even when it may not')\n"
        "def always_draw_test(obs, hand, legal, params, rng):\n"
        "    return 7\n")
    registry.load_file(src)
    players = [registry.parse_spec("lama", "always_draw_test"), registry.parse_spec("lama", "always_quit")]
    plan = seat_plan(lama.RULE_SET, players, False, np.zeros(1, np.int64))
    with pytest.raises(UsageError, match=r"^strategy 'always_draw_test' \(seat 0\) chose an illegal action: draw, having seen seat 0 of .*; legal: [^;]+$"):
        run(plan, 1, 0, 10, threads=1)


# ----------------------------------------------------------------------------- the climber heuristic's intent

def decide(spec, hand, top, sizes=(6, 6, 6, 6), quit=(0, 0, 0, 0), pile=10, score=0):
    """What a L.A.M.A. strategy does at seat 0 in a typed-in position (own score ``score``)."""
    n = len(sizes)
    r = lama.Round([list(hand)] + [[0] * sizes[s] for s in range(1, n)], [0] * pile, [top], [None] * n,
                   [score] + [0] * (n - 1), quit=[bool(q) for q in quit])
    policy, params = player(spec)
    return int(policy(r.observe(0), r.hand(0), legal_bits(r.legal(0)), params, rng.new_state(0)))


def test_climber_moves_the_top_up_when_it_holds_more_cards_above_than_at_it():
    # On a 3 holding 3 4 4 5: n(+1) + two_up n(+2) = 2 + 1 = 3 > same * n(0) = 2: climber plays a 4, smart the 3.
    assert decide("climber", [2, 3, 3, 4], top=2) == 3
    assert decide("smart", [2, 3, 3, 4], top=2) == 2
    assert decide("climber", [2, 3, 3], top=2) == 2  # 2 is not more than 2
    assert decide("climber", [2, 3, 3, 5], top=2) == 3  # a 6 three above adds far_up = 0.3
    assert decide("climber", [2, 2, 3, 3, 4], top=2) == 2  # two 3s: 3 is not more than 4
    assert decide("climber", [5, L, L, 0], top=5) == L  # the cycle wraps: llamas one above a 6, 1s two above
    assert decide("climber", [L, 0, 0, 1], top=L) == 0  # on a llama: a 1 rather than the llama
    assert decide("climber", [2, 3, 3, 4], top=2, quit=(0, 1, 0, 0)) == 2  # two opponents in: smart's 3
    assert decide("climber", [0, 1], top=4) == QUIT and decide("climber", [L, 1], top=4) == DRAW  # smart's quits


@given(seed=st.integers(0, 2**32), n=st.integers(2, 3))
def test_climber_plays_exactly_like_smart_at_two_and_three_players(seed, n):
    deck = lama.DECK.copy()
    rng.shuffle(deck, rng.new_state(seed, 1))
    assert reference_round(deck, ["climber"] * n, seed).actions == reference_round(deck, ["smart"] * n, seed).actions
