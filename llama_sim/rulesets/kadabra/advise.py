"""``advise`` on Llama Kadabra: reading a position (cards with symbols, tokens, the magic token, the
stage and a running show), its legal actions and the roll-out kernel.

A position is at the start of a turn (or, with ``show``, of a show decision), never inside a
give-away. A roll-out deals the unseen cards as in the shedding games (``core.position.deal_unseen``)
and values an action by the change of the seat's token total. The roll-out kernel calls the game
kernel only through ``kadabra_round``.
"""
from __future__ import annotations

import numpy as np
from numba import njit, types

from llama_sim.core import rng as R
from llama_sim.core.advice import FIRST_SEAT, GAME_STREAM, action_phrase, horizon_kernels
from llama_sim.core.scoring import GAME_END_SCORE, MAX_ROUNDS_PER_GAME, accumulate, win_units
from llama_sim.core.errors import UsageError
from llama_sim.core.position import (
    CARD_POSITION_HELP, LAST_SCORE, Position, card_position, deal_unseen, int_list, unseen_cards, why_card_action_illegal,
)
from llama_sim.core.registry import POLICIES_TYPE
from llama_sim.core.views import copy_into
from llama_sim.rulesets.kadabra import POSITION_FLAGS, POSITION_HELP
from llama_sim.rulesets.kadabra import kernel as KK
from llama_sim.rulesets.kadabra import tables as T

SYMBOL_SUFFIX = {"": 0, "g": 1, "give": 1, "d": 2, "draw": 2, "m": 3, "magic": 3}


def parse_card(token: str, deck_counts: np.ndarray) -> int:
    """One card name to its code: 1-6, L, 2/3, 4/5 with an optional symbol (``1+give``, ``2d``, ``3m``):
    a bare name is the plain card, or the deck's only version of it when it has no plain one (the 1s
    carry give)."""
    t = token.strip().lower()
    kinds = {k.lower(): i for i, k in enumerate(T.KIND_SHORT)} | {"llama": T.LLAMA}
    base, sym = t, None
    for name in sorted(kinds, key=len, reverse=True):
        if t.startswith(name):
            base, rest = name, t[len(name):].lstrip("+")
            if rest not in SYMBOL_SUFFIX:
                raise UsageError(f"card '{token}': unknown symbol '{rest}' (use +give, +draw, +magic or g, d, m)")
            sym = SYMBOL_SUFFIX[rest] if rest else None
            break
    else:
        raise UsageError(f"card '{token}' is in no kadabra deck (cards: 1-6, L, 2/3, 4/5, e.g. 1+give, 2d, 3m)")
    kind = kinds[base]
    if sym is None:
        have = [s for s in range(T.N_SYMBOLS) if deck_counts[T.code(kind, s)] > 0]
        sym = 0 if (0 in have or not have) else have[0]
    return T.code(kind, sym)


def parse_magic(magic, n: int) -> int:
    """``--magic``: where the magic token is (pool, stage, me or another player's number)."""
    if magic is None or str(magic).lower() == "pool":
        return T.MAGIC_POOL
    m = str(magic).lower()
    if m == "stage":
        return T.MAGIC_STAGE
    if m in ("me", "0"):
        return 0
    try:
        k = int(m)
    except ValueError:
        raise UsageError(f"--magic: pool, stage, me or another player's number 1..{n - 1}, got '{magic}'") from None
    if not 1 <= k <= n - 1:
        raise UsageError(f"--magic {k}: the other players are numbered 1..{n - 1}")
    return k


@njit(cache=True, nogil=True, inline="always")
def kadabra_round(n, hands, deck, discard, quit, ones, tens, board, start,
                  policies, slot_of_entry, params, entry_of_seat, prng, obs, log):
    """-> (out_seat, last_actor)"""
    out, last_actor, _ = KK.play_round(n, hands, deck, discard, quit, ones, tens, board, start,
                                       policies, slot_of_entry, params, entry_of_seat, prng, obs, log)
    return out, last_actor


