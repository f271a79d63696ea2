"""Llama Kadabra: the rulebook's examples and edges, kernel-vs-reference equality (rounds with shows,
any position, a custom symbol table), properties (token conservation, legality, cards), the exact
``always_quit`` value, the symbol table as data, and the ``showman`` heuristic's intents."""
import subprocess
from math import comb

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numba import njit, types

from llama_sim.core.errors import UsageError
from llama_sim.core import registry, rng, stats
from llama_sim.core import scoring as common
from llama_sim.rulesets import kadabra as K
from llama_sim.core.registry import MAX_POLICIES, POLICIES_TYPE, POLICY_SIG
from llama_sim.run.backends import run
from llama_sim.run.designs import comparison_design, rotation_plan, seat_plan
from llama_sim.strategies import _helpers
from llama_sim.strategies import kadabra as S

C = K.code
ONE_G = C(0, K.SYM_GIVE)  # a 1 with the give-away symbol (all 1s by default)
TWO, TWO_D = C(1), C(1, K.SYM_DRAW)
THREE, THREE_M = C(2), C(2, K.SYM_MAGIC)
FOUR, FIVE, SIX = C(3), C(4), C(5)
LL = C(K.LLAMA)
D23, D45 = C(K.DOUBLE_23), C(K.DOUBLE_45)
POOL, STAGE = K.MAGIC_POOL, K.MAGIC_STAGE
QUIT, DRAW, RET, COLLECT, GIVE = K.QUIT, K.DRAW, K.RETURN_MAGIC, K.COLLECT, K.GIVE

I64, I64A, I64M = types.int64, types.int64[::1], types.int64[:, ::1]
U64A, F64M = types.uint64[::1], types.float64[:, ::1]


def compiled_on_first_call(signature, py_func):
    """``py_func`` compiled for ``signature`` when first called. Python callers hand kernels a tuple of
    policies: an explicit signature makes Numba convert it to the first-class function tuple the kernels
    are built for (as run_blocks' signature does). Not at import: every xdist worker collects this module,
    and all of them would compile it at once."""
    compiled = []

    def call(*args):
        if not compiled:
            compiled.append(njit(signature, cache=True)(py_func))
        return compiled[0](*args)
    return call


play_round = compiled_on_first_call(
    types.UniTuple(I64, 3)(I64, I64M, I64A, I64A, I64A, I64A, I64A, I64A, I64, POLICIES_TYPE, I64A, F64M, I64A, U64A,
                           I64A, I64M), K.play_round.py_func)
play_game = compiled_on_first_call(
    I64(I64, I64A, POLICIES_TYPE, I64A, F64M, I64A, U64A, U64A, I64A, I64A, I64A, I64A, I64), K.play_game.py_func)


@njit(POLICY_SIG, cache=True)
def obs_hash_random(obs, hand, legal, params, rng_state):
    """Random legal play whose stream depends on everything it was shown: if the kernel's
    observation, hand or legal mask ever differed from the reference's, the two games would part."""
    h = np.uint64(1469598103934665603)
    for i in range(obs.shape[0]):
        h = (h ^ np.uint64(obs[i] + 3)) * np.uint64(1099511628211)
    for c in range(hand.shape[0]):
        h = (h ^ np.uint64(hand[c] + 5)) * np.uint64(1099511628211)
    h = (h ^ np.uint64(legal)) * np.uint64(1099511628211)
    rng_state[0] ^= h
    return _helpers.random_legal(legal, rng_state)


SPECS = ["greedy", "threshold", "threshold:quit_at=3", "showman", "showman:target=1,pass_at=2,flee=2",
         "random", "always_quit", "obs_hash", "chart", "climber", "climber:same=1"]


def policy_of(spec):
    if spec == "obs_hash":
        return obs_hash_random, np.zeros(registry.MAX_PARAMS)
    p = registry.parse_spec("kadabra", spec)
    return p.strategy.policy, p.params


def mask_array(legal):
    """The contract's legal bit mask as a 0/1 array over the actions (for indexing in asserts)."""
    return np.array([(int(legal) >> a) & 1 for a in range(K.N_ACTIONS)], np.uint8)


def bits(legal_array):
    """A 0/1 array of legal actions (the reference's ``legal_*``) as the contract's bit mask."""
    return np.int64(common.legal_bits(legal_array))


def scripted(actions, seen=None):
    """A policy stand-in for the reference engine that replays a fixed list of actions (and records
    the observation and legal mask, as a 0/1 array, of each decision in ``seen``)."""
    it = iter(actions)

    def policy(obs, hand, legal, params, rng_state):
        a = next(it)
        if seen is not None:
            seen.append((obs.copy(), mask_array(legal)))
        return a

    return policy, np.zeros(registry.MAX_PARAMS)


def nobody():
    def policy(obs, hand, legal, params, rng_state):
        raise AssertionError("this seat should not be asked")

    return policy, np.zeros(registry.MAX_PARAMS)


def hand_counts(cards):
    c = np.zeros(K.N_CODES, np.int64)
    for card in cards:
        c[card] += 1
    return c


def table(hands, pile, discard, players, ones=None, tens=None, **kw):
    n = len(hands)
    return K.Round([list(h) for h in hands], list(pile), list(discard), players,
                   ones if ones is not None else [3] * n, tens if tens is not None else [0] * n, **kw)


# ----------------------------------------------------------------------------- the rulebook's examples

def test_john_starts_the_show_fay_collects_five_exchanges_and_gives_her_10_to_john():
    """John plays a llama and stakes a token: 5 on the stage, the show starts. Wanda has dropped out
    and is not part of it. Fay cannot play a llama: she collects all 5, swaps them with her own 5
    for a 10, then plays a 1 with the give-away symbol and gives her 10 to John."""
    john, wanda, fay = 0, 1, 2
    seen = []
    r = table(hands=[[LL, SIX], [FOUR], [ONE_G, FIVE, SIX]], pile=[TWO, TWO], discard=[SIX],
              players=[scripted([LL]), nobody(), scripted([COLLECT, ONE_G, GIVE + john], seen)],
              ones=[3, 3, 5], tens=[0, 0, 0], stage_ones=4, quit=[False, True, False], start=john)
    r.play_card = _stop_after(r, decisions=4)
    with pytest.raises(_Stop):
        r.play()
    assert r.actions == [(john, LL), (fay, COLLECT), (fay, ONE_G), (fay, GIVE + john)]
    show_obs, show_legal = seen[0]
    assert show_obs[K.OBS_PHASE] == K.PHASE_SHOW and show_obs[K.OBS_SHOW] == 1
    assert show_obs[K.OBS_STAGE_TOKENS] == 5 and show_legal[COLLECT] == 1 and show_legal[LL] == 0
    assert not r.show and r.stage_tokens() == 0  # collecting ended the show
    turn_obs, _ = seen[1]
    assert turn_obs[K.OBS_PHASE] == K.PHASE_TURN  # and then Fay takes her normal turn
    assert turn_obs[K.OBS_ONES + fay] == 0 and turn_obs[K.OBS_TENS + fay] == 1  # 5 + 5 ones = one 10
    give_obs, give_legal = seen[2]
    assert give_obs[K.OBS_PHASE] == K.PHASE_GIVE
    assert list(np.flatnonzero(give_legal)) == [GIVE + john]  # Wanda dropped out: not a target
    assert (r.ones[john], r.tens[john]) == (2, 1) and (r.ones[fay], r.tens[fay]) == (0, 0)


class _Stop(Exception):
    pass


