"""L.A.M.A. Party Edition: rulebook examples and every edge, kernel-vs-reference equality,
properties, the exact ``always_quit`` value, and the ``chain`` and ``climber`` heuristics' intent."""
from collections import Counter
from math import comb

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from llama_sim.core import registry, rng, stats
from llama_sim.core.errors import UsageError
from llama_sim.rulesets import lama, party, shedding
from llama_sim.core.scoring import largest_token, legal_bits
from llama_sim.run.backends import run
from llama_sim.run.designs import rotation_plan, seat_plan
from llama_sim.strategies import party as pstrat

import shedding_helpers as helpers  # tests/shedding_helpers.py

P, L, PINK = party.PLUS, party.LLAMA, party.PINK  # P + v - 1 is the plus card of value v
QUIT, DRAW = party.QUIT, party.DRAW


def player(spec):
    return helpers.player("party", spec)


def scripted(actions, seen=None):
    """A policy stand-in for the reference engine that replays a fixed list of actions
    (and records the legal masks it was offered in ``seen``)."""
    it = iter(actions)

    def policy(obs, hand, legal, params, rng_state):
        if seen is not None:
            seen.append(np.array([(legal >> a) & 1 for a in range(party.N_ACTIONS)]))
        return next(it)

    return policy, np.zeros(registry.MAX_PARAMS)


def counts(cards):
    c = np.zeros(party.N_CODES, np.int64)
    for card in cards:
        c[card] += 1
    return c


def value_of(code):
    return code + 1 if code < L else code - P + 1


# ----------------------------------------------------------------------------- the deck and the tables

def test_deck_has_56_cards_seven_each_plus_cards_llamas_and_one_pink():
    got = Counter(int(c) for c in party.DECK)
    assert len(party.DECK) == 56
    assert all(got[v] == 7 for v in range(6)) and got[L] == 7
    assert all(got[P + v] == 1 for v in range(6)) and got[PINK] == 1


def test_can_play_table_counts_per_top_card():
    """Independent of ``playable``'s wording: what fits on each kind of top card."""
    fits = {top: {c for c in range(party.N_CODES) if party.CAN_PLAY[top, c]} for top in range(party.N_CODES)}
    for v in range(5):  # on a 1..5 (normal or plus): v, v+1, +v, +(v+1), pink
        expected = {v, v + 1, P + v, P + v + 1, PINK}
        assert fits[v] == expected and fits[P + v] == expected
    assert fits[5] == fits[P + 5] == {5, L, P + 5, PINK}  # on a 6: 6, +6, a llama, pink
    assert fits[L] == fits[PINK] == {L, 0, P, PINK}  # on any llama: a llama or a 1 (normal or plus)
    assert party.EXTRA_TURN.tolist() == [0] * 7 + [1] * 6 + [0]
    assert lama.CAN_PLAY.sum() == 14 and lama.EXTRA_TURN.sum() == 0  # L.A.M.A. has no plus or pink cards


def test_brad_plays_a_6_and_janet_a_llama_on_it():
    assert party.playable(5, L)
    assert not party.playable(5, 0)  # she could not play a 1 on the 6


def test_plus_card_is_played_like_its_value():
    assert party.playable(2, P + 2) and party.playable(2, P + 3) and not party.playable(2, P + 4)
    assert party.playable(P + 2, 2) and party.playable(P + 2, 3) and not party.playable(P + 2, 4)
    assert party.playable(P + 2, P + 3) and not party.playable(P + 2, 1)
    assert party.playable(L, P) and party.playable(PINK, P)  # a plus 1 goes on a llama like a 1


def test_pink_llama_goes_on_any_card_and_only_a_llama_or_a_1_on_it():
    assert all(party.playable(top, PINK) for top in range(party.N_CODES))
    on_pink = [c for c in range(party.N_CODES) if c != PINK and party.playable(PINK, c)]
    assert sorted(on_pink) == [0, L, P]


def test_normal_llama_needs_a_6_or_a_llama_below_it():
    assert party.playable(5, L) and party.playable(P + 5, L) and party.playable(L, L) and party.playable(PINK, L)
    assert not party.playable(4, L) and not party.playable(P + 4, L)  # never on a 5, plus card or not


# ----------------------------------------------------------------------------- scoring and tokens

def test_janet_two_ones_and_a_llama_score_11():
    assert party.score([0, 0, L]) == 11
    assert party.hand_penalty(counts([0, 0, L])) == 11


def test_plus_card_counts_as_its_value_only_once():
    assert party.score([3, 3, P + 3]) == 4 and party.score([P + 3]) == 4 and party.score([3, P + 4]) == 9


