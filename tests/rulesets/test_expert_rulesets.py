"""The expert (``core.expert``) on Llama Kadabra and LAMA Dice: legal play and finished games,
reproducibility across threads, and exact positions whose best action is certain (or solved)."""
import numpy as np
import pytest

from llama_sim import api
from llama_sim.core import registry
from llama_sim.rulesets import dice as D
from llama_sim.rulesets import kadabra as K
from llama_sim.rulesets.dice.kernel import discard_masks
from llama_sim.rulesets.dice.solver import parse_cards, solve_solo


@pytest.mark.parametrize("game, base", [("kadabra", "climber"), ("dice", "chart")])
def test_expert_plays_legal_finished_games_the_same_on_any_thread_count(game, base):
    """Every action it took was legal (the engine raises otherwise), every game ended, and the same
    seed gives the same games with 1 and 2 threads."""
    runs = [api.compare(game, ["expert:rollouts=16", base], players=2, games=4, seed=5, threads=t,
                        quiet=True).results for t in (1, 2)]  # two deal blocks: one per thread
    assert runs[0].equals(runs[1])
    assert (runs[0][runs[0].metric == "rounds_per_game"].value > 0).all()


def test_dice_expert_plays_three_player_rounds_on_its_own_points():
    """Rounds at 3 players (takes are frequent there) with the own-points objective."""
    res = api.simulate("dice", ["expert:rollouts=16,objective=0", "watcher", "chart"], rounds=12, seed=2,
                       threads=1, quiet=True)
    assert len(res.results) > 0


def expert_at(game, spec, n):
    player = registry.at_table(registry.parse_spec(game, spec), n)
    return lambda obs, hand, legal: int(player.strategy.policy(obs, hand, np.int64(legal), player.params,
                                                                np.array([7, 11], np.uint64)))


# ---- Llama Kadabra, 4 players, seat 0 to act, 5 cards in each other hand, 20 in the pile.

def kadabra_position(hand_codes, top):
    """The observation (and hand) of a position whose discard pile is the top card and, to make the
    card counts add up to the deck, the highest codes (doubles, llamas, 6s): never a 1, 2 or 3."""
    n = 4
    hand = np.zeros(K.N_CODES, np.int64)
    for c in hand_codes:
        hand[c] += 1
    deck = K.DEFAULT_COUNTS.astype(np.int64)
    discard = np.zeros(K.N_CODES, np.int64)
    discard[top] = 1
    left = int(deck.sum()) - len(hand_codes) - 3 * 5 - 20 - 1
    for c in range(K.N_CODES - 1, -1, -1):
        take = min(deck[c] - hand[c] - discard[c], left)
        discard[c] += take
        left -= take
    assert left == 0 and (discard <= deck - hand).all()
    obs = np.zeros(K.OBS_LEN, np.int64)
    obs[K.OBS_PLAYERS] = n
    obs[K.OBS_PHASE] = K.PHASE_TURN
    obs[K.OBS_TOP] = K.CODE_KIND[top]
    obs[K.OBS_DRAW_PILE] = 20
    obs[K.OBS_ACTIVE] = n
    obs[K.OBS_TURN] = 7
    obs[K.OBS_MAGIC] = K.MAGIC_POOL
    obs[K.OBS_HAND_SIZES:K.OBS_HAND_SIZES + n] = [len(hand_codes), 5, 5, 5]
    obs[K.OBS_ONES:K.OBS_ONES + n] = 3
    obs[K.OBS_DISCARD:K.OBS_DISCARD + K.N_CODES] = discard
    obs[K.OBS_DECK:K.OBS_DECK + K.N_CODES] = deck
    return obs, hand


@pytest.mark.parametrize("objective", [0, 1])
def test_kadabra_expert_goes_out_with_its_last_card(objective):
    """One plain 3 on a 2: playing it goes out (0 card points, a 1 returned); drawing or quitting keeps
    at least the 3's points. Certain whatever the hidden cards."""
    three = K.code(2)
    obs, hand = kadabra_position([three], K.code(1))
    legal = (1 << three) | (1 << K.DRAW) | (1 << K.QUIT)
    choose = expert_at("kadabra", f"expert:rollouts=16,objective={objective}", 4)
    assert choose(obs, hand, legal) == three
    obs[K.OBS_DECK:] = 0  # a hand-made observation without the deck: the default deck stands in
    assert choose(obs, hand, legal) == three


def test_kadabra_give_with_the_last_card_is_valued_exactly_and_its_target_is_the_bases():
    """Grade values give-away targets by roll-outs: with the last card played the round ends after
    the give, so every target is worth the same to the giver (a 1 given, a 1 returned for going out).
    The expert itself leaves the target to its base: climber gives to the leader (fewest points)."""
    from llama_sim.strategies.kadabra import EXPERT_SEARCH

    obs, hand = kadabra_position([], K.code(0, K.SYM_GIVE))
    obs[K.OBS_PHASE] = K.PHASE_GIVE
    legal = sum(1 << (K.GIVE + s) for s in (1, 2, 3))
    out = np.zeros((8, 3))
    EXPERT_SEARCH.values(obs, hand, np.int64(legal), np.uint64(5), 8, 0, 0, out)
    assert (out == -2.0).all()
    obs[K.OBS_ONES + 2] = 1
    assert expert_at("kadabra", "expert:rollouts=16", 4)(obs, hand, legal) == K.GIVE + 2


