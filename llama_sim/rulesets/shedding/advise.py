"""``advise`` for the shedding games (L.A.M.A. and the Party Edition): reading a position, its legal
actions and the roll-out kernel, all on the rule set's ``shedding.SheddingRules``.

A roll-out deals the unseen cards (the deck minus the own hand, the top card and the remembered
discard cards) at random from the stream (seed, i, DEAL) into the other hands (their sizes), the
draw pile (its size) and the covered discard pile (the rest), then plays every action on that deal
with the policy stream (seed, i, POLICY). The roll-out kernel calls the game kernel only through
``shedding_round``, so a change of the kernel's arguments is fixed in one place.
"""
from __future__ import annotations

import numpy as np
from numba import njit, types

from llama_sim.core import rng as R
from llama_sim.core.advice import GAME_STREAM, action_phrase, horizon_kernels
from llama_sim.core.scoring import GAME_END_SCORE, MAX_ROUNDS_PER_GAME, accumulate, largest_token, win_units
from llama_sim.core.errors import UsageError
from llama_sim.core.ruleset import card_position_help
from llama_sim.core.position import (
    CARD_POSITION_HELP, LAST_SCORE, Position, card_position, deal_unseen, int_list, unseen_cards, why_card_action_illegal,
)
from llama_sim.core.registry import POLICIES_TYPE
from llama_sim.core.views import copy_into
from llama_sim.rulesets import shedding


@njit(cache=True, nogil=True, inline="always")
def shedding_round(can_play_bits, extra_turn, n, hands, deck, pos, top, discard, quit, start, scores,
                   policies, slot_of_entry, params, entry_of_seat, prng, obs, log):
    """The draw pile is ``deck[pos:]``. -> (out_seat, last_card_seat, last_actor). Compiled into the
    roll-outs: ``shedding.play_round`` hands the round one set of types whatever these arguments are."""
    out, last_card, last_actor, _, _ = shedding.play_round(
        can_play_bits, extra_turn, n, hands, deck, pos, top, discard, quit, start, scores,
        policies, slot_of_entry, params, entry_of_seat, prng, obs, log)
    return out, last_card, last_actor


@njit(cache=True, nogil=True, inline="always")
def score_shedding_round(n, hands, out, scores, code_penalty, twins, allow20):
    """Add a finished round's points to ``scores``; the player who went out (``out``) returns a token
    instead."""
    for s in range(n):
        scores[s] += 0 if s == out else shedding.seat_penalty(hands, s, code_penalty, twins)
    if out >= 0:
        scores[out] -= largest_token(scores[out], allow20)