def test_pink_llama_makes_all_llamas_count_20_once():
    assert party.score([L]) == 10 and party.score([L, L, L]) == 10
    assert party.score([PINK]) == 20 and party.score([L, L, PINK]) == 20
    assert party.score([0, P, 5, P + 5, L, PINK]) == 27


def test_rocky_quits_with_three_5s_and_scores_5():
    assert party.score([4, 4, 4]) == 5


@given(st.lists(st.sampled_from([int(c) for c in party.DECK]), max_size=14))
def test_kernel_scoring_equals_readable_scoring(cards):
    hand = counts(cards)
    assert party.hand_penalty(hand) == party.score(cards)
    # and the same from the definition: distinct values, llamas 10 or 20 with pink
    values = {value_of(c) for c in cards if c not in (L, PINK)}
    llamas = 0 if not ({L, PINK} & set(cards)) else (20 if PINK in cards else 10)
    assert party.score(cards) == sum(values) + llamas


def test_janet_returns_her_20_token():
    """Janet holds two 1s, a 10 and a 20 (32 points), plays her last card and returns the 20."""
    assert largest_token(32, True) == 20
    assert largest_token(19, True) == 10 and largest_token(9, True) == 1 and largest_token(0, True) == 0
    assert largest_token(32, False) == 10  # L.A.M.A. has no 20s


def replay_scores(game):
    """Scores from the round results, tokens returned by the Party rule (20 allowed)."""
    scores = np.zeros(len(game.final), np.int64)
    returned = []
    for r in game.rounds:
        scores += r.penalties
        if r.out_seat >= 0:
            back = 20 if scores[r.out_seat] >= 20 else 10 if scores[r.out_seat] >= 10 else min(1, scores[r.out_seat])
            returned.append(back)
            scores[r.out_seat] -= back
    return scores, returned


def test_games_return_20_tokens_and_start_with_the_last_player_to_act():
    specs = ["chain", "greedy", "threshold:quit_at=12"]
    returned20 = starter_differs = 0
    for block in range(30):
        g = party.reference_game([player(s) for s in specs], rng.new_state(11, block, 0), rng.new_state(11, block, 1))
        scores, returned = replay_scores(g)
        assert list(scores) == list(g.final) and max(g.final) >= 40
        returned20 += returned.count(20)
        for prev, nxt in zip(g.rounds, g.rounds[1:]):
            assert nxt.actions[0][0] == prev.last_actor  # even when the last actor quit
            starter_differs += prev.last_card_seat not in (-1, prev.last_actor)
    assert returned20 > 0 and starter_differs > 0  # both rules were exercised, not just allowed


# ----------------------------------------------------------------------------- plus cards

def test_plus_card_gives_another_turn_that_may_draw():
    hands = [[P + 2, 2, 5, 5], [4, 4], [4, 4]]
    seen = []
    r = party.Round(hands=[list(h) for h in hands], draw_pile=[1, 1], discard=[P + 1],
                    players=[scripted([P + 2, DRAW, QUIT], seen), scripted([QUIT]), scripted([QUIT])],
                    scores=[0] * 3)
    res = r.play()
    assert res.actions[:3] == [(0, P + 2), (0, DRAW), (1, QUIT)]
    assert seen[1][DRAW] == 1 and seen[1][2] == 1  # the extra turn offered the draw and the 3 on the +3
    assert sorted(r.hands[0]) == [1, 2, 5, 5]


def test_plus_card_extra_turn_may_play_again_and_chain():
    hands = [[P + 2, P + 3, 3, 5], [4, 4]]
    r = party.Round(hands=[list(h) for h in hands], draw_pile=[1], discard=[2],
                    players=[scripted([P + 2, P + 3, 3, QUIT]), scripted([QUIT])], scores=[0, 0])
    res = r.play()
    assert res.actions == [(0, P + 2), (0, P + 3), (0, 3), (1, QUIT), (0, QUIT)]


def test_plus_card_as_the_last_card_ends_the_round_at_once():
    hands = [[P + 2], [4, 4], [0]]
    r = party.Round(hands=[list(h) for h in hands], draw_pile=[1, 1], discard=[2],
                    players=[scripted([P + 2]), scripted([]), scripted([])], scores=[25, 3, 0])
    res = r.play()
    assert res.actions == [(0, P + 2)] and res.out_seat == 0 and list(res.penalties) == [0, 5, 1]