def _kadabra_rollouts(base_deck, seed, first, count, n, hand0, discard0, unseen0, sizes, quit0, ones0, tens0,
                      board0, actions, policies, slot_of_entry, params0, first_entries, rest_entries, game_horizon,
                      s1, s2):
    """Roll-outs of a Llama Kadabra position (``board0``: pile size at B_POS, top kind, stage, magic,
    show), every action on each; to the game's end unless ``game_horizon`` is None (``horizon_kernels``)."""
    k_actions = actions.shape[0]
    pile_n = board0[T.B_POS]
    params = params0.copy()
    unseen = unseen0.copy()
    drng = np.zeros(2, np.uint64)
    prng = np.zeros(2, np.uint64)
    grng = np.zeros(2, np.uint64)
    hands_d = np.zeros((n, T.N_CODES), np.int64)
    discard_d = np.zeros(T.N_CODES, np.int64)
    pile_d = np.zeros(pile_n, np.int64)
    hands = np.zeros((n, T.N_CODES), np.int64)
    discard = np.zeros(T.N_CODES, np.int64)
    pile = np.zeros(pile_n, np.int64)
    quit = np.zeros(n, np.int64)
    ones = np.zeros(n, np.int64)
    tens = np.zeros(n, np.int64)
    board = np.zeros(T.BOARD_LEN, np.int64)
    points = np.zeros(n, np.int64)
    deck = base_deck.copy()
    obs = np.zeros(T.OBS_LEN, np.int64)
    log = np.zeros((0, 2), np.int64)
    v = np.zeros(3 * k_actions, np.int64)
    totals = np.zeros(n, np.int64)
    forced_entry = first_entries[0]
    before = ones0[0] + 10 * tens0[0]
    for b in range(first, first + count):
        R.seed_state(drng, seed, b, R.DEAL_STREAM)
        deal_unseen(unseen0, unseen, drng, n, hand0, discard0, sizes, pile_n, hands_d, pile_d, discard_d)
        v[:] = 0
        for k in range(k_actions):
            copy_into(hands, hands_d)
            copy_into(discard, discard_d)
            copy_into(pile, pile_d)
            copy_into(quit, quit0)
            copy_into(ones, ones0)
            copy_into(tens, tens0)
            copy_into(board, board0)
            board[T.B_POS] = 0
            params[forced_entry, params.shape[1] - 1] = actions[k]
            R.seed_state(prng, seed, b, R.POLICY_STREAM)
            R.seed_state(grng, seed, b, GAME_STREAM)
            start = FIRST_SEAT
            cards = pile
            entries = first_entries
            for r in range(MAX_ROUNDS_PER_GAME + 1):  # the position's round, then (game horizon) the game's
                if r > 0:  # (one call of the round: each call site is another copy of it in the compiled code)
                    if game_horizon is None:  # (the round's kernel: the rest is not compiled into it)
                        break
                    top_score = 0
                    for s in range(n):
                        totals[s] = ones[s] + 10 * tens[s]
                        top_score = max(top_score, totals[s])
                    if top_score >= GAME_END_SCORE:
                        break
                    for i in range(deck.shape[0]):
                        deck[i] = base_deck[i]
                    R.shuffle(deck, grng)
                    KK.deal_round(n, deck, hands, discard, quit, board)
                    cards = deck
                    entries = rest_entries
                out, last_actor = kadabra_round(n, hands, cards, discard, quit, ones, tens, board, start,
                                                policies, slot_of_entry, params, entries, prng, obs, log)
                KK.score_round(n, hands, out, ones, tens, board, points)
                start = last_actor
                if r == 0:
                    v[k] = ones[0] + 10 * tens[0] - before
                    v[k_actions + k] = 1 if out == 0 else 0
                    if game_horizon is None:
                        break
            if game_horizon is not None:
                v[2 * k_actions + k] = win_units(totals, n)[0]
        accumulate(v, s1, s2)


_I64, _I64A, _I64M = types.int64, types.int64[::1], types.int64[:, ::1]
def rollouts_sig(horizon_type):
    """``_kadabra_rollouts``' signature, its ``game_horizon`` of type ``horizon_type``."""
    return types.void(
        _I64A, types.uint64, _I64, _I64, _I64, _I64A, _I64A, _I64A, _I64A, _I64A, _I64A, _I64A, _I64A,
        _I64A, POLICIES_TYPE, _I64A, types.float64[:, ::1], _I64A, _I64A, horizon_type, _I64A, _I64M)


kadabra_rollouts = horizon_kernels(_kadabra_rollouts, rollouts_sig, "advise kadabra roll-outs")