def _stop_after(r, decisions):
    """Wrap ``Round.play_card`` so the round stops once ``decisions`` decisions were taken."""
    original = r.play_card

    def play_card(seat, card):
        out = original(seat, card)
        if len(r.actions) >= decisions:
            raise _Stop
        return out

    return play_card


def test_john_returns_the_magic_token_instead_of_drawing_and_fay_is_next():
    """John cannot play a card; instead of drawing or dropping out he returns the magic token.
    Wanda has dropped out, so it is Fay's turn."""
    seen = []
    r = table(hands=[[FIVE], [FOUR], [TWO, SIX]], pile=[TWO], discard=[TWO], magic=0,
              players=[scripted([RET, QUIT], seen), nobody(), scripted([TWO, QUIT])], quit=[False, True, False])
    res = r.play()
    _, legal = seen[0]
    assert legal[RET] == 1 and legal[DRAW] == 1 and legal[QUIT] == 1 and legal[FIVE] == 0
    assert res.actions == [(0, RET), (2, TWO), (0, QUIT), (2, QUIT)]
    assert r.magic == POOL and res.magic_points.sum() == 0 and res.penalties[0] == 5


def test_fay_alone_plays_a_1_with_give_away_then_a_2_with_draw_draws_herself_and_quits():
    """Fay is alone: her give-away 1 has no effect (she would give to herself); her 2 with the draw
    symbol makes her draw herself (a 2/3); she could play it but drops out, ending the round."""
    fay = 2
    r = table(hands=[[FIVE], [FOUR], [ONE_G, TWO_D, SIX]], pile=[D23, THREE], discard=[C(K.LLAMA)],
              players=[nobody(), nobody(), scripted([ONE_G, TWO_D, QUIT])], quit=[True, True, False],
              ones=[3, 3, 4], start=fay)
    res = r.play()
    assert res.actions == [(fay, ONE_G), (fay, TWO_D), (fay, QUIT)]  # no give decision was asked
    assert sorted(res.hands[fay].nonzero()[0]) == sorted([D23, SIX])
    assert res.draw_pile_left == 1
    assert res.card_points[fay] == 2 + 3 + 6  # the 2/3 counts both values
    assert res.penalties[fay] == 11 and list(res.ones) == [3 + 5, 3 + 4, (4 + 11) % 10]


def test_fay_scores_10_for_2_3_double_a_3_a_3_with_magic_symbol_and_a_5_and_takes_a_black_10():
    hand = hand_counts([D23, THREE, THREE_M, FIVE])
    assert K.hand_points(hand) == 10
    r = table(hands=[[ONE_G], [D23, THREE, THREE_M, FIVE]], pile=[], discard=[FOUR], ones=[3, 0], tens=[0, 0],
              players=[scripted([QUIT]), scripted([QUIT])])
    assert S.hand_points(r.hand_counts(1)) == 10  # the strategies' own count agrees
    res = r.play()
    assert res.card_points[1] == 10 and (res.ones[1], res.tens[1]) == (0, 1)


def test_double_cards_play_on_either_value_and_the_next_card_follows_either_value():
    on = lambda top: {K.KIND_SHORT[k] for k in range(K.N_KINDS) if K.playable(top, C(k))}  # noqa: E731
    assert on(0) >= {"2/3"} and on(1) >= {"2/3"} and on(2) >= {"2/3"} and "2/3" not in on(3)  # a 2/3 on 1, 2, 3
    assert on(K.DOUBLE_23) == {"2", "3", "4", "2/3", "4/5"}  # on a 2/3: a 2, 3 or 4 (and doubles holding one)
    assert on(K.DOUBLE_45) == {"4", "5", "6", "4/5"}
    assert on(K.LLAMA) == {"1", "L"} and on(5) == {"6", "L"}
    assert on(2) == {"3", "4", "2/3", "4/5"}


def test_each_value_once_llamas_10_doubles_both_values():
    assert K.hand_points(hand_counts([LL, LL, SIX, C(5, K.SYM_MAGIC)])) == 16  # 6 with a symbol is still a 6
    assert K.hand_points(hand_counts([D45, FOUR, FIVE])) == 9
    assert K.hand_points(hand_counts([D23, D45])) == 14
    assert K.hand_points(hand_counts([])) == 0


# ----------------------------------------------------------------------------- the edges

def test_draw_symbol_with_an_empty_pile_does_nothing():
    r = table(hands=[[TWO_D, SIX], [FIVE, FIVE]], pile=[], discard=[ONE_G],
              players=[scripted([TWO_D, QUIT]), scripted([QUIT])])
    res = r.play()
    assert res.hands[1].sum() == 2 and res.actions == [(0, TWO_D), (1, QUIT), (0, QUIT)]


def test_draw_symbol_makes_the_next_player_still_in_draw_then_take_a_normal_turn():
    r = table(hands=[[TWO_D, SIX], [FIVE], [FIVE, FIVE]], pile=[THREE, FOUR], discard=[ONE_G],
              players=[scripted([TWO_D, QUIT]), nobody(), scripted([THREE, QUIT])], quit=[False, True, False])
    res = r.play()
    assert res.actions == [(0, TWO_D), (2, THREE), (0, QUIT), (2, QUIT)]
    assert res.draw_pile_left == 1 and res.hands[2, FIVE] == 2 and res.hands[2, THREE] == 0


def test_alone_a_player_can_neither_draw_nor_return_the_magic_token():
    seen = []
    r = table(hands=[[SIX], [FIVE]], pile=[TWO, TWO], discard=[TWO], magic=0, quit=[False, True],
              players=[scripted([QUIT], seen), nobody()])
    r.play()
    _, legal = seen[0]
    assert legal[DRAW] == 0 and legal[RET] == 0 and legal[QUIT] == 1


def test_magic_symbol_takes_the_token_from_the_stage():
    # The 3 with the magic symbol takes the token from wherever it is: here the stage.
    r = table(hands=[[THREE_M, SIX], [FIVE, FIVE]], pile=[], discard=[TWO], magic=STAGE, stage_ones=4,
              players=[scripted([THREE_M, QUIT]), scripted([QUIT])])
    res = r.play()
    assert res.magic_points[0] == 10 and res.stage_ones == 4 and res.magic == POOL
    assert res.penalties[0] == 6 + 10


def test_magic_symbol_takes_the_token_from_another_player():
    r = table(hands=[[THREE_M, SIX], [FIVE, FIVE]], pile=[], discard=[TWO], magic=1,
              players=[scripted([THREE_M, QUIT]), scripted([QUIT])])
    res = r.play()
    assert list(res.magic_points) == [10, 0]


def test_giving_away_when_only_the_magic_token_is_held_gives_the_magic_token():
    r = table(hands=[[ONE_G, SIX], [FIVE, FIVE], [FOUR]], pile=[], discard=[LL], ones=[0, 3, 3], magic=0,
              players=[scripted([ONE_G, GIVE + 2, QUIT]), scripted([QUIT]), scripted([QUIT])])
    res = r.play()
    assert res.actions[:2] == [(0, ONE_G), (0, GIVE + 2)]
    assert list(res.magic_points) == [0, 0, 10]


def test_give_away_gives_a_lowest_token_and_ten_ones_are_exchanged_at_once():
    r = table(hands=[[ONE_G, SIX], [FIVE, FIVE]], pile=[], discard=[LL], ones=[1, 9], tens=[2, 0],
              players=[scripted([ONE_G, GIVE + 1, QUIT]), scripted([QUIT])])
    r.play_card = _stop_after(r, decisions=2)
    with pytest.raises(_Stop):
        r.play()
    assert (r.ones[0], r.tens[0]) == (0, 2)  # a 1 went, not a 10
    assert (r.ones[1], r.tens[1]) == (0, 1)  # ten 1s became a 10