def test_plus_card_extra_turn_also_when_alone_but_no_drawing():
    hands = [[P + 3, 3, L], [5], [5]]
    seen = []
    r = party.Round(hands=[list(h) for h in hands], draw_pile=[1, 1], discard=[3], quit=[False, True, True],
                    players=[scripted([P + 3, 3, QUIT], seen), None, None], scores=[0] * 3)
    res = r.play()
    assert res.actions == [(0, P + 3), (0, 3), (0, QUIT)]
    assert all(m[DRAW] == 0 for m in seen)  # alone: never a draw, not even in the extra turn
    assert list(res.penalties) == [10, 6, 6]


def test_normal_llama_not_playable_on_a_5_even_after_a_plus_card():
    hands = [[P + 4, L, 4, 0], [1]]
    seen = []
    r = party.Round(hands=[list(h) for h in hands], draw_pile=[1], discard=[4],
                    players=[scripted([P + 4, 4, QUIT], seen), scripted([QUIT])], scores=[0, 0])
    res = r.play()
    assert seen[0][L] == 0 and seen[1][L] == 0  # on the 5, then on the +5 in the extra turn
    assert seen[1][4] == 1
    assert res.actions[:2] == [(0, P + 4), (0, 4)]


def test_pink_llama_on_a_3_then_a_1_on_it():
    hands = [[PINK, 4], [0, 3, 5]]
    seen = []
    r = party.Round(hands=[list(h) for h in hands], draw_pile=[5, 5], discard=[2],
                    players=[scripted([PINK, QUIT]), scripted([0, QUIT], seen)], scores=[0, 0])
    res = r.play()
    assert res.actions[:2] == [(0, PINK), (1, 0)]
    assert [a for a in range(party.N_CODES) if seen[0][a]] == [0]  # on the pink llama: the 1, not the 4 or 6
    # The kernel, from the same position with greedy players, plays it the same way.
    k = kernel_from_state([[PINK, 4], [0, 3, 5]], [5, 5], [2], [False, False], 0, ["greedy", "greedy"])
    assert k["actions"][:2] == [(0, PINK), (1, 0)]


def test_alone_janet_plays_3_and_two_4s_and_cannot_play_her_llama():
    """Rocky, Frank and Brad have quit; Janet plays her 3 and her two 4s, but not her llama."""
    hands = [[2, 3, 3, L], [4, 4, 4], [1], [1]]
    seen = []
    r = party.Round(hands=[list(h) for h in hands], draw_pile=[1, 1, 1], discard=[1], quit=[False, True, True, True],
                    players=[scripted([2, 3, 3, QUIT], seen), None, None, None], scores=[0] * 4)
    res = r.play()
    assert [a for _, a in res.actions] == [2, 3, 3, QUIT]
    assert seen[-1][L] == 0 and seen[-1][DRAW] == 0
    assert res.penalties[0] == 10 and res.out_seat == -1


# ----------------------------------------------------------------------------- kernel vs reference

# Every built-in Party strategy (read from the registry, so a new one is checked without listing it
# here) and some non-default parameter values.
SPECS = [s.name for s in registry.strategies_for("party") if s.source.startswith("llama_sim.strategies")] + [
    "threshold:quit_at=3", "chain:quit_at=15,pink_danger=4", "climber:min_opponents=1,same=1,far_up=1.5,plus_first=0"]


def kernel_from_state(hands_list, pile, discard_list, quit_list, start, specs, prng_seed=0, scores=None):
    """Run the kernel's ``play_round`` from an arbitrary position (not only a fresh deal)."""
    n = len(specs)
    players = [registry.parse_spec("party", s) for s in specs]
    policies, slots = registry.policy_tuple(players)
    params = np.array([p.params for p in players])
    hands = np.array([counts(h) for h in hands_list], dtype=np.int64)
    deck = np.array(pile, dtype=np.int8)
    discard = counts(discard_list)
    quit = np.array(quit_list, dtype=np.int64)
    obs = np.zeros(party.OBS_LEN, np.int64)
    log = np.zeros((party.LOG_CAPACITY, 2), np.int64)
    prng = rng.new_state(prng_seed, 0, rng.POLICY_STREAM)
    out, last_card, last_actor, k, pos = party.play_round_entry(
        n, hands, deck, 0, discard_list[-1], discard, quit, start,
        np.array(scores or [0] * n, np.int64), policies, slots, params, np.arange(n, dtype=np.int64),
        prng, obs, log)
    return dict(actions=[tuple(x) for x in log[:k].tolist()], hands=hands, out=out, quit=quit,
                last_card=last_card, last_actor=last_actor, left=deck.shape[0] - pos, discard=discard)