# ---- LAMA Dice: seat 0 alone in the round (the others have quit); the solo solver's values are exact.

def dice_alone_position(row, llama_row):
    n = 4
    obs = np.zeros(D.OBS_LEN, np.int64)
    obs[D.OBS_PLAYERS] = n
    obs[D.OBS_PHASE] = D.PHASE_TURN
    obs[D.OBS_ACTIVE] = 1
    obs[D.OBS_TURN] = 9
    obs[D.OBS_LAYOUT_ID] = D.DEFAULT_LAYOUT_ID
    obs[D.OBS_FACES:D.OBS_FACES + 18] = D.LAYOUT_FACES[D.DEFAULT_LAYOUT_ID].ravel()
    obs[D.OBS_DICE:D.OBS_DICE + 3] = -1
    hand = parse_cards(row)
    obs[D.OBS_ROWS:D.OBS_ROWS + 7] = hand
    for s in range(1, n):
        obs[D.OBS_ROWS + 7 * s + s] = 1  # the others' rows: one card each, final
        obs[D.OBS_QUIT + s] = 1
    obs[D.OBS_LLAMA_ROW:D.OBS_LLAMA_ROW + 7] = parse_cards(llama_row)
    return obs, hand


@pytest.mark.parametrize("row, llama_row, best", [("2 3 4 5 6 L", "1", D.ROLL), ("1", "2 3 4 5 6 L", D.QUIT)])
@pytest.mark.parametrize("base", [0, 1])
def test_dice_expert_alone_takes_the_solved_best_action(row, llama_row, best, base):
    """2 3 4 5 6 L with only the 1 left in the llama row: quit 30, roll on 6.10; a lone 1 with the
    rest of the llama row: quit 1, roll on 20.42 (``solve dice``)."""
    solved = solve_solo(row, llama_row)
    assert abs(solved.quit_value - solved.roll_value) > 10 and solved.best_action == D.ACTION_NAMES[best]
    obs, hand = dice_alone_position(row, llama_row)
    legal = (1 << D.ROLL) | (1 << D.QUIT)
    assert expert_at("dice", f"expert:rollouts=16,base={base}", 4)(obs, hand, legal) == best


def test_dice_expert_goes_out_on_a_discard_mid_turn():
    """After the roll (die A shows 1, B a llama, C a 5) with the row 1 L: discarding with A and B empties
    the row (0 points), either alone keeps a card; the roll-out starts after the discard."""
    obs, hand = dice_alone_position("1 L", "2 3 4 5 6")
    obs[D.OBS_ACTIVE] = 2
    obs[D.OBS_QUIT + 1] = 0
    faces = [0, D.LLAMA, 4]
    obs[D.OBS_PHASE] = D.PHASE_DISCARD
    obs[D.OBS_DICE:D.OBS_DICE + 3] = faces
    for f in faces:
        obs[D.OBS_ROLLED + f] += 1
    legal = int(discard_masks(*faces, *(hand[f] for f in faces))) << D.DISCARD_BASE
    assert legal == sum(1 << (D.DISCARD_BASE + m) for m in (1, 2, 3))
    for objective in (0, 1):
        assert expert_at("dice", f"expert:rollouts=16,objective={objective}", 4)(obs, hand, legal) == D.DISCARD_BASE + 3


def test_dice_expert_considers_one_of_equal_discards():
    """Dice A and B both show a 4 and the row holds one 4 and a llama: discarding with A or with B is
    the same discard, so only A's masks stay candidates."""
    from llama_sim.rulesets.dice.expert import distinct_actions

    obs, hand = dice_alone_position("4 L 2", "1 3 5 6")
    faces = [3, 3, D.LLAMA]
    obs[D.OBS_PHASE] = D.PHASE_DISCARD
    obs[D.OBS_DICE:D.OBS_DICE + 3] = faces
    legal = int(discard_masks(*faces, *(hand[f] for f in faces))) << D.DISCARD_BASE
    masks = [m for m in range(1, 8) if legal >> (D.DISCARD_BASE + m) & 1]
    assert masks == [1, 2, 4, 5, 6]
    kept = int(distinct_actions(obs, np.int64(legal)))
    assert [m for m in range(1, 8) if kept >> (D.DISCARD_BASE + m) & 1] == [1, 4, 5]
    assert expert_at("dice", "expert:rollouts=16", 4)(obs, hand, legal) in {D.DISCARD_BASE + m for m in (1, 4, 5)}