def test_give_away_with_no_token_or_nobody_else_in_asks_nothing():
    r = table(hands=[[ONE_G, SIX], [FIVE]], pile=[], discard=[LL], ones=[0, 3],
              players=[scripted([ONE_G, QUIT]), scripted([QUIT])])
    assert r.play().actions == [(0, ONE_G), (1, QUIT), (0, QUIT)]


def test_a_player_who_quit_cannot_be_given_a_token():
    seen = []
    r = table(hands=[[ONE_G, SIX], [FIVE], [FIVE], [FIVE]], pile=[], discard=[LL],
              players=[scripted([ONE_G, GIVE + 3, QUIT], seen), nobody(), nobody(), scripted([QUIT])],
              quit=[False, True, True, False])
    r.play()
    assert list(np.flatnonzero(seen[1][1])) == [GIVE + 3]


def test_stake_order_is_1_then_10_then_the_magic_token():
    for ones, tens, magic, staged in [(2, 1, 0, (1, 0, POOL)), (0, 1, 0, (0, 1, POOL)), (0, 0, 0, (0, 0, STAGE))]:
        r = table(hands=[[LL, SIX], [FIVE]], pile=[], discard=[SIX], ones=[ones, 0], tens=[tens, 0], magic=magic,
                  players=[scripted([LL, QUIT]), scripted([QUIT])])
        res = r.play()
        assert (res.stage_ones, res.stage_tens, res.magic) == staged


def test_a_llama_with_no_token_stakes_nothing_but_still_starts_a_show_on_a_full_stage():
    seen = []
    r = table(hands=[[LL, SIX], [LL]], pile=[], discard=[SIX], ones=[0, 0], stage_ones=5,
              players=[scripted([LL, COLLECT, QUIT]), scripted([LL], seen)])
    res = r.play()
    assert seen[0][0][K.OBS_PHASE] == K.PHASE_SHOW
    assert res.actions == [(0, LL), (1, LL)] and res.out_seat == 1
    assert res.stage_ones == 5  # neither had a token to stake; the last llama ended show and round


def test_last_card_llama_in_a_show_ends_show_and_round_and_nobody_collects():
    r = table(hands=[[LL, SIX], [LL]], pile=[], discard=[SIX], ones=[3, 3], stage_ones=4,
              players=[scripted([LL]), scripted([LL])])
    res = r.play()
    assert res.actions == [(0, LL), (1, LL)] and res.out_seat == 1
    assert res.stage_ones == 6  # both stakes stay on the stage for the next round
    assert (res.ones[1], res.returned[1]) == (1, 1)  # staked one, then returned one for going out


def test_returning_the_magic_token_in_a_show_passes_the_show_on():
    r = table(hands=[[LL, SIX], [FIVE], [FOUR, LL]], pile=[], discard=[SIX], ones=[3, 3, 3], stage_ones=4,
              magic=1, players=[scripted([LL, COLLECT, QUIT]), scripted([RET, QUIT]), scripted([LL, QUIT])])
    res = r.play()
    assert res.actions[:3] == [(0, LL), (1, RET), (2, LL)]
    assert res.actions[3] == (0, COLLECT)  # the show came round again: no llama, collect
    assert res.magic_points.sum() == 0


def test_a_show_needs_a_llama_first_even_with_five_tokens_on_the_stage():
    seen = []
    r = table(hands=[[FIVE, SIX], [FIVE]], pile=[], discard=[FOUR], stage_ones=7,
              players=[scripted([FIVE, QUIT], seen), scripted([QUIT])])
    r.play()
    assert all(obs[K.OBS_PHASE] == K.PHASE_TURN for obs, _ in seen)


def test_going_out_with_the_magic_token_scores_10_then_returns_a_10():
    r = table(hands=[[THREE_M], [FIVE]], pile=[], discard=[TWO], ones=[3, 3], tens=[1, 0],
              players=[scripted([THREE_M]), nobody()])
    res = r.play()
    assert res.out_seat == 0 and res.card_points[0] == 0 and res.magic_points[0] == 10
    assert res.returned[0] == 10 and (res.ones[0], res.tens[0]) == (3, 1) and res.penalties[0] == 0


def test_symbols_are_carried_out_on_a_last_card():
    r = table(hands=[[ONE_G], [FIVE]], pile=[], discard=[LL], ones=[3, 3],
              players=[scripted([ONE_G, GIVE + 1]), nobody()])
    res = r.play()
    assert res.actions == [(0, ONE_G), (0, GIVE + 1)] and res.out_seat == 0
    assert res.penalties[0] == -1 - 1 and res.penalties[1] == 1 + 5


def test_a_last_card_ends_the_round_only_then_even_when_its_draw_symbol_makes_a_lone_player_draw():
    """"You also carry out special card actions when you play your last card, regardless of how many
    people are still in the round. Only then does the round end." Fay is alone and plays her last
    card, a 2 with the draw symbol: she draws a card herself, and then the round ends (she does not
    play on). She went out, so she returns a token; the drawn card is a remaining card and scores."""
    fay = 1
    pos = dict(n=2, hands=[[FIVE], [TWO_D]], pile=[THREE, FIVE], discard=[ONE_G], ones=[3, 3], tens=[0, 0],
               stage_ones=0, stage_tens=0, magic=POOL, show=False, quit=[True, False], start=fay)
    res = reference_play(pos, ["greedy", "greedy"], 0)
    assert res.actions == [(fay, TWO_D)] and res.out_seat == fay and res.last_actor == fay
    assert res.draw_pile_left == 1 and res.hands[fay, THREE] == 1
    assert res.card_points[fay] == 3 and res.returned[fay] == 1 and res.ones[fay] == 3 + 3 - 1
    assert_same(kernel_play(pos, ["greedy", "greedy"], 0), res)


def test_stage_carries_over_between_rounds_of_a_game():
    greedy = policy_of("greedy")
    carried = 0
    for g in range(30):
        game = K.reference_game([greedy] * 3, K.DEFAULT_COUNTS, rng.new_state(g, 0, 0), rng.new_state(g, 0, 1))
        for prev, nxt in zip(game.rounds, game.rounds[1:]):
            assert nxt.events[0].table_points == sum(prev.ones) + 10 * sum(prev.tens) + prev.stage_ones \
                + 10 * prev.stage_tens + (10 if prev.magic == STAGE else 0)
            assert nxt.actions[0][0] == prev.last_actor  # the last to act starts
            carried += prev.stage_ones + prev.stage_tens > 0
    assert carried > 10


# ----------------------------------------------------------------------------- kernel vs reference

def make_position(seed, n, counts=K.DEFAULT_COUNTS, loaded=True):
    """A reachable-looking position: a fresh deal, random tokens, a random stage and magic token,
    some players already out, anybody's turn (every state is a legitimate kernel input)."""
    r = np.random.default_rng(seed)
    deck = K.deck_of_counts(counts)
    rng.shuffle(deck, rng.new_state(seed, 7, 0))
    hands, pile, discard = K.deal(deck, n)
    pos = dict(n=n, hands=hands, pile=pile, discard=discard,
               ones=[int(x) for x in r.integers(0, 10, n)], tens=[int(x) for x in r.integers(0, 3, n)],
               stage_ones=0, stage_tens=0, magic=POOL, show=False, quit=[False] * n, start=int(r.integers(n)))
    if loaded:
        pos["stage_ones"] = int(r.integers(0, 7))
        pos["stage_tens"] = int(r.integers(0, 3))
        pos["magic"] = int(r.choice([POOL, STAGE] + list(range(n))))
        staged = pos["stage_ones"] + pos["stage_tens"] + (pos["magic"] == STAGE)
        pos["show"] = bool(staged >= K.SHOW_AT and r.random() < 0.5)
        pos["quit"] = [bool(r.random() < 0.15) for _ in range(n)]
        if all(pos["quit"]):
            pos["quit"][0] = False
    return pos