def kernel_round(deck, specs, prng_seed, start=0):
    return helpers.kernel_round(party, deck, specs, prng_seed, start)


def reference_round(deck, specs, prng_seed, start=0):
    return helpers.reference_round(party, deck, specs, prng_seed, start)


def assert_same_round(k, r):
    assert k["actions"] == [tuple(a) for a in r.actions]
    assert np.array_equal(k["hands"], r.hands)
    assert k["out"] == r.out_seat and k["last_card"] == r.last_card_seat and k["last_actor"] == r.last_actor
    assert np.array_equal(k["quit"], r.quit) and k["left"] == r.draw_pile_left


@given(seed=st.integers(0, 2**32), n=st.integers(2, 6), start=st.integers(0, 5),
       mix=st.lists(st.sampled_from(SPECS), min_size=6, max_size=6))
def test_kernel_equals_reference_on_fixed_decks(seed, n, start, mix):
    deck = party.DECK.copy()
    rng.shuffle(deck, rng.new_state(seed))
    specs = mix[:n]
    assert_same_round(kernel_round(deck, specs, seed, start % n), reference_round(deck, specs, seed, start % n))


@given(seed=st.integers(0, 2**32), n=st.integers(2, 5), cut=st.integers(0, 30),
       mix=st.lists(st.sampled_from(SPECS), min_size=5, max_size=5))
def test_kernel_equals_reference_from_mid_round_positions(seed, n, cut, mix):
    """Play ``cut`` actions with the reference, then continue from that position with both engines."""
    deck = party.DECK.copy()
    rng.shuffle(deck, rng.new_state(seed, 3))
    specs = mix[:n]
    full = reference_round(deck, specs, seed)
    prefix = full.actions[:cut]
    hands, pile, discard = party.deal(deck, n)
    quit = [False] * n
    for seat, a in prefix:  # replay the prefix by hand: the position after it
        if a == QUIT:
            quit[seat] = True
        elif a == DRAW:
            hands[seat].append(pile.pop(0))
        else:
            hands[seat].remove(a)
            discard.append(a)
    if all(quit) or any(not h for h in hands):
        return  # the round was over after the prefix
    seat, a = prefix[-1] if prefix else (n - 1, DRAW)
    nxt = seat if (0 <= a < party.N_CODES and party.EXTRA_TURN[a]) else (seat + 1) % n  # whose turn
    k = kernel_from_state([list(h) for h in hands], list(pile), list(discard), quit, nxt, specs, seed + 1)
    prng = rng.new_state(seed + 1, 0, rng.POLICY_STREAM)
    r = party.Round([list(h) for h in hands], list(pile), list(discard), [player(s) for s in specs], [0] * n,
                    start=nxt, quit=list(quit), prng=prng).play()
    assert_same_round(k, r)


@pytest.mark.parametrize("games_mode,blocks", [(False, 300), (True, 20)])
def test_kernel_tallies_equal_reference_tallies(games_mode, blocks):
    players = [registry.parse_spec("party", s) for s in ["greedy", "random", "chain", "threshold:quit_at=5"]]
    plan = rotation_plan(party.RULE_SET, 4, players, games_mode, np.zeros(1, np.int64))
    tally = run(plan, 99, 0, blocks, threads=1)
    d = tally.s1.shape[0]
    s1, s2 = np.zeros(d, np.int64), np.zeros((d, d), np.int64)
    party.reference_blocks(99, 0, blocks, 4, plan.entry_of_seat, plan.unit_of_seat, len(players), games_mode,
                           [(p.strategy.policy, p.params) for p in plan.entries], plan.cfg, s1, s2)
    assert np.array_equal(tally.s1, s1) and np.array_equal(tally.s2, s2)


def test_kernel_game_equals_reference_game():
    specs = ["greedy", "random", "chain"]
    players = [registry.parse_spec("party", s) for s in specs]
    policies, slots = registry.policy_tuple(players)
    params = np.array([p.params for p in players])
    for block in range(10):
        d1, p1 = rng.new_state(5, block, 0), rng.new_state(5, block, 1)
        d2, p2 = d1.copy(), p1.copy()
        pen, out, qu, fin = (np.zeros(3, np.int64) for _ in range(4))
        rounds = party.play_game_entry(3, policies, slots, params, np.arange(3), d1, p1, pen, out, qu, fin)
        ref = party.reference_game([player(s) for s in specs], d2, p2)
        assert rounds == len(ref.rounds)
        assert list(fin) == list(ref.final) and list(pen) == list(ref.penalty)
        assert list(out) == list(ref.went_out) and list(qu) == list(ref.quit)



