"""Where a L.A.M.A. round's time goes: the shipped kernel against stripped-down loops, in one run.

    python benchmarks/ceiling.py [--rounds 500000] [--repeats 3]

Every variant plays 4 ``greedy`` players on fresh, lazily dealt 56-card decks (``rng.below``
forward Fisher-Yates, as the kernel deals) and scores the round; the variants differ only in how
a decision reaches the policy:

- ``specialised``: greedy written into the loop, reading the hand counts directly (no observation,
  no legal set, no policy call): what this engine's data layout costs by itself;
- ``obs+legal, inline``: the loop builds the observation's hand and the legal set at every
  decision, as the kernel does, and runs greedy's code inline (no call);
- ``obs+legal, call``: as above, calling the compiled ``greedy`` through the first-class function
  tuple (``registry.POLICIES_TYPE``), as the kernel does;
- ``kernel``: the shipped ``run_chunk`` (adds seating rows, the parameter buffer, the per-seat
  statistics and their squares, two seeded streams per round).

Rounds per CPU-second of this thread (``time.thread_time``), median of ``--repeats``. The
variants are measurement code, not engines: no test depends on them. Printed, never asserted.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from numba import njit

from llama_sim import registry
from llama_sim import rng as R
from llama_sim.games import get_game, lama
from llama_sim.games.shedding import HAND_SIZE, deal_lazy_round, seat_penalty
from llama_sim.simulate import run_chunk, seat_plan

N_CODES, DRAW, QUIT = lama.N_CODES, lama.DRAW, lama.QUIT
DECK, CAN_PLAY, CODE_PENALTY, TWINS = lama.DECK, lama.CAN_PLAY, lama.CODE_PENALTY, lama.TWINS
OBS_LEN, N_ACTIONS = lama.OBS_LEN, lama.N_ACTIONS
SPECIALISED, INLINE, CALL = 0, 1, 2
OBS_TOP, OBS_HAND = lama.OBS_TOP, lama.OBS_HAND


@njit(cache=True, inline="always")
def _greedy_inline(obs, legal):
    top = obs[OBS_TOP]
    if legal[top]:
        return top
    nxt = top + 1 if top + 1 < N_CODES else 0
    if legal[nxt]:
        return nxt
    if legal[DRAW]:
        return DRAW
    return QUIT


@njit(cache=True)
def _rounds(mode, n_rounds, seed, policies, pbuf, prng):
    """``n_rounds`` 4-player rounds; returns decisions + penalties (so nothing is optimised away)."""
    n = 4
    deck = DECK.copy()
    hands = np.zeros((n, N_CODES), np.int64)
    discard = np.zeros(N_CODES, np.int64)
    quit = np.zeros(n, np.int64)
    sizes = np.zeros(n, np.int64)
    obs = np.zeros(OBS_LEN, np.int64)
    legal = np.zeros(N_ACTIONS, np.uint8)
    drng = np.zeros(2, np.uint64)
    total = 0
    for b in range(n_rounds):
        R.seed_state(drng, seed, b, R.DEAL_STREAM)
        pos, top = deal_lazy_round(n, DECK, deck, hands, discard, quit, drng)
        deck_len = deck.shape[0]
        obs[OBS_TOP] = top
        for s in range(n):
            sizes[s] = HAND_SIZE
        n_in, seat, out, turn = n, 0, -1, 0
        while n_in > 0:
            if quit[seat]:
                seat = seat + 1 if seat + 1 < n else 0
                continue
            if mode == SPECIALISED:
                nxt = top + 1 if top + 1 < N_CODES else 0
                if hands[seat, top] > 0:
                    a = top
                elif hands[seat, nxt] > 0:
                    a = nxt
                elif pos < deck_len and n_in > 1:
                    a = DRAW
                else:
                    a = QUIT
            else:
                obs[0] = seat
                obs[4] = n_in
                obs[5] = turn
                for c in range(N_CODES):
                    h = hands[seat, c]
                    obs[OBS_HAND + c] = h
                    legal[c] = CAN_PLAY[top, c] & np.uint8(h > 0)
                legal[DRAW] = 1 if (pos < deck_len and n_in > 1) else 0
                legal[QUIT] = 1
                if mode == INLINE:
                    a = _greedy_inline(obs, legal)
                else:
                    a = policies[0](obs, legal, pbuf, prng)
                if a < 0 or a > QUIT or legal[a] == 0:
                    raise ValueError("illegal action")
            turn += 1
            if a == QUIT:
                quit[seat] = 1
                n_in -= 1
            elif a == DRAW:
                j = pos + R.below(drng, deck_len - pos)
                card = deck[j]
                deck[j] = deck[pos]
                deck[pos] = card
                pos += 1
                hands[seat, card] += 1
                sizes[seat] += 1
            else:
                hands[seat, a] -= 1
                sizes[seat] -= 1
                top = a
                obs[OBS_TOP] = a
                discard[a] += 1
                if sizes[seat] == 0:
                    out = seat
                    break
            seat = seat + 1 if seat + 1 < n else 0
        for s in range(n):
            total += 0 if s == out else seat_penalty(hands, s, CODE_PENALTY, TWINS)
        total += turn
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=500_000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    game = get_game("lama")
    players = [registry.parse_spec("lama", "greedy") for _ in range(4)]
    plan = seat_plan(game, players, False, game.config())
    policies, _ = registry.policy_tuple(players)
    pbuf, prng = np.zeros(registry.MAX_PARAMS), np.zeros(2, np.uint64)

    def loop(mode):
        return lambda: _rounds(mode, args.rounds, 7, policies, pbuf, prng)

    variants = {"specialised": loop(SPECIALISED), "obs+legal, inline": loop(INLINE),
                "obs+legal, call": loop(CALL), "kernel": lambda: run_chunk(plan, 7, 0, args.rounds)}
    for run in variants.values():  # compile or load from the cache outside the timing
        run()
    rates = {name: [] for name in variants}
    for _ in range(args.repeats):  # interleaved, so every variant sees the same load
        for name, run in variants.items():
            t0 = time.thread_time()
            run()
            rates[name].append(args.rounds / (time.thread_time() - t0))
    kernel = statistics.median(rates["kernel"])
    print(f"4 x greedy, L.A.M.A., {args.rounds} rounds, median of {args.repeats} (rounds per CPU-second, one thread)")
    for name, r in rates.items():
        m = statistics.median(r)
        print(f"  {name:<20} {m:>12,.0f}  {1e9 / m:6.0f} ns/round  {m / kernel:4.2f}x the kernel")


if __name__ == "__main__":
    main()