class KadabraAdvice:
    """``advise`` on Llama Kadabra (``core.advice.AdviceHooks``)."""

    default_policy = "showman"
    # The strongest by win rate at each count, from the league (``llamasim report --game kadabra``,
    # reports/kadabra-league/tables/league_strongest.csv): climber at 2 (tied with showman), 5 and 6
    # (0.012 [0.010, 0.013] and 0.015 [0.014, 0.016] ahead of showman); chart at 3 (0.029 [0.027, 0.031]
    # ahead of showman); at 4 the league ties chart and climber, and head to head climber is ahead
    # (``llamasim compare -g kadabra -p 4 chart climber --games 100000 --seed 5``: chart - climber
    # -0.0089 [-0.0118, -0.0059]; at 3 players +0.0128 [+0.0098, +0.0158]). Climber against showman,
    # same size and seed: +0.0188 [+0.0159, +0.0217] at 4 players, +0.0212 at 5, +0.0182 at 6.
    default_policies = {2: "climber", 3: "chart", 4: "climber", 5: "climber", 6: "climber"}
    rollout_kernel = kadabra_rollouts
    turn_index = T.OBS_TURN
    position_help = POSITION_HELP
    position_keys = tuple(position_help)
    position_flags = POSITION_FLAGS
    example = {"hand": "2/3 1 6", "top": "1", "hand_sizes": "4,2,3", "pile": 15, "ones": "3,2,5,1",
               "tens": "0,1,0,0"}

    def deck_counts(self, cfg) -> np.ndarray:
        return np.asarray(cfg, np.int64)[:T.N_CODES]

    def make_position(self, deck_counts=None, *, hand=None, top=None, hand_sizes=None, quit=None, pile=None,
                      discard=None, ones=None, tens=None, magic=None, stage=None, show=False) -> Position:
        deck = np.asarray(deck_counts if deck_counts is not None else T.DEFAULT_COUNTS, np.int64)
        pos = card_position("kadabra", deck, lambda token: parse_card(token, deck), T.CODE_NAMES, hand=hand,
                            top=top, hand_sizes=hand_sizes, quit=quit, pile=pile, discard=discard)
        n = pos.n
        pos.deck_counts = deck
        pos.ones = np.array(int_list(ones, "--ones", n, high=LAST_SCORE) if ones is not None else [T.START_ONES] * n, np.int64)
        pos.tens = np.array(int_list(tens, "--tens", n, high=LAST_SCORE // 10) if tens is not None else [0] * n, np.int64)
        pos.magic = parse_magic(magic, n)
        pos.stage_ones, pos.stage_tens = int_list(stage, "--stage", 2) if stage is not None else [0, 0]
        pos.show = bool(show)
        staged = pos.stage_ones + pos.stage_tens + (pos.magic == T.MAGIC_STAGE)
        if pos.show and staged < T.SHOW_AT:
            raise UsageError(f"a show runs only while the stage holds {T.SHOW_AT} or more tokens (it holds {staged})")
        pos.scores = pos.ones + 10 * pos.tens
        if pos.scores.max() > LAST_SCORE:
            raise UsageError(f"--ones and --tens: a score of {int(pos.scores.max())} ends the game (it ends at 40); "
                             f"a position's scores are 0 to {LAST_SCORE}")
        return pos

    def root_actions(self, pos: Position) -> list[int]:
        n_in = pos.players_in
        top_kind = int(T.CODE_KIND[pos.top])
        if pos.show:
            acts = [c for c in T.LLAMA_CODES if pos.hand[c] > 0] + [T.COLLECT]
        else:
            acts = [c for c in range(T.N_CODES) if pos.hand[c] > 0 and T.PLAYABLE[top_kind, c]]
            if pos.pile > 0 and n_in > 1:
                acts.append(T.DRAW)
            acts.append(T.QUIT)
        if pos.magic == 0 and n_in > 1:
            acts.append(T.RETURN_MAGIC)
        return sorted(int(a) for a in acts)

    def why_illegal(self, pos: Position, name: str) -> str:
        return why_card_action_illegal(pos, name)

    def action_key(self, pos: Position, text: str) -> str:
        if text.startswith("play "):
            try:
                return "play " + T.CODE_NAMES[parse_card(text[5:], pos.deck_counts)].lower()
            except UsageError:
                pass
        return text

    def chance_free(self, pos: Position, name: str) -> bool:
        # alone nobody draws and gifts have no effect; only a draw symbol draws (for the player alone)
        draw_cards = sum(int(pos.hand[c]) for c in range(T.N_CODES) if T.CODE_SYMBOL[c] == T.SYM_DRAW)
        return pos.players_in == 1 and (pos.pile == 0 or draw_cards == 0)

    def exact_answer(self, pos, names, cfg, horizon):
        return None

    def rollout_runner(self, pos, actions, line, game_horizon, seed, cfg):
        counts = np.asarray(pos.deck_counts, np.int64)
        unseen, discard0 = unseen_cards(pos, counts, np.int64)
        board = np.zeros(T.BOARD_LEN, np.int64)
        board[T.B_POS] = pos.pile
        board[T.B_TOP] = T.CODE_KIND[pos.top]
        board[T.B_STAGE_ONES] = pos.stage_ones
        board[T.B_STAGE_TENS] = pos.stage_tens
        board[T.B_MAGIC] = pos.magic
        board[T.B_SHOW] = int(pos.show)
        base = KK.deck_from_counts(counts)
        kernel, game = kadabra_rollouts.compiled(game_horizon)
        n = pos.n

        def run(first, count, s1, s2):
            kernel(base, seed, first, count, n, pos.hand, discard0, unseen, pos.hand_sizes, pos.quit, pos.ones,
                   pos.tens, board, actions, line.policies, line.slot_of_entry, line.params, line.first_entries,
                   line.rest_entries, game, s1, s2)
        return run

    def phrase(self, name: str) -> str:
        return action_phrase(name, {"draw": "drawing", "quit": "quitting", "collect": "collecting",
                                    "return magic": "returning the magic token"})


ADVICE = KadabraAdvice()