# ----------------------------------------------------------------------------- rule variants

VARIANTS = [{"pink_llama": "plain"}, {"plus_cards": "plain"}, {"pink_llama": "plain", "plus_cards": "plain"}]


def test_variant_decks_replace_the_special_cards_by_ordinary_ones():
    pink = Counter(int(c) for c in party.variant_deck(pink_llama="plain"))
    plus = Counter(int(c) for c in party.variant_deck(plus_cards="plain"))
    both = Counter(int(c) for c in party.variant_deck("plain", "plain"))
    assert pink[L] == 8 and pink[PINK] == 0 and all(pink[P + v] == 1 for v in range(6))
    assert all(plus[v] == 8 and plus[P + v] == 0 for v in range(6)) and plus[PINK] == 1 and plus[L] == 7
    assert both == Counter({**{v: 8 for v in range(6)}, L: 8})
    for options in [{}] + VARIANTS:
        index = int(party.RULE_SET.config(**options)[0])
        assert np.array_equal(party.VARIANT_DECKS[index], party.variant_deck(**options))
        assert len(party.VARIANT_DECKS[index]) == 56
    # the same position of the deck holds the same card but for the replaced ones
    changed = party.VARIANT_DECKS[3] != party.DECK
    assert np.array_equal(party.DECK[changed], [P + v for v in range(6)] + [PINK])


@pytest.mark.parametrize("options", VARIANTS)
@pytest.mark.parametrize("games_mode,blocks", [(False, 150), (True, 12)])
def test_kernel_tallies_equal_reference_tallies_under_every_variant(options, games_mode, blocks):
    players = [registry.parse_spec("party", s) for s in ["greedy", "random", "chain", "threshold:quit_at=5"]]
    cfg = party.RULE_SET.config(**options)
    plan = rotation_plan(party.RULE_SET, 4, players, games_mode, cfg)
    tally = run(plan, 97, 0, blocks, threads=1)
    d = tally.s1.shape[0]
    s1, s2 = np.zeros(d, np.int64), np.zeros((d, d), np.int64)
    party.reference_blocks(97, 0, blocks, 4, plan.entry_of_seat, plan.unit_of_seat, len(players), games_mode,
                           [(p.strategy.policy, p.params) for p in plan.entries], plan.cfg, s1, s2)
    assert np.array_equal(tally.s1, s1) and np.array_equal(tally.s2, s2)
    base = run(rotation_plan(party.RULE_SET, 4, players, games_mode, party.RULE_SET.config()), 97, 0, blocks, threads=1)
    assert not np.array_equal(base.s1, tally.s1)  # the variant is really played


def test_reference_variant_rounds_play_the_variant_rules():
    """Plus cards plain: a 3 (once a +3) gives no extra turn; pink plain: the llama (once pink) needs a 6."""
    rules = party.variant_round(party.RULE_SET.config(plus_cards="plain")).rules
    assert rules.deck.tolist().count(2) == 8 and not any(party.is_plus(c) for c in rules.deck)
    rules = party.variant_round(party.RULE_SET.config(pink_llama="plain")).rules
    assert rules.deck.tolist().count(L) == 8 and PINK not in rules.deck.tolist()
    assert party.variant_round(party.RULE_SET.config()) is party.Round


def exact_always_quit_pink_plain():
    """Pink llama plain: every value 1..6 and the llama has 8 of 56 cards and counts once (llamas 10)."""
    p = 1 - comb(48, 6) / comb(56, 6)
    return (21 + 10) * p


def test_always_quit_mean_penalty_is_exact_under_the_variants():
    exact = {"rulebook": always_quit_exact(), "pink": exact_always_quit_pink_plain()}
    assert abs(exact["pink"] - 19.2835) < 1e-4
    players = [registry.parse_spec("party", "always_quit")] * 3
    for options, value in [({"pink_llama": "plain"}, exact["pink"]), ({"plus_cards": "plain"}, exact["rulebook"]),
                           ({"pink_llama": "plain", "plus_cards": "plain"}, exact["pink"])]:
        tally = run(seat_plan(party.RULE_SET, players, False, party.RULE_SET.config(**options)), 2025, 0, 20_000, threads=2)
        est = stats.estimate(tally, "penalty_per_round", 0)
        assert est.ci_low <= value <= est.ci_high, (options, est)
        assert abs(tally.s1[:3].sum() / (3 * tally.blocks) - value) < 0.1