def reference_play(pos, specs, prng_seed):
    players = [policy_of(s) for s in specs]
    prng = rng.new_state(prng_seed, 0, rng.POLICY_STREAM)
    r = K.Round([list(h) for h in pos["hands"]], list(pos["pile"]), list(pos["discard"]), players,
                list(pos["ones"]), list(pos["tens"]), pos["stage_ones"], pos["stage_tens"], pos["magic"],
                pos["show"], pos["start"], list(pos["quit"]), prng, show_rule=not pos.get("no_show", 0))
    return r.play()


def kernel_play(pos, specs, prng_seed):
    n = pos["n"]
    funcs, slots = [], []
    for s in specs:
        f, _ = policy_of(s)
        if f not in funcs:
            funcs.append(f)
        slots.append(funcs.index(f))
    policies = tuple(funcs) + (funcs[0],) * (MAX_POLICIES - len(funcs))
    params = np.array([policy_of(s)[1] for s in specs])
    hands = np.array([hand_counts(h) for h in pos["hands"]])
    deck = np.array(pos["pile"], dtype=np.int64)
    discard = hand_counts(pos["discard"])
    quit = np.array(pos["quit"], dtype=np.int64)
    ones, tens = np.array(pos["ones"], np.int64), np.array(pos["tens"], np.int64)
    board = np.zeros(K.BOARD_LEN, np.int64)
    board[K.B_TOP] = K.CODE_KIND[pos["discard"][-1]]
    board[K.B_STAGE_ONES], board[K.B_STAGE_TENS] = pos["stage_ones"], pos["stage_tens"]
    board[K.B_MAGIC], board[K.B_SHOW] = pos["magic"], pos["show"]
    board[K.B_NO_SHOW] = pos.get("no_show", 0)
    obs = np.zeros(K.OBS_LEN, np.int64)
    log = np.zeros((K.LOG_CAPACITY, 2), np.int64)
    prng = rng.new_state(prng_seed, 0, rng.POLICY_STREAM)
    out, last_actor, k = play_round(n, hands, deck, discard, quit, ones, tens, board, pos["start"], policies,
                                    np.array(slots, np.int64), params, np.arange(n, dtype=np.int64), prng, obs,
                                    log)
    points = np.zeros(n, np.int64)
    K.score_round(n, hands, out, ones, tens, board, points)
    return dict(actions=[tuple(x) for x in log[:k].tolist()], hands=hands, out=out, last_actor=last_actor,
                quit=quit, ones=ones, tens=tens, board=board, points=points, left=deck.shape[0] - board[K.B_POS])


def assert_same(k, r):
    assert k["actions"] == [tuple(a) for a in r.actions]
    assert np.array_equal(k["hands"], r.hands)
    assert k["out"] == r.out_seat and k["last_actor"] == r.last_actor
    assert np.array_equal(k["quit"], r.quit) and k["left"] == r.draw_pile_left
    assert np.array_equal(k["ones"], r.ones) and np.array_equal(k["tens"], r.tens)
    assert (k["board"][K.B_STAGE_ONES], k["board"][K.B_STAGE_TENS], k["board"][K.B_MAGIC]) == \
        (r.stage_ones, r.stage_tens, r.magic)
    assert np.array_equal(k["points"], r.card_points + r.magic_points)


@given(seed=st.integers(0, 2**32), n=st.integers(2, 6), loaded=st.booleans(),
       mix=st.lists(st.sampled_from(SPECS), min_size=6, max_size=6))
def test_kernel_equals_reference_from_any_position(seed, n, loaded, mix):
    pos = make_position(seed, n, loaded=loaded)
    specs = mix[:n]
    assert_same(kernel_play(pos, specs, seed), reference_play(pos, specs, seed))


CUSTOM_TOML = """
name = "symbols everywhere"
[cards]
"1" = 8
"2" = 7
"3" = 7
"4" = 7
"5" = 7
"6" = 8
"2/3" = 2
"4/5" = 2
llama = 12
[symbols.give]
"1" = 4
"4/5" = 2
llama = 3
[symbols.draw]
"2" = 3
"2/3" = 1
llama = 2
[symbols.magic]
"3" = 3
llama = 3
"6" = 2
"""


@pytest.fixture(scope="module")
def custom_counts(tmp_path_factory):
    path = tmp_path_factory.mktemp("deck") / "everywhere.toml"
    path.write_text(CUSTOM_TOML)
    return K.RULE_SET.config(deck_file=path)[:K.N_CODES], path


def test_kernel_equals_reference_with_symbols_on_llamas_and_doubles(custom_counts):
    counts, _ = custom_counts
    assert counts.sum() == 60 and counts[C(K.LLAMA, K.SYM_MAGIC)] == 3 and counts[C(K.LLAMA)] == 4
    for seed in range(120):
        n = 2 + seed % 5
        pos = make_position(seed, n, counts=counts)
        specs = [SPECS[(seed + s) % len(SPECS)] for s in range(n)]
        assert_same(kernel_play(pos, specs, seed), reference_play(pos, specs, seed))


def test_kernel_equals_reference_on_rounds_with_shows_and_every_token_move():
    """A deterministic sweep that must contain shows, collects, passes in a show, gives of every kind
    of token and last-card llamas in a show; kernel and reference agree on every one."""
    seen = {"show": 0, "collect": 0, "show_pass": 0, "give": 0, "give_magic": 0, "last_llama_show": 0,
            "magic_from_stage": 0, "forced_draw": 0}
    for seed in range(3000):  # at least 300 rounds, and on until every kind of event has occurred
        if seed >= 300 and all(v > 0 for v in seen.values()):
            break
        n = 2 + seed % 5
        pos = make_position(seed, n)
        specs = [["greedy", "random", "showman", "obs_hash", "threshold"][(seed + s) % 5] for s in range(n)]
        res = reference_play(pos, specs, seed)
        assert_same(kernel_play(pos, specs, seed), res)
        prev = res.events[0]
        for d in res.decisions:
            seen["show"] += d.phase == K.PHASE_SHOW
            seen["collect"] += d.action == COLLECT
            seen["show_pass"] += d.phase == K.PHASE_SHOW and d.action == RET
        for e in res.events[1:]:
            if e.what == "give":
                seen["give"] += 1
                seen["give_magic"] += prev.magic == e.seat and e.magic != e.seat
            seen["magic_from_stage"] += e.what == "take magic" and prev.magic == STAGE
            seen["forced_draw"] += e.what == "forced draw"
            prev = e
        if res.out_seat >= 0 and res.decisions[-1].phase == K.PHASE_SHOW:
            seen["last_llama_show"] += 1
    assert all(v > 0 for v in seen.values()), seen


@pytest.mark.parametrize("games_mode,blocks", [(False, 250), (True, 25)])
def test_kernel_tallies_equal_reference_tallies(games_mode, blocks):
    players = [registry.parse_spec("kadabra", s) for s in ["greedy", "random", "showman", "threshold:quit_at=5"]]
    plan = rotation_plan(K.RULE_SET, 4, players, games_mode, K.RULE_SET.config())
    tally = run(plan, 99, 0, blocks, threads=1)
    d = tally.s1.shape[0]
    s1, s2 = np.zeros(d, np.int64), np.zeros((d, d), np.int64)
    K.reference_blocks(99, 0, blocks, 4, plan.entry_of_seat, plan.unit_of_seat, len(players), games_mode,
                       [(p.strategy.policy, p.params) for p in plan.entries], plan.cfg, s1, s2)
    assert np.array_equal(tally.s1, s1) and np.array_equal(tally.s2, s2)


