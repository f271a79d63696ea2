"""The limit of a shedding rule set's kernel design: the bench line-up's work, specialised.

``limit_loop`` plays exactly what the block loop plays for ``bench`` (4 seats of the rule set's
``bench_strategy``, round mode): per block one key, the deal and policy streams seeded from it, the
lazy deal, every draw's Fisher-Yates step, the round's points, went-out and quits of every seat into
the block's vector and its squares (``core.blocks.record_round``, as the block loop adds them). It differs
only in what the kernel does to stay general: no policy call (the strategy's choice is a table,
``preference``, read from the strategy itself), no observation kept up to date, no legality check,
hands packed 4 bits per code. Its sums equal the kernel's on every seed (``tests/test_limits.py``),
so its speed is what the kernel's design allows; ``llamasim bench`` shows each kernel against it.
Measurement code: nothing plays with it.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from llama_sim.core import rng as R
from llama_sim.core.blocks import play_limit, record_round
from llama_sim.core.errors import UsageError
from llama_sim.core.views import stack_zeros
from llama_sim.rulesets.shedding.rules import HAND_SIZE, MAX_DECK, MAX_SEATS, OBS_TOP

NIBBLE = np.int64(15)
V_CAPACITY = 3 * MAX_SEATS  # round mode's block vector: penalty, went out and quit of each unit


def preference(policy, params, can_play_bits: np.ndarray, obs_len: int, top_field: int, draw: int) -> np.ndarray:
    """The order in which ``policy`` plays the cards that fit on each top (row ``top``, -1 padded), read
    from the policy by offering it every fitting card, then all but its choice, and so on. Right for a
    policy that plays by a fixed order per top card (``greedy``); for any other the limit's sums differ
    from the kernel's, which the limit's test reports."""
    n_codes = can_play_bits.shape[0]
    order = np.full((n_codes, n_codes), -1, np.int64)
    obs = np.zeros(obs_len, np.int64)
    hand = np.zeros(n_codes, np.int64)
    rng = np.array([1, 2], np.uint64)
    for top in range(n_codes):
        obs[top_field] = top
        offered = int(can_play_bits[top])
        for k in range(n_codes):
            if offered == 0:
                break
            choice = int(policy(obs, hand, np.int64(offered | (1 << draw)), params, rng))
            if not 0 <= choice < n_codes or not (offered >> choice) & 1:
                break
            order[top, k] = choice
            offered &= ~(1 << choice)
    return order


@njit(cache=True, nogil=True, inline="always")
def limit_loop(full_deck, can_play_bits, extra_turn, code_penalty, twins, order, seed, n_blocks, n,
               unit_of_seat, n_units, s1, upper):
    """``n_blocks`` blocks of one seating of ``order``'s strategy (round mode); sums into ``s1``, ``upper``."""
    n_codes = can_play_bits.shape[0]
    deck_len = full_deck.shape[0]
    deck = stack_zeros(MAX_DECK, deck_len, np.int8)
    packed = stack_zeros(MAX_SEATS, n, np.int64)  # 4 bits per code: the count of that code held
    held = stack_zeros(MAX_SEATS, n, np.int64)
    sizes = stack_zeros(MAX_SEATS, n, np.int64)
    quit = stack_zeros(MAX_SEATS, n, np.int64)
    penalty = stack_zeros(MAX_SEATS, n, np.int64)
    went_out = stack_zeros(MAX_SEATS, n, np.int64)
    final = stack_zeros(MAX_SEATS, n, np.int64)
    wins = stack_zeros(MAX_SEATS, n, np.int64)
    v = stack_zeros(V_CAPACITY, s1.shape[0], np.int64)
    drng = stack_zeros(2, 2, np.uint64)
    prng = stack_zeros(2, 2, np.uint64)
    for b in range(n_blocks):
        key = R.block_key(seed, b)
        R.seed_from_key(drng, key, R.DEAL_STREAM)
        R.seed_from_key(prng, key, R.POLICY_STREAM)
        for i in range(deck_len):
            deck[i] = full_deck[i]
        for k in range(HAND_SIZE * n + 1):
            j = k + R.below(drng, deck_len - k)
            card = deck[j]
            deck[j] = deck[k]
            deck[k] = card
        for s in range(n):
            p = np.int64(0)
            for k in range(HAND_SIZE):
                p += np.int64(1) << (4 * deck[HAND_SIZE * s + k])
            packed[s] = p
            bits = np.int64(0)
            for c in range(n_codes):
                bits |= np.int64(((p >> (4 * c)) & NIBBLE) > 0) << c
            held[s] = bits
            sizes[s] = HAND_SIZE
            quit[s] = 0
        top = np.int64(deck[HAND_SIZE * n])
        pos = HAND_SIZE * n + 1
        n_in = n
        seat = 0
        out = -1
        while n_in > 0:
            if quit[seat]:
                seat = seat + 1 if seat + 1 < n else 0
                continue
            fits = can_play_bits[top] & held[seat]
            a = np.int64(-1)
            if fits:
                for k in range(n_codes):
                    c = order[top, k]
                    if c < 0:
                        break
                    if (fits >> c) & 1:
                        a = c
                        break
            if a < 0:
                if pos < deck_len and n_in > 1:
                    j = pos + R.below(drng, deck_len - pos)
                    card = deck[j]
                    deck[j] = deck[pos]
                    deck[pos] = card
                    pos += 1
                    packed[seat] += np.int64(1) << (4 * card)
                    held[seat] |= np.int64(1) << card
                    sizes[seat] += 1
                else:
                    quit[seat] = 1
                    n_in -= 1
                seat = seat + 1 if seat + 1 < n else 0
                continue
            packed[seat] -= np.int64(1) << (4 * a)
            held[seat] &= ~(np.int64(((packed[seat] >> (4 * a)) & NIBBLE) == 0) << a)
            sizes[seat] -= 1
            top = a
            if sizes[seat] == 0:
                out = seat
                break
            if extra_turn[a]:
                continue
            seat = seat + 1 if seat + 1 < n else 0
        for s in range(n):
            bits = held[s]
            total = 0
            for c in range(n_codes):
                total += code_penalty[c] * ((bits >> c) & 1)
            for k in range(twins.shape[0]):
                total -= twins[k, 2] * (((bits >> twins[k, 0]) & 1) & ((bits >> twins[k, 1]) & 1))
            penalty[s] = 0 if s == out else total
            went_out[s] = 1 if s == out else 0
        record_round(v, n_units, unit_of_seat, n, penalty, went_out, quit, final, wins, s1, upper)
    return 0


def run(limit_blocks, full_deck, rules, plan, seed: int, n_blocks: int, s1: np.ndarray, s2: np.ndarray) -> None:
    """``limit_blocks`` (a rule set's ``limit_loop`` on its tables) on ``plan``'s one strategy, dealing ``full_deck``."""
    entry = plan.entries[0]
    if any(p.strategy is not entry.strategy or list(p.params) != list(entry.params) for p in plan.entries):
        raise UsageError("a shedding limit plays a line-up of one strategy, every seat on the same values")
    order = preference(entry.strategy.policy, np.array(entry.params), rules.can_play_bits, rules.layout.obs_len,
                       OBS_TOP, rules.layout.draw)
    play_limit(limit_blocks, (full_deck, order), plan, seed, n_blocks, s1, s2)