@pytest.mark.parametrize("options,message", [({"pink_llama": "none"}, "--pink-llama must be one of rulebook, plain"),
                                             ({"plus_cards": "off"}, "--plus-cards must be one of rulebook, plain"),
                                             ({"magic_show": "off"}, "party takes only")])
def test_bad_variant_options_are_usage_errors(options, message):
    with pytest.raises(UsageError, match=message):
        party.RULE_SET.config(**options)

# ----------------------------------------------------------------------------- properties

@given(seed=st.integers(0, 2**32), n=st.integers(2, 6), mix=st.lists(st.sampled_from(SPECS), min_size=6, max_size=6))
def test_round_properties(seed, n, mix):
    deck = party.DECK.copy()
    rng.shuffle(deck, rng.new_state(seed, 1))
    specs = mix[:n]
    res = reference_round(deck, specs, seed)
    hands, pile, discard = party.deal(deck, n)
    replay = party.Round(hands, pile, discard, [None] * n, [0] * n)
    for i, (seat, action) in enumerate(res.actions):
        assert replay.legal(seat)[action] == 1  # every action was legal when taken
        if action == QUIT:
            replay.quit[seat] = True
        elif action == DRAW:
            replay.hands[seat].append(replay.draw_pile.pop(0))
        else:
            replay.hands[seat].remove(action)
            replay.discard.append(action)
        if i + 1 < len(res.actions):
            nxt = res.actions[i + 1][0]
            if 0 <= action < party.N_CODES and party.EXTRA_TURN[action]:
                assert nxt == seat  # a plus card: the same player again, at once
            elif len(replay.in_round()) > 1 or replay.quit[seat]:
                assert nxt != seat
    # Conservation: hands + discard pile + draw pile = the deck.
    total = res.hands.sum(axis=0) + counts(replay.discard) + counts(replay.draw_pile)
    assert np.array_equal(total, counts(party.DECK))
    for s in range(n):
        if s == res.out_seat:
            assert res.penalties[s] == 0 and res.hands[s].sum() == 0
        else:
            cards = [c for c in range(party.N_CODES) for _ in range(res.hands[s, c])]
            assert res.penalties[s] == party.score(cards) and 1 <= res.penalties[s] <= 41
    assert res.out_seat >= 0 or all(res.quit)


# ----------------------------------------------------------------------------- exact values

def always_quit_exact():
    """A 6-card hand from 56: each value 1..6 (8 cards: seven normal + one plus) is held with
    probability 1 - C(48,6)/C(56,6); the pink llama with 6/56 (then llamas score 20); otherwise
    llamas score 10 when one of the seven normal llamas is held: C(55,6)-C(48,6) of C(56,6) hands."""
    total = comb(56, 6)
    p_value = 1 - comb(48, 6) / total
    p_pink = 6 / 56
    p_llama_only = (comb(55, 6) - comb(48, 6)) / total
    return 21 * p_value + 20 * p_pink + 10 * p_llama_only


def test_always_quit_four_players_mean_penalty_is_exact():
    exact = always_quit_exact()
    assert abs(exact - 20.3549) < 1e-4
    players = [registry.parse_spec("party", "always_quit")] * 4
    plan = seat_plan(party.RULE_SET, players, False, np.zeros(1, np.int64))
    tally = run(plan, 2024, 0, 40_000, threads=2)
    for u in range(4):
        est = stats.estimate(tally, "penalty_per_round", u)
        assert est.ci_low <= exact <= est.ci_high
    assert abs(tally.s1[:4].sum() / (4 * tally.blocks) - exact) < 0.06
    assert tally.s1[4:8].sum() == 0 and tally.s1[8:12].sum() == 4 * tally.blocks


def test_threads_do_not_change_results():
    players = [registry.parse_spec("party", s) for s in ["greedy", "chain"]]
    plan = rotation_plan(party.RULE_SET, 3, players, False, np.zeros(1, np.int64))
    assert run(plan, 7, 0, 6000, threads=1, chunk=1000) == run(plan, 7, 0, 6000, threads=2, chunk=700)


def test_shared_engine_tables_for_both_rule_sets():
    """The one place the rule sets differ: check the flags and the scoring tables."""
    assert (lama.RULES.tokens20, lama.RULES.starter_last_card) == (False, True)
    assert (party.RULES.tokens20, party.RULES.starter_last_card) == (True, False)
    assert lama.RULES.twins.shape == (0, 3)
    for rules in (lama.RULES, party.RULES):
        lay = rules.layout
        assert lay.obs_len == shedding.OBS_HAND_SIZES + rules.n_codes + 18 and lay.n_actions == rules.n_codes + 2
    for cards in ([], [0, 0, 6], [1, 2, 3, 4, 5, 6], [6, 6]):
        assert shedding.hand_penalty(counts(cards)[:7].copy(), lama.CODE_PENALTY, lama.TWINS) == lama.score(cards)