def test_kernel_game_equals_reference_game(custom_counts):
    specs = ["greedy", "random", "showman", "obs_hash"]
    players = [policy_of(s) for s in specs]
    policies = tuple(p[0] for p in players) + (players[0][0],) * (MAX_POLICIES - 4)
    params = np.array([p[1] for p in players])
    for counts in (K.DEFAULT_COUNTS, custom_counts[0]):
        for block in range(8):
            d1, p1 = rng.new_state(5, block, 0), rng.new_state(5, block, 1)
            d2, p2 = d1.copy(), p1.copy()
            pen, out, qu, fin = (np.zeros(4, np.int64) for _ in range(4))
            rounds = play_game(4, K.deck_of_counts(counts), policies, np.arange(4), params, np.arange(4), d1, p1,
                               pen, out, qu, fin, 0)
            ref = K.reference_game(players, counts, d2, p2)
            assert rounds == len(ref.rounds)
            assert list(fin) == list(ref.final) and list(pen) == list(ref.penalty)
            assert list(out) == list(ref.went_out) and list(qu) == list(ref.quit)
            assert max(fin) >= 40 and list(pen) == [f - 3 for f in fin]



# ----------------------------------------------------------------------------- rule variants

@given(seed=st.integers(0, 2**32), n=st.integers(2, 6), loaded=st.booleans(), magic_off=st.booleans(),
       mix=st.lists(st.sampled_from(SPECS), min_size=6, max_size=6))
def test_kernel_equals_reference_without_the_show(seed, n, loaded, magic_off, mix):
    """The variant without the magic show, from any position (a loaded stage included), on either deck."""
    counts = K.without_magic(K.DEFAULT_COUNTS) if magic_off else K.DEFAULT_COUNTS
    pos = make_position(seed, n, counts=counts, loaded=loaded)
    pos["no_show"] = 1
    assert_same(kernel_play(pos, mix[:n], seed), reference_play(pos, mix[:n], seed))


VARIANTS = [{"magic_token": "off"}, {"magic_show": "off"}, {"magic_token": "off", "magic_show": "off"}]


@pytest.mark.parametrize("options", VARIANTS)
@pytest.mark.parametrize("games_mode,blocks", [(False, 120), (True, 12)])
def test_kernel_tallies_equal_reference_tallies_under_every_variant(options, games_mode, blocks):
    players = [registry.parse_spec("kadabra", s) for s in ["greedy", "random", "showman", "threshold:quit_at=5"]]
    cfg = K.RULE_SET.config(**options)
    plan = rotation_plan(K.RULE_SET, 4, players, games_mode, cfg)
    tally = run(plan, 98, 0, blocks, threads=1)
    d = tally.s1.shape[0]
    s1, s2 = np.zeros(d, np.int64), np.zeros((d, d), np.int64)
    K.reference_blocks(98, 0, blocks, 4, plan.entry_of_seat, plan.unit_of_seat, len(players), games_mode,
                       [(p.strategy.policy, p.params) for p in plan.entries], plan.cfg, s1, s2)
    assert np.array_equal(tally.s1, s1) and np.array_equal(tally.s2, s2)
    base = run(rotation_plan(K.RULE_SET, 4, players, games_mode, K.RULE_SET.config()), 98, 0, blocks, threads=1)
    assert not np.array_equal(base.s1, tally.s1)  # the variant is really played


def test_kernel_game_equals_reference_game_without_the_show():
    specs = ["greedy", "random", "showman", "obs_hash"]
    players = [policy_of(s) for s in specs]
    policies = tuple(p[0] for p in players) + (players[0][0],) * (MAX_POLICIES - 4)
    params = np.array([p[1] for p in players])
    for block in range(6):
        d1, p1 = rng.new_state(6, block, 0), rng.new_state(6, block, 1)
        d2, p2 = d1.copy(), p1.copy()
        pen, out, qu, fin = (np.zeros(4, np.int64) for _ in range(4))
        rounds = play_game(4, K.DEFAULT_DECK, policies, np.arange(4), params, np.arange(4), d1, p1,
                           pen, out, qu, fin, 1)
        ref = K.reference_game(players, K.DEFAULT_COUNTS, d2, p2, show_rule=False)
        assert rounds == len(ref.rounds) and list(fin) == list(ref.final) and list(pen) == list(ref.penalty)
        assert all(r.stage_ones == r.stage_tens == 0 for r in ref.rounds)
        assert not any(d.phase == K.PHASE_SHOW for r in ref.rounds for d in r.decisions)


def test_without_the_show_a_llama_stakes_nothing_and_no_show_starts():
    # Four 1s on the stage: with the show, Fay's llama stakes her 1, the stage holds 5 and John must
    # answer the show; without it her llama stakes nothing and John takes a normal turn.
    for show_rule, staged, phase in ((True, 1, K.PHASE_SHOW), (False, 0, K.PHASE_TURN)):
        seen = []
        r = table(hands=[[LL, SIX], [FIVE]], pile=[], discard=[SIX], stage_ones=4, show_rule=show_rule,
                  players=[scripted([LL, QUIT]), scripted([COLLECT if show_rule else QUIT, QUIT], seen)])
        res = r.play()
        assert seen[0][0][K.OBS_PHASE] == phase
        assert res.ones[0] + res.returned[0] - res.card_points[0] == 3 - staged


def test_magic_token_off_takes_the_magic_symbol_off_every_card():
    cfg = K.RULE_SET.config(magic_token="off")
    counts = cfg[:K.N_CODES]
    assert counts.sum() == 60 and counts[K.CODE_SYMBOL == K.SYM_MAGIC].sum() == 0
    assert counts[C(2)] == 7 and counts[C(0, K.SYM_GIVE)] == 8 and counts[C(1, K.SYM_DRAW)] == 3
    assert cfg[K.CFG_NO_SHOW] == 0 and K.RULE_SET.config(magic_show="off")[K.CFG_NO_SHOW] == 1
    desc = K.RULE_SET.describe_config(cfg)
    assert desc["magic_token"].startswith("off") and desc["magic_show"] == "on"
    assert "magic taken off" not in desc["symbol_table"] and "magic symbols taken off" in desc["symbol_table"]


@pytest.mark.parametrize("options,message", [({"magic_token": "no"}, "--magic-token must be on or off"),
                                             ({"magic_show": "1"}, "--magic-show must be on or off"),
                                             ({"pink_llama": "plain"}, "kadabra takes only")])
def test_bad_variant_options_are_usage_errors(options, message):
    with pytest.raises(UsageError, match=message):
        K.RULE_SET.config(**options)

# ----------------------------------------------------------------------------- properties

