"""``advise`` for the toy rule set: its position, legal actions and roll-out kernel (the hooks of
``core.advice.AdviceHooks``). A roll-out deals the unseen cards into the other hands, the draw pile
and the covered discard pile (``core.position.deal_unseen``), then plays every action on that deal."""
from __future__ import annotations

import numpy as np
from numba import njit

from llama_sim.core import rng as R
from llama_sim.core.advice import GAME_STREAM, action_phrase
from llama_sim.core.scoring import GAME_END_SCORE, MAX_ROUNDS_PER_GAME, accumulate, largest_token, win_units
from llama_sim.core.errors import UsageError
from llama_sim.core.position import (
    CARD_POSITION_HELP, Position, card_position, deal_unseen, int_list, unseen_cards, why_card_action_illegal,
)
from toy_ruleset import (
    CODE_NAMES, DECK, MAX_PLAYERS, N_CODES, NOBODY, OBS_TURN, QUIT, copy_into, legal_mask, penalty_of, play_round,
    play_state,
)


@njit(cache=True)
def rollouts(seed, first, count, n, hand0, top0, discard0, unseen0, sizes, pile_n, quit0, scores0, actions,
             policies, slot_of_entry, params0, first_entries, rest_entries, game_horizon, s1, s2):
    k_actions = actions.shape[0]
    params = params0.copy()
    unseen = unseen0.copy()
    drng, prng, grng = np.zeros(2, np.uint64), np.zeros(2, np.uint64), np.zeros(2, np.uint64)
    hands_d, hands = np.zeros((n, N_CODES), np.int64), np.zeros((n, N_CODES), np.int64)
    discard_d = np.zeros(N_CODES, np.int64)
    pile_d, pile = np.zeros(pile_n, np.int64), np.zeros(pile_n, np.int64)
    quit, scores = np.zeros(n, np.int64), np.zeros(n, np.int64)
    penalty, quits, bad = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(3, np.int64)
    v = np.zeros(3 * k_actions, np.int64)
    forced_entry = first_entries[0]
    for b in range(first, first + count):
        R.seed_state(drng, seed, b, R.DEAL_STREAM)
        deal_unseen(unseen0, unseen, drng, n, hand0, discard0, sizes, pile_n, hands_d, pile_d, discard_d)
        v[:] = 0
        for k in range(k_actions):
            copy_into(hands, hands_d)
            copy_into(pile, pile_d)
            copy_into(quit, quit0)
            copy_into(scores, scores0)
            params[forced_entry, params.shape[1] - 1] = actions[k]
            R.seed_state(prng, seed, b, R.POLICY_STREAM)
            out = play_state(n, hands, pile, 0, top0, quit, 0, scores, first_entries, policies, slot_of_entry,
                             params, prng, bad)
            for s in range(n):
                scores[s] += 0 if s == out else penalty_of(hands[s])
            if out != NOBODY:
                scores[out] -= largest_token(scores[out], False)
            v[k] = scores[0] - scores0[0]
            v[k_actions + k] = 1 if out == 0 else 0
            if game_horizon:
                R.seed_state(grng, seed, b, GAME_STREAM)
                start = 1 % n
                for r in range(MAX_ROUNDS_PER_GAME):
                    if scores.max() >= GAME_END_SCORE:
                        break
                    out = play_round(n, start, scores, rest_entries, policies, slot_of_entry, params, grng, prng,
                                     penalty, quits, bad)
                    if out != NOBODY:
                        penalty[out] = -largest_token(scores[out], False)
                    scores += penalty
                    start = (start + 1) % n
                v[2 * k_actions + k] = win_units(scores, n)[0]
        accumulate(v, s1, s2)


def parse_card(token: str) -> int:
    names = {name: c for c, name in enumerate(CODE_NAMES)}
    if token.strip() not in names:
        raise UsageError(f"card '{token}' is in no toy deck (cards: {' '.join(CODE_NAMES)})")
    return names[token.strip()]


class ToyAdvice:
    """The toy's part of ``advise``."""

    default_policy = "greedy"
    turn_index = OBS_TURN
    position_help = CARD_POSITION_HELP
    position_keys = tuple(position_help)
    position_flags = frozenset()
    example = {"hand": "1 3 3", "top": "2", "hand_sizes": "2,3", "pile": 3}
    deck = np.bincount(DECK, minlength=N_CODES)

    def deck_counts(self, cfg):
        return self.deck.copy()

    def make_position(self, deck_counts=None, *, hand=None, top=None, hand_sizes=None, quit=None, pile=None,
                      discard=None, scores=None) -> Position:
        pos = card_position("toy", self.deck, parse_card, CODE_NAMES, hand=hand, top=top, hand_sizes=hand_sizes,
                            quit=quit, pile=pile, discard=discard)
        if pos.n > MAX_PLAYERS:
            raise UsageError(f"{pos.n} players: the toy takes 2 to {MAX_PLAYERS}")
        pos.scores = np.array(int_list(scores, "--scores", pos.n) if scores is not None else [0] * pos.n, np.int64)
        return pos

    def root_actions(self, pos: Position) -> list[int]:
        mask = legal_mask(pos.hand, pos.top, pos.pile, pos.players_in > 1)
        return [a for a in range(QUIT + 1) if (mask >> a) & 1]

    def why_illegal(self, pos: Position, name: str) -> str:
        return why_card_action_illegal(pos, name)

    def action_key(self, pos: Position, text: str) -> str:
        return text

    def chance_free(self, pos: Position, name: str) -> bool:
        return name == "quit" or pos.players_in == 1

    def exact_answer(self, pos, names, cfg, horizon):
        return None

    def rollout_runner(self, pos, actions, line, game_horizon, seed, cfg):
        unseen, discard0 = unseen_cards(pos, self.deck, np.int64)

        def run(first, count, s1, s2):
            rollouts(seed, first, count, pos.n, pos.hand, pos.top, discard0, unseen, pos.hand_sizes, pos.pile,
                     pos.quit, pos.scores, actions, line.policies, line.slot_of_entry, line.params,
                     line.first_entries, line.rest_entries, game_horizon, s1, s2)
        return run

    def phrase(self, name: str) -> str:
        return action_phrase(name, {"draw": "drawing", "quit": "quitting"})


ADVICE = ToyAdvice()