# ----------------------------------------------------------------------------- the chain heuristic's intent

def decide(spec, hand, top, sizes=(6, 6, 6, 6), quit=(0, 0, 0, 0), pile=10, score=0):
    """What a party strategy does at seat 0 in a typed-in position (own score ``score``)."""
    n = len(sizes)
    sizes = list(sizes)
    r = party.Round([list(hand)] + [[0] * sizes[s] for s in range(1, n)], [0] * pile, [top], [None] * n,
                    [score] + [0] * (n - 1), quit=[bool(q) for q in quit])
    policy, params = player(spec)
    return int(policy(r.observe(0), r.hand(0), legal_bits(r.legal(0)), params, rng.new_state(0)))


def test_chain_plays_a_plus_card_when_it_has_a_follow_up():
    assert decide("chain", [P + 2, 2, 5], top=2) == P + 2  # +3 then the 3
    assert decide("greedy", [P + 2, 2, 5], top=2) == 2  # greedy plays the normal card first


def test_chain_keeps_a_plus_card_without_follow_up_for_later():
    # On a 3: the +4 would leave nothing to play on it (the 3 does not fit on a +4), forcing a draw
    # or a quit in the extra turn, so chain plays the 3; greedy would too, by its order.
    assert decide("chain", [P + 3, 2, 0, 0], top=2) == 2
    assert decide("chain", [P + 3, 0, 0], top=2) == P + 3  # no normal card fits: play it (then draw)


def test_chain_runs_a_whole_chain_to_go_out():
    assert pstrat.chain_empties_hand(counts([P + 3, P + 2, 4]), 2) == P + 2  # +3, +4, then the 5
    assert decide("chain", [P + 3, P + 2, 4], top=2) == P + 2
    assert pstrat.chain_empties_hand(counts([P + 3, P + 2, 0]), 2) == -1  # the 1 does not fit on the +4


def test_chain_plus_card_follow_up_does_not_count_the_pink_llama():
    assert decide("chain", [P + 3, PINK, 2, 0], top=2) == 2  # only the pink would follow the +4
    assert decide("chain", [P + 3, PINK, 4, 2], top=2) == P + 3  # the 5 follows the +4
    assert decide("chain:plus_first=0", [P + 3, PINK, 4, 2], top=2) == 2  # the ablation plays greedy's order


def test_chain_saves_the_pink_llama_until_stuck():
    assert decide("chain", [PINK, 3, 0], top=2) == 3  # another card fits: keep the pink llama
    assert decide("chain", [PINK, 3, 0], top=2, sizes=(3, 6, 1, 6)) == 3  # even with an opponent on 1 card
    assert decide("chain", [PINK, 0, 1], top=4) == PINK  # stuck: the pink llama beats drawing
    assert decide("chain:pink_danger=2", [PINK, 3, 0], top=2, sizes=(3, 6, 2, 6)) == PINK
    assert decide("chain:pink_danger=2", [PINK, 3, 0], top=2, sizes=(3, 6, 2, 6), quit=(0, 0, 1, 0)) == 3
    assert decide("greedy", [PINK, 0, 1], top=4) == PINK


def test_chain_quits_by_hand_points_and_own_score_when_nothing_fits():
    assert decide("chain", [0, 1], top=4) == QUIT  # 3 points, under 10 points held: quit
    assert decide("chain", [0, 1], top=4, score=12) == DRAW  # going out would return a 10: keep drawing
    assert decide("chain", [L, 1], top=4) == DRAW  # 12 points: draw
    assert decide("chain", [L, 1], top=4, pile=0) == QUIT  # nothing to draw
    assert decide("chain", [L, 1], top=4, quit=(0, 1, 1, 1)) == QUIT  # alone: no drawing
    assert decide("threshold", [L, 1], top=4) == DRAW and decide("threshold", [0, 2], top=4) == QUIT


# ----------------------------------------------------------------------------- observations: kernel vs reference