def _shedding_rollouts(can_play, extra_turn, code_penalty, twins, flags, full_deck,
                       seed, first, count, n, hand0, top0, discard0, unseen0, sizes, pile_n, quit0, scores0,
                       actions, policies, slot_of_entry, params0, first_entries, rest_entries, game_horizon,
                       s1, s2):
    """Roll-outs ``first .. first+count-1`` of a shedding-game position, every action on each; to the game's
    end unless ``game_horizon`` is None (``horizon_kernels``)."""
    n_codes = can_play.shape[0]
    k_actions = actions.shape[0]
    params = params0.copy()
    unseen = unseen0.copy()
    drng = np.zeros(2, np.uint64)
    prng = np.zeros(2, np.uint64)
    grng = np.zeros(2, np.uint64)
    hands_d = np.zeros((n, n_codes), np.int64)
    discard_d = np.zeros(n_codes, np.int64)
    pile_d = np.zeros(pile_n, np.int8)
    hands = np.zeros((n, n_codes), np.int64)
    discard = np.zeros(n_codes, np.int64)
    pile = np.zeros(pile_n, np.int8)
    quit = np.zeros(n, np.int64)
    scores = np.zeros(n, np.int64)
    deck = full_deck.copy()
    obs = np.zeros(shedding.obs_len(n_codes), np.int64)
    can_play_bits = shedding.play_bits_jit(can_play)
    log = np.zeros((0, 2), np.int64)
    v = np.zeros(3 * k_actions, np.int64)
    allow20 = flags[shedding.F_TOKENS20] != 0
    starter_last_card = flags[shedding.F_STARTER_LAST_CARD] != 0
    forced_entry = first_entries[0]
    for b in range(first, first + count):
        R.seed_state(drng, seed, b, R.DEAL_STREAM)
        deal_unseen(unseen0, unseen, drng, n, hand0, discard0, sizes, pile_n, hands_d, pile_d, discard_d)
        v[:] = 0
        for k in range(k_actions):
            copy_into(hands, hands_d)
            copy_into(discard, discard_d)
            copy_into(pile, pile_d)
            copy_into(quit, quit0)
            copy_into(scores, scores0)
            params[forced_entry, params.shape[1] - 1] = actions[k]
            R.seed_state(prng, seed, b, R.POLICY_STREAM)
            R.seed_state(grng, seed, b, GAME_STREAM)
            cards = pile
            pos = 0
            top = top0
            start = 0
            entries = first_entries
            for r in range(MAX_ROUNDS_PER_GAME + 1):  # the position's round, then (game horizon) the game's
                if r > 0:  # (one call of the round: each call site is another copy of it in the compiled code)
                    if game_horizon is None:  # (the round's kernel: the rest is not compiled into it)
                        break
                    top_score = 0
                    for s in range(n):
                        top_score = max(top_score, scores[s])
                    if top_score >= GAME_END_SCORE:
                        break
                    for i in range(deck.shape[0]):
                        deck[i] = full_deck[i]
                    R.shuffle(deck, grng)
                    pos, top = shedding.deal_round(n, deck, hands, discard, quit)
                    cards = deck
                    entries = rest_entries
                out, last_card, last_actor = shedding_round(can_play_bits, extra_turn, n, hands, cards, pos, top,
                                                            discard, quit, start, scores, policies, slot_of_entry,
                                                            params, entries, prng, obs, log)
                score_shedding_round(n, hands, out, scores, code_penalty, twins, allow20)
                start = last_card if (starter_last_card and last_card >= 0) else last_actor
                if r == 0:
                    v[k] = scores[0] - scores0[0]
                    v[k_actions + k] = 1 if out == 0 else 0
                    if game_horizon is None:
                        break
            if game_horizon is not None:
                v[2 * k_actions + k] = win_units(scores, n)[0]
        accumulate(v, s1, s2)


_I64, _I64A, _I64M, _U8A, _I8A = types.int64, types.int64[::1], types.int64[:, ::1], types.uint8[::1], types.int8[::1]
def rollouts_sig(horizon_type):
    """``_shedding_rollouts``' signature, its ``game_horizon`` of type ``horizon_type``."""
    return types.void(
        _U8A.copy(ndim=2, layout="C"), _U8A, _I64A, _I64M, _I64A, _I8A,
        types.uint64, _I64, _I64, _I64, _I64A, _I64, _I64A, _I8A, _I64A, _I64, _I64A, _I64A,
        _I64A, POLICIES_TYPE, _I64A, types.float64[:, ::1], _I64A, _I64A, horizon_type, _I64A, _I64M)


shedding_rollouts = horizon_kernels(_shedding_rollouts, rollouts_sig, "advise shedding roll-outs")