@given(seed=st.integers(0, 2**32), n=st.integers(2, 6), mix=st.lists(st.sampled_from(SPECS), min_size=6, max_size=6))
def test_round_properties(seed, n, mix):
    pos = make_position(seed, n)
    specs = mix[:n]
    k = kernel_play(pos, specs, seed)
    res = reference_play(pos, specs, seed)
    assert_same(k, res)

    # Every action the kernel took was legal: replay it through a fresh reference round whose
    # scripted players check each action against the legal mask they are offered.
    offered = []

    def checker(seat):
        mine = iter([a for s, a in k["actions"] if s == seat])

        def policy(obs, hand, legal, params, rng_state):
            a = next(mine)
            offered.append((seat, int(obs[K.OBS_PHASE]), a, bool((int(legal) >> a) & 1)))
            return a

        return policy, np.zeros(registry.MAX_PARAMS)

    replay = K.Round([list(h) for h in pos["hands"]], list(pos["pile"]), list(pos["discard"]),
                     [checker(s) for s in range(n)], list(pos["ones"]), list(pos["tens"]), pos["stage_ones"],
                     pos["stage_tens"], pos["magic"], pos["show"], pos["start"], list(pos["quit"])).play()
    assert all(ok for *_, ok in offered) and len(offered) == len(k["actions"])
    for seat, phase, a, _ in offered:  # actions belong to their phase
        if phase == K.PHASE_GIVE:
            assert GIVE <= a < GIVE + n and a - GIVE != seat
        elif phase == K.PHASE_SHOW:
            assert a in (COLLECT, RET) or K.CODE_KIND[a] == K.LLAMA
        else:
            assert a in (DRAW, QUIT, RET) or a < K.N_CODES
    assert replay.actions == res.actions

    # Token points change only by the magic token leaving or re-entering the pool while playing,
    # and by scoring and the return at the end.
    ev = res.events
    for prev, e in zip(ev, ev[1:]):
        d = e.table_points - prev.table_points
        if e.what == "score":
            assert d == res.card_points[e.seat] + res.magic_points[e.seat]
        elif e.what == "magic to pool":
            assert d == -10
        elif e.what == "return":
            assert d == -res.returned[e.seat] and res.returned[e.seat] in (0, 1, 10)
            if res.returned[e.seat] == 0:  # nothing to return
                assert res.ones[e.seat] == res.tens[e.seat] == 0
        else:
            assert d == 10 * ((e.magic != POOL) - (prev.magic != POOL)), e
    before = (sum(pos["ones"]) + 10 * sum(pos["tens"]) + pos["stage_ones"] + 10 * pos["stage_tens"]
              + 10 * (pos["magic"] != POOL))
    after = sum(res.ones) + 10 * sum(res.tens) + res.stage_ones + 10 * res.stage_tens + 10 * (res.magic == STAGE)
    assert ev[0].table_points == before and ev[-1].table_points == after
    assert res.penalties.sum() == (sum(res.ones) + 10 * sum(res.tens)) - (sum(pos["ones"]) + 10 * sum(pos["tens"]))
    assert res.magic in (POOL, STAGE) and all(0 <= o < 10 for o in res.ones)

    # Cards: hands + discard pile + what is left of the draw pile are the cards of the position.
    played = [d.action for d in res.decisions if d.phase != K.PHASE_GIVE and d.action < K.N_CODES]
    left = pos["pile"][len(pos["pile"]) - res.draw_pile_left:]
    everything = hand_counts([c for h in pos["hands"] for c in h] + list(pos["pile"]) + list(pos["discard"]))
    assert np.array_equal(res.hands.sum(axis=0) + hand_counts(list(pos["discard"]) + played) + hand_counts(left),
                          everything)
    # Scores: distinct values left, at most 31; the player who went out has no card left, but one:
    for s in range(n):
        assert 0 <= res.card_points[s] <= 31 and res.card_points[s] == K.hand_points(res.hands[s])
        if s == res.out_seat and res.hands[s].sum():  # only a card drawn by a last card's symbol, alone
            plays = [e for e in res.events if e.what not in ("score", "magic to pool", "return")]
            assert res.hands[s].sum() == 1 and plays[-1].what == "forced draw" and plays[-1].seat == s
            assert sum(res.quit) == n - 1
    assert res.magic_points.sum() in (0, 10)
    assert res.out_seat >= 0 or all(res.quit)


# ----------------------------------------------------------------------------- exact values

def test_always_quit_mean_penalty_is_exact():
    """Nobody plays: a round's penalty is the hand's points. Value v is held with probability
    1 - C(60 - k_v, 6) / C(60, 6), k_v the cards showing v (doubles count for both values)."""
    k = {1: 8, 2: 9, 3: 9, 4: 9, 5: 9, 6: 8, 10: 12}
    exact = sum(v * (1 - comb(60 - kv, 6) / comb(60, 6)) for v, kv in k.items())
    assert abs(exact - 20.6661) < 1e-3
    players = [registry.parse_spec("kadabra", "always_quit")] * 4
    plan = seat_plan(K.RULE_SET, players, False, K.RULE_SET.config())
    tally = run(plan, 2024, 0, 40_000, threads=2)
    for u in range(4):  # four seats: each at 99.9%, so that chance fails the test 0.4% of seeds, not 19%
        est = stats.estimate(tally, "penalty_per_round", u, level=0.999)
        assert est.ci_low <= exact <= est.ci_high
    assert abs(tally.s1[:4].sum() / (4 * tally.blocks) - exact) < 0.05
    assert tally.s1[4:8].sum() == 0 and tally.s1[8:12].sum() == 4 * tally.blocks


def test_starting_tokens_and_round_mode_table():
    ones, tens, board = np.zeros(4, np.int64), np.zeros(4, np.int64), np.ones(K.BOARD_LEN, np.int64)
    K.new_table(4, ones, tens, board)
    assert list(ones) == [3] * 4 and list(tens) == [0] * 4
    assert board[K.B_STAGE_ONES] == board[K.B_STAGE_TENS] == board[K.B_SHOW] == 0 and board[K.B_MAGIC] == POOL


def test_threads_do_not_change_results():
    players = [registry.parse_spec("kadabra", s) for s in ["greedy", "showman"]]
    plan = rotation_plan(K.RULE_SET, 3, players, False, K.RULE_SET.config())
    assert run(plan, 7, 0, 6000, threads=1, chunk=1000) == run(plan, 7, 0, 6000, threads=2, chunk=700)
    gplan = rotation_plan(K.RULE_SET, 3, players, True, K.RULE_SET.config())
    assert run(gplan, 7, 0, 40, threads=1) == run(gplan, 7, 0, 40, threads=2, chunk=7)


def test_illegal_policy_action_is_refused_by_kernel(tmp_path):
    src = tmp_path / "bad_kadabra.py"
    src.write_text(
        "from llama_sim.core.registry import strategy\n"
        "@strategy('kadabra', 'always_collect_test', 'collects even outside a show')\n"
        "def always_collect_test(obs, hand, legal, params, rng):\n"
        "    return 39\n")
    registry.load_file(src)
    players = [registry.parse_spec("kadabra", "always_quit"), registry.parse_spec("kadabra", "always_collect_test")]
    for games_mode in (False, True):
        plan = seat_plan(K.RULE_SET, players, games_mode, K.RULE_SET.config())
        # seat 0 quits, seat 1 (entry 1) cheats: the kernel's ValueError("illegal action", 1, 1, COLLECT)
        # reaches run() callers as the one-line error naming the strategy, the seat and the action
        with pytest.raises(UsageError) as kernel_err:
            run(plan, 1, 0, 10, threads=1)
        assert str(kernel_err.value).startswith("strategy 'always_collect_test' (seat 1) chose an illegal action: "
                                                "collect, having seen seat 1 of ")
        d = len(plan.metrics) * 2
        with pytest.raises(ValueError) as reference_err:
            K.reference_blocks(1, 0, 10, 2, plan.entry_of_seat, plan.unit_of_seat, 2, games_mode,
                               [(p.strategy.policy, p.params) for p in players], plan.cfg,
                               np.zeros(d, np.int64), np.zeros((d, d), np.int64))
        assert reference_err.value.args == ("illegal action", 1, 1, COLLECT)


@njit(POLICY_SIG, cache=True)
def cheat(obs, hand, legal, params, rng_state):
    """Returns action params[0] in phase params[1]; in a normal turn otherwise action params[2]."""
    if obs[K.OBS_PHASE] == params[1]:
        return np.int64(params[0])
    return np.int64(params[2])