OBS_HASH_SOURCE = '''
from llama_sim.core.registry import strategy


def obs_hash(obs, hand, legal, params, rng):
    """A legal action picked by a hash of every field of the observation and of the hand (quitting rarely)."""
    h = 1469598103934665603
    for i in range(obs.shape[0]):
        h = (h * 1099511628211 + obs[i] * (i + 7)) & 0x7FFFFFFFFFFF
    for i in range(hand.shape[0]):
        h = (h * 1099511628211 + hand[i] * (i + 3)) & 0x7FFFFFFFFFFF
    quit = 0  # the highest action, always legal
    while (legal >> (quit + 1)) != 0:
        quit += 1
    others = 0
    for a in range(quit):
        others += (legal >> a) & 1
    if others > 0 and h % 13 != 0:  # mostly play or draw, so that rounds run long
        pick = h % others
        for a in range(quit):
            if (legal >> a) & 1:
                if pick == 0:
                    return a
                pick -= 1
    return quit


strategy("lama", "obs_hash_test", "acts on a hash of the whole observation")(obs_hash)
strategy("party", "obs_hash_test", "acts on a hash of the whole observation")(obs_hash)
'''


@pytest.mark.parametrize("module", [lama, party], ids=["lama", "party"])
@pytest.mark.parametrize("games_mode,blocks", [(False, 100), (True, 8)])
def test_kernel_and_reference_show_every_observation_field_alike(tmp_path, module, games_mode, blocks):
    """Both engines hand the policies the same observation, every field: a policy whose every
    action hashes the whole observation makes the tallies differ if a single field does."""
    src = tmp_path / "obs_hash_test.py"
    src.write_text(OBS_HASH_SOURCE)
    registry.load_file(src)
    name = module.RULE_SET.name
    players = [registry.parse_spec(name, s) for s in ["obs_hash_test", "greedy", "obs_hash_test", "random", "greedy"]]
    plan = rotation_plan(module.RULE_SET, 5, players, games_mode, np.zeros(1, np.int64))
    tally = run(plan, 31, 0, blocks, threads=1)
    d = tally.s1.shape[0]
    s1, s2 = np.zeros(d, np.int64), np.zeros((d, d), np.int64)
    module.reference_blocks(31, 0, blocks, 5, plan.entry_of_seat, plan.unit_of_seat, len(players), games_mode,
                            [(p.strategy.policy, p.params) for p in plan.entries], plan.cfg, s1, s2)
    assert np.array_equal(tally.s1, s1) and np.array_equal(tally.s2, s2)


# ----------------------------------------------------------------------------- the climber heuristic's intent

def test_climber_moves_the_top_up_when_it_holds_more_cards_above_than_at_it():
    # On a 3 holding 3 4 4 5: n(+1) + two_up n(+2) = 2 + 1 = 3 > same * n(0) = 2: climber plays a 4, chain the 3.
    assert decide("climber", [2, 3, 3, 4], top=2) == 3
    assert decide("chain", [2, 3, 3, 4], top=2) == 2
    assert decide("climber", [2, 3, 3], top=2) == 2  # 2 is not more than 2: the 3
    assert decide("climber", [2, 3, 3, 5], top=2) == 3  # a 6 is three above: 2 + 0.3 > 2
    assert decide("climber", [2, 2, 3, 3, 4], top=2) == 2  # two 3s: 3 is not more than 4
    assert decide("climber:same=1", [2, 2, 3, 3, 4], top=2) == 3
    # The cycle wraps: on a 6, the llamas are one above and the 1s two above; the pink llama counts for nothing.
    assert decide("climber", [5, L, L, 0], top=5) == L
    assert decide("climber", [5, L, PINK], top=5) == 5
    # A plus card counts as its value; the normal card of the next value is played before its plus card.
    assert decide("climber:plus_first=0", [2, P + 3, 3, 4], top=2) == 3
    assert decide("climber:plus_first=0", [2, P + 3, 4, 4], top=2) == P + 3  # no normal 4: the +4


def test_climber_climbs_only_while_three_opponents_are_still_in():
    assert decide("climber", [2, 3, 3, 4], top=2, quit=(0, 1, 0, 0)) == 2  # two opponents in: chain's 3
    assert decide("climber:min_opponents=2", [2, 3, 3, 4], top=2, quit=(0, 1, 0, 0)) == 3


@given(seed=st.integers(0, 2**32), n=st.integers(2, 3))
def test_climber_plays_exactly_like_chain_at_two_and_three_players(seed, n):
    deck = party.DECK.copy()
    rng.shuffle(deck, rng.new_state(seed, 1))
    climbed = reference_round(deck, ["climber"] * n, seed)
    chained = reference_round(deck, ["chain"] * n, seed)
    assert climbed.actions == chained.actions