class SheddingAdvice:
    """``advise`` on one shedding rule set (``core.advice.AdviceHooks``): its cards, actions and tables
    come from ``rules``; ``card_aliases`` are other names of cards (``{"llama": "l"}``)."""

    position_keys = tuple(CARD_POSITION_HELP)
    position_flags = frozenset()
    turn_index = shedding.OBS_TURN

    def __init__(self, rules: shedding.SheddingRules, default_policy: str, card_aliases: dict[str, str],
                 example: dict, default_policies: dict[int, str] | None = None):
        self.rules = rules
        self.example = example
        self.position_help = card_position_help(rules.code_names, example["hand"])
        self.default_policy = default_policy
        self.default_policies = dict(default_policies or {})
        self.rollout_kernel = shedding_rollouts
        self.card_aliases = card_aliases
        self.draw = rules.layout.draw
        self.quit = rules.layout.quit_action
        self.deck = np.bincount(rules.deck.astype(np.int64), minlength=rules.n_codes)

    def parse_card(self, token: str) -> int:
        """One card name to its code (a name of ``code_names`` or an alias, any case)."""
        names = {n.lower(): c for c, n in enumerate(self.rules.code_names)}
        names.update({alias: names[name] for alias, name in self.card_aliases.items()})
        code = names.get(token.strip().lower(), -1)
        if code < 0:
            raise UsageError(f"card '{token}' is in no {self.rules.name} deck "
                             f"(cards: {' '.join(self.rules.code_names)})")
        return code

    def deck_counts(self, cfg) -> np.ndarray:
        return self.deck.copy()

    def make_position(self, deck_counts=None, *, hand=None, top=None, hand_sizes=None, quit=None, pile=None,
                      discard=None, scores=None) -> Position:
        deck = self.deck if deck_counts is None else np.asarray(deck_counts, np.int64)
        pos = card_position(self.rules.name, deck, self.parse_card, self.rules.code_names, hand=hand, top=top,
                            hand_sizes=hand_sizes, quit=quit, pile=pile, discard=discard)
        n = pos.n
        pos.scores = np.array(int_list(scores, "--scores", n, high=LAST_SCORE) if scores is not None else [0] * n, np.int64)
        return pos

    def root_actions(self, pos: Position) -> list[int]:
        can_play = self.rules.can_play
        acts = [c for c in range(self.rules.n_codes) if pos.hand[c] > 0 and can_play[pos.top, c]]
        if pos.pile > 0 and pos.players_in > 1:
            acts.append(self.draw)
        acts.append(self.quit)
        return acts

    def why_illegal(self, pos: Position, name: str) -> str:
        return why_card_action_illegal(pos, name)

    def action_key(self, pos: Position, text: str) -> str:
        if text.startswith("play "):
            try:
                return "play " + self.rules.code_names[self.parse_card(text[5:])].lower()
            except UsageError:
                pass
        return text

    def chance_free(self, pos: Position, name: str) -> bool:
        # quitting: the own cards are final; alone nobody draws, so the rest of the round is the own
        # strategy on the own hand
        return name == "quit" or pos.players_in == 1

    def exact_answer(self, pos, names, cfg, horizon):
        return None

    def options_text(self, obs, hand) -> str:
        """The ``advise`` options of what the acting seat of ``obs`` sees (``llamasim grade`` lists
        positions so): the other seats in turn order after it, the discard pile besides its top."""
        names = self.rules.code_names
        n, me, top = int(obs[shedding.OBS_PLAYERS]), int(obs[shedding.OBS_SEAT]), int(obs[shedding.OBS_TOP])
        o_quit = shedding.OBS_HAND_SIZES + shedding.MAX_SEATS
        o_scores, o_discard = o_quit + shedding.MAX_SEATS, o_quit + 2 * shedding.MAX_SEATS
        others = [(me + k) % n for k in range(1, n)]
        cards = lambda counts: " ".join(names[c] for c in range(len(names)) for _ in range(int(counts[c])))
        discard = np.array([obs[o_discard + c] for c in range(len(names))])
        discard[top] -= 1
        parts = [f'--hand "{cards(hand)}"', f"--top {names[top]}",
                 "--hand-sizes " + ",".join(str(int(obs[shedding.OBS_HAND_SIZES + s])) for s in others),
                 f"--pile {int(obs[shedding.OBS_DRAW_PILE])}"]
        quit = [str(k + 1) for k, s in enumerate(others) if obs[o_quit + s]]
        if quit:
            parts.append("--quit " + ",".join(quit))
        if discard.sum():
            parts.append(f'--discard "{cards(discard)}"')
        scores = [int(obs[o_scores + s]) for s in [me] + others]
        if any(scores):
            parts.append("--scores " + ",".join(map(str, scores)))
        return f"--game {self.rules.name} " + " ".join(parts)

    def rollout_runner(self, pos, actions, line, game_horizon, seed, cfg):
        rules = self.rules
        unseen, discard0 = unseen_cards(pos, self.deck, np.int8)
        kernel, game = shedding_rollouts.compiled(game_horizon)
        full = np.ascontiguousarray(rules.deck, dtype=np.int8)
        n = pos.n

        def run(first, count, s1, s2):
            kernel(rules.can_play, rules.extra_turn, rules.code_penalty, rules.twins, rules.flags, full,
                   seed, first, count, n, pos.hand, pos.top, discard0, unseen, pos.hand_sizes, pos.pile,
                   pos.quit, pos.scores, actions, line.policies, line.slot_of_entry, line.params, line.first_entries,
                   line.rest_entries, game, s1, s2)
        return run

    def phrase(self, name: str) -> str:
        return action_phrase(name, {"draw": "drawing", "quit": "quitting"})