def _cheat_position(phase, bad_action, turn_action=QUIT, **table):
    """Seat 1 (line-up entry 2: entries are seated 1, 2, 0) acts first and answers ``bad_action`` in
    ``phase``; the kernel and the reference must both raise ValueError("illegal action", 2, 1, a)."""
    pos = dict(hands=[[TWO], [FIVE, ONE_G, SIX], [THREE]], pile=[FOUR, FOUR], discard=[FOUR], ones=[3, 3, 3],
               tens=[0, 0, 0], stage_ones=0, stage_tens=0, magic=POOL, show=False, quit=[False] * 3, start=1)
    pos.update(table)
    params = np.zeros(registry.MAX_PARAMS)
    params[:3] = bad_action, phase, turn_action
    entry_of_seat = np.array([1, 2, 0], np.int64)
    quitter = registry.parse_spec("kadabra", "always_quit")
    entries = [(quitter.strategy.policy, quitter.params), (quitter.strategy.policy, quitter.params), (cheat, params)]
    return pos, entries, entry_of_seat


@pytest.mark.parametrize("case", ["card not held", "card not playable", "draw from an empty pile", "draw alone",
                                  "return magic not held", "quit in a show", "plain card in a show",
                                  "collect outside a show", "give to oneself", "give to a player who quit",
                                  "no such action"])
def test_an_illegal_action_in_any_phase_raises_in_kernel_and_reference(case):
    T, S, G = K.PHASE_TURN, K.PHASE_SHOW, K.PHASE_GIVE
    cases = {
        "card not held": (T, THREE, QUIT, {}),
        "card not playable": (T, SIX, QUIT, {}),  # a 6 on a 4
        "draw from an empty pile": (T, DRAW, QUIT, {"pile": []}),
        "draw alone": (T, DRAW, QUIT, {"quit": [True, False, True]}),
        "return magic not held": (T, RET, QUIT, {"magic": 0}),
        "quit in a show": (S, QUIT, QUIT, {"show": True, "stage_ones": 5}),
        "plain card in a show": (S, FIVE, QUIT, {"show": True, "stage_ones": 5}),
        "collect outside a show": (T, COLLECT, QUIT, {}),
        "give to oneself": (G, GIVE + 1, ONE_G, {"discard": [LL]}),
        "give to a player who quit": (G, GIVE + 2, ONE_G, {"discard": [LL], "quit": [False, False, True]}),
        "no such action": (T, K.N_ACTIONS, QUIT, {}),
    }
    phase, bad, turn_action, table = cases[case]
    pos, entries, entry_of_seat = _cheat_position(phase, bad, turn_action, **table)
    expected = ("illegal action", 2, 1, bad)
    players = [common.SeatEntry(entries[e], e) for e in entry_of_seat]
    r = K.Round([list(h) for h in pos["hands"]], list(pos["pile"]), list(pos["discard"]), players, pos["ones"],
                pos["tens"], pos["stage_ones"], pos["stage_tens"], pos["magic"], pos["show"], pos["start"],
                list(pos["quit"]))
    with pytest.raises(ValueError) as err:
        r.play()
    assert err.value.args == expected
    n = 3
    board = np.zeros(K.BOARD_LEN, np.int64)
    board[K.B_TOP] = K.CODE_KIND[pos["discard"][-1]]
    board[K.B_STAGE_ONES], board[K.B_MAGIC], board[K.B_SHOW] = pos["stage_ones"], pos["magic"], pos["show"]
    policies = tuple(e[0] for e in entries) + (entries[0][0],) * (MAX_POLICIES - 3)
    with pytest.raises(ValueError) as err:
        play_round(n, np.array([hand_counts(h) for h in pos["hands"]]), np.array(pos["pile"], np.int64),
                   hand_counts(pos["discard"]), np.array(pos["quit"], np.int64), np.array(pos["ones"], np.int64),
                   np.array(pos["tens"], np.int64), board, pos["start"], policies, np.arange(3, dtype=np.int64),
                   np.array([e[1] for e in entries]), entry_of_seat, rng.new_state(1), np.zeros(K.OBS_LEN, np.int64),
                   np.zeros((0, 2), np.int64))
    assert err.value.args == expected


# ----------------------------------------------------------------------------- the symbol table as data

def test_default_table_is_the_rules_md_table():
    c = K.DEFAULT_COUNTS
    kinds = K.kind_counts(c)
    assert c.sum() == 60 and list(kinds) == [8, 7, 7, 7, 7, 8, 12, 2, 2]
    assert c[ONE_G] == 8 and c[C(0)] == 0 and c[TWO_D] == 3 and c[TWO] == 4 and c[THREE_M] == 3 and c[THREE] == 4
    assert c.sum() - c[ONE_G] - c[TWO_D] - c[THREE_M] == 60 - 14
    desc = K.RULE_SET.describe_config(K.RULE_SET.config())
    assert desc["symbol_table"] == "default" and "give on 8 of 8 1s" in desc["symbols"]
    assert "draw on 3 of 7 2s" in desc["symbols"] and "magic on 3 of 7 3s" in desc["symbols"]


def test_deck_file_replaces_the_table_and_reports_name_it(custom_counts):
    counts, path = custom_counts
    desc = K.RULE_SET.describe_config(K.RULE_SET.config(deck_file=path))
    assert desc["symbol_table"] == "symbols everywhere" and desc["symbol_table_source"] == str(path)
    assert "magic on 3 of 7 3s and 2 of 8 6s and 3 of 12 Ls" in desc["symbols"]


def test_deck_file_without_cards_keeps_the_60_cards(tmp_path):
    p = tmp_path / "nomagic.toml"
    p.write_text('[symbols.give]\n"1" = 2\n')
    counts = K.RULE_SET.config(deck_file=p)
    assert counts.sum() == 60 and counts[ONE_G] == 2 and counts[C(0)] == 6 and counts[THREE_M] == 0
    assert K.RULE_SET.describe_config(counts)["symbol_table"] == "nomagic"


@pytest.mark.parametrize("text,message", [
    ('[symbols.give]\n"1" = 9\n', "9 symbols on the 1 cards but only 8"),
    ('[symbols.spell]\n"1" = 1\n', "unknown symbol 'spell'"),
    ('[symbols.give]\n"7" = 1\n', "unknown card '7'"),
    ('[cards]\n"1" = 2\n', "needs 37 to 200"),
    ('[cards]\n"1" = -1\n', "whole number"),
    ('[symbols.give]\n"1" = 1.5\n', "whole number"),
    ('colour = "red"\n', "unknown key 'colour'"),
    ('[symbols\n', "not valid TOML"),
])
def test_bad_deck_files_are_usage_errors(tmp_path, text, message):
    p = tmp_path / "bad.toml"
    p.write_text(text)
    with pytest.raises(UsageError, match=message):
        K.RULE_SET.config(deck_file=p)


def test_deck_file_errors_and_other_options():
    with pytest.raises(UsageError, match="no such file"):
        K.RULE_SET.config(deck_file="/nonexistent/deck.toml")
    with pytest.raises(UsageError, match="only --deck-file"):
        K.RULE_SET.config(dice_layout="1234LL/1256LL/3456LL")


def test_cli_bad_deck_file_exits_2_with_one_line(tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text('[symbols.give]\n"1" = 9\n')
    res = subprocess.run(["llamasim", "simulate", "--game", "kadabra", "--seat", "greedy", "--seat", "greedy",
                          "--rounds", "10", "--deck-file", str(p)], capture_output=True, text=True)
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1 and "9 symbols" in res.stderr


def test_simulate_runs_with_a_deck_file(custom_counts):
    _, path = custom_counts
    players = [registry.parse_spec("kadabra", "greedy")] * 3
    a = run(seat_plan(K.RULE_SET, players, False, K.RULE_SET.config(deck_file=path)), 3, 0, 2000, threads=1)
    b = run(seat_plan(K.RULE_SET, players, False, K.RULE_SET.config()), 3, 0, 2000, threads=1)
    assert not np.array_equal(a.s1, b.s1)  # the table is really used


# ----------------------------------------------------------------------------- strategies

def obs_for(r, seat, phase):
    return r.observe(seat, phase)


def ask(policy, r, seat, phase, legal, params, prng):
    """A strategy's answer at seat ``seat`` of round ``r`` (phase ``phase``, legal 0/1 array ``legal``)."""
    return policy(obs_for(r, seat, phase), r.hand_counts(seat), bits(legal), params, prng)


def test_showman_gives_to_the_leader_and_greedy_to_the_next_player():
    r = table(hands=[[ONE_G, SIX], [FIVE], [FIVE], [FIVE]], pile=[], discard=[LL], ones=[3, 9, 2, 5],
              tens=[0, 1, 3, 0], players=[None] * 4)
    legal = r.legal_give(0)
    showman, greedy = policy_of("showman"), policy_of("greedy")
    prng = rng.new_state(1)
    assert ask(showman[0], r, 0, K.PHASE_GIVE, legal, showman[1], prng) == GIVE + 3  # 5 points: the leader
    assert ask(greedy[0], r, 0, K.PHASE_GIVE, legal, greedy[1], prng) == GIVE + 1
    target1 = policy_of("showman:target=1")
    r.ones, r.tens = [0, 9, 2, 5], [0, 1, 3, 0]  # seat 0 leads: push the highest (32 points) to 40
    assert ask(target1[0], r, 0, K.PHASE_GIVE, legal, target1[1], prng) == GIVE + 2


def test_showman_quits_more_readily_before_a_show_it_cannot_answer():
    base = dict(hands=[[FIVE, FIVE], [TWO], [TWO]], pile=[TWO], discard=[TWO], players=[None] * 3)
    calm = table(**base, stage_ones=1)
    loaded = table(**base, stage_ones=4, stage_tens=1)  # 14 points one llama away from a show
    showman = policy_of("showman")
    prng = rng.new_state(1)
    for r, expected in [(calm, DRAW), (loaded, QUIT)]:
        assert ask(showman[0], r, 0, K.PHASE_TURN, r.legal_turn(0), showman[1], prng) == expected
    armed = table(**{**base, "hands": [[FIVE, FIVE, LL], [TWO], [TWO]]}, stage_ones=4, stage_tens=1)
    assert ask(showman[0], armed, 0, K.PHASE_TURN, armed.legal_turn(0), showman[1], prng) == DRAW


def test_showman_stays_in_to_go_out_while_holding_only_10s():
    base = dict(hands=[[SIX], [TWO], [TWO]], pile=[TWO], discard=[TWO], players=[None] * 3)
    showman = policy_of("showman:flee=0,quit_at=8")
    prng = rng.new_state(1)
    with_ones, only_tens = table(**base, ones=[2, 3, 3], tens=[1, 0, 0]), table(**base, ones=[0, 3, 3], tens=[2, 0, 0])
    assert ask(showman[0], with_ones, 0, K.PHASE_TURN, with_ones.legal_turn(0), showman[1], prng) == QUIT
    assert ask(showman[0], only_tens, 0, K.PHASE_TURN, only_tens.legal_turn(0), showman[1], prng) == DRAW


def test_showman_in_a_show_plays_a_llama_else_passes_with_magic_else_collects():
    showman = policy_of("showman")
    prng = rng.new_state(1)
    for hand, magic, expected in [([LL, SIX], POOL, LL), ([SIX], 0, RET), ([SIX], POOL, COLLECT)]:
        r = table(hands=[hand, [TWO]], pile=[], discard=[LL], stage_ones=6, show=True, magic=magic,
                  players=[None] * 2)
        assert ask(showman[0], r, 0, K.PHASE_SHOW, r.legal_show(0), showman[1], prng) == expected


def test_showman_without_the_magic_pass_or_the_show_play():
    """use_magic=0 never returns the magic token; in_show=0 collects a show's stage at once."""
    prng = rng.new_state(1)
    for spec, hand, magic, expected in [("showman:use_magic=0", [SIX], 0, COLLECT),
                                        ("showman:in_show=0", [LL, SIX], POOL, COLLECT),
                                        ("showman:in_show=0", [LL, SIX], 0, RET),
                                        ("showman:use_magic=0,in_show=0", [LL, SIX], 0, COLLECT),
                                        ("showman:use_magic=0", [LL, SIX], 0, LL)]:
        policy, params = policy_of(spec)
        r = table(hands=[hand, [TWO]], pile=[], discard=[LL], stage_ones=6, show=True, magic=magic,
                  players=[None] * 2)
        assert ask(policy, r, 0, K.PHASE_SHOW, r.legal_show(0), params, prng) == expected, spec
    # stuck in a normal turn holding the magic token: pass with it, or (use_magic=0) draw
    for spec, expected in [("showman", RET), ("showman:use_magic=0", DRAW)]:
        policy, params = policy_of(spec)
        r = table(hands=[[FIVE, SIX], [TWO]], pile=[TWO] * 5, discard=[TWO], magic=0, players=[None] * 2)
        assert ask(policy, r, 0, K.PHASE_TURN, r.legal_turn(0), params, prng) == expected, spec


def test_climber_moves_the_top_up_when_it_holds_more_cards_above_than_at_it():
    climber, showman = policy_of("climber"), policy_of("showman")
    prng = rng.new_state(1)

    def decide(policy, hand, quit=(False, False, False, False)):
        r = table(hands=[hand, [TWO], [TWO], [TWO]], pile=[TWO], discard=[THREE], players=[None] * 4,
                  quit=list(quit))
        return ask(policy[0], r, 0, K.PHASE_TURN, r.legal_turn(0), policy[1], prng)

    # On a 3 holding 3 4 4 5: n(+1) + two_up n(+2) = 2 + 1 = 3 > same * n(0) = 2: a 4 (showman: the 3).
    assert decide(climber, [THREE, FOUR, FOUR, FIVE]) == FOUR
    assert decide(showman, [THREE, FOUR, FOUR, FIVE]) == THREE
    assert decide(climber, [THREE, FOUR, FOUR]) == THREE  # 2 is not more than 2
    assert decide(climber, [THREE, FOUR, K.code(8)]) == FOUR  # the 4|5 double counts as a 4 and as a 5
    assert decide(climber, [THREE, K.code(8), K.code(8)]) == THREE  # only a single-valued card climbs
    assert decide(climber, [THREE, FOUR, FOUR, FIVE], quit=(False, True, False, False)) == THREE  # 2 opponents in


def test_showman_beats_greedy_on_points_per_round():
    """On compare's balanced design (every seating, so greedy's habit of giving to its left-hand
    neighbour favours nobody), showman scores fewer points per round than greedy."""
    players = [registry.parse_spec("kadabra", s) for s in ["greedy", "showman"]]
    design = comparison_design(K.RULE_SET, 4, players, False, K.RULE_SET.config())
    tally = run(design, 11, 0, 3000, threads=2)
    diff = stats.paired(tally, "penalty_per_round").iloc[0]
    assert (diff["unit_a"], diff["unit_b"]) == (0, 1)
    assert diff["ci_low"] > 0.2  # greedy - showman
