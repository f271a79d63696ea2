"""Where a shedding round's time goes, and what each redesign of the policy call would buy.

    python benchmarks/ceiling.py [--game lama|party] [--rounds 300000] [--repeats 3]

Every variant plays 4 ``greedy`` players the same work as the shipped kernel in round mode: fresh,
lazily dealt decks (``deal_lazy_round``), two seeded streams per round, the seating read from the
plan's row, per-seat statistics with their squares (``accumulate_upper``). They differ only in how a
decision reaches the policy:

- ``kernel``: the shipped ``run_chunk`` (the generic kernel; the contract's ``hand+mask``);
  ``line-up kernel``: the same with the line-up's own kernel (``llama_sim.run.lineup``);
- ``obs+legal, tuple``: the contract before v2 ``policy(obs, legal, params, rng)`` in a loop stripped to
  the work above: the own hand copied into ``obs`` and the legal set written as bytes at every
  decision, the policy called through the first-class function tuple (``registry.POLICIES_TYPE``,
  which lets one compiled kernel serve every line-up);
- ``obs+legal, compiled in``: the same, with the registered ``greedy`` called directly, as a kernel
  compiled for one line-up would;
- ``hand+mask, tuple``: a changed contract ``policy(obs, hand, legal, params, rng)``: ``obs`` is the
  public observation kept up to date as things change, ``hand`` a read-only view of the engine's own
  row of the acting seat's counts (nothing copied), ``legal`` an int64 bit mask; through the tuple;
- ``hand+mask, compiled in``: the changed contract, called directly;
- ``specialised`` (lama only): greedy written into the loop, hands packed 4 bits a code, the
  generator state in registers: no policy contract at all, the limit for this work.

A kernel compiled per line-up cannot take its policies as arguments and stay in Numba's disk cache
(dispatcher-typed arguments miss the cache in every process); ``llama_sim.run.lineup`` generates a module
per line-up instead, which is cached (``tests/run/test_lineup.py``). Rounds per CPU-second of this thread
(``time.thread_time``), medians of ``--repeats`` interleaved runs. The loops are measurement code,
not engines: nothing else uses them. Printed, never asserted.
"""
from __future__ import annotations

import argparse
import statistics
import warnings

import numpy as np
from numba import njit, types
from numba.core.errors import NumbaExperimentalFeatureWarning

from before_after import thread_cpu  # (this folder: a script's own folder is first on the path)
from llama_sim.core import registry
from llama_sim.core import rng as R
from llama_sim.core.ruleset import get_game
from llama_sim.rulesets import lama, party
from llama_sim.core.scoring import accumulate_upper
from llama_sim.rulesets.shedding import HAND_SIZE, MAX_SEATS, deal_lazy_round, seat_penalty
from llama_sim.run.chunks import run_chunk
from llama_sim.run.designs import seat_plan, with_kernel
from llama_sim.strategies import party as party_strategies
from llama_sim.core.views import readonly_row

warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning)

OBS_SEAT, OBS_PLAYERS, OBS_TOP, OBS_DRAW_PILE, OBS_ACTIVE, OBS_TURN = range(6)
OBS_HAND = 6  # where the own hand sat in obs under the earlier contract (the loops below keep both layouts)
TODAY, CHANGED = 0, 1  # the contract a loop hands the policy

RO_I64 = types.Array(types.int64, 1, "C", readonly=True)
RO_F64 = types.Array(types.float64, 1, "C", readonly=True)
CHANGED_SIG = types.int64(RO_I64, RO_I64, types.int64, RO_F64, types.uint64[::1])
# The earlier contract, policy(obs, legal, params, rng), which ``kernel`` no longer uses: kept here to measure against.
TODAY_SIG = types.int64(RO_I64, types.Array(types.uint8, 1, "C", readonly=True), RO_F64, types.uint64[::1])


# ``greedy`` of each rule set under today's contract and under the changed one (the same choices as
# the registered ``greedy``).
def lama_greedy_today(obs, legal, params, rng):
    top = obs[OBS_TOP]
    if legal[top]:
        return top
    up = top + 1 if top + 1 < lama.N_CODES else 0
    if legal[up]:
        return up
    if legal[lama.DRAW]:
        return lama.DRAW
    return lama.QUIT


def party_greedy_today(obs, legal, params, rng):
    t = party.VALUE_CLASS[obs[OBS_TOP]]
    for k in range(2):
        cls = (t + k) % party_strategies.N_CLASSES
        if legal[cls]:
            return cls
        if cls < 6 and legal[party.PLUS + cls]:
            return party.PLUS + cls
    if legal[party.PINK]:
        return party.PINK
    if legal[party.DRAW]:
        return party.DRAW
    return party.QUIT


def lama_greedy_changed(obs, hand, legal, params, rng):
    top = obs[OBS_TOP]
    if (legal >> top) & 1:
        return top
    up = top + 1 if top + 1 < lama.N_CODES else 0
    if (legal >> up) & 1:
        return up
    if (legal >> lama.DRAW) & 1:
        return lama.DRAW
    return lama.QUIT


def party_greedy_changed(obs, hand, legal, params, rng):
    t = party.VALUE_CLASS[obs[OBS_TOP]]
    for k in range(2):
        cls = (t + k) % party_strategies.N_CLASSES
        if (legal >> cls) & 1:
            return cls
        if cls < 6 and (legal >> (party.PLUS + cls)) & 1:
            return party.PLUS + cls
    if (legal >> party.PINK) & 1:
        return party.PINK
    if (legal >> party.DRAW) & 1:
        return party.DRAW
    return party.QUIT


def _loop(rules, contract, policy):
    """A round loop over ``rules``' tables handing decisions over under ``contract``; ``policy`` None:
    through the function tuple passed in, else that compiled policy, called directly."""
    deck0, can_play, extra_turn = rules.deck, rules.can_play, rules.extra_turn
    code_penalty, twins = rules.code_penalty, rules.twins
    n_codes = rules.n_codes
    draw_action, quit_action = n_codes, n_codes + 1
    can_play_bits = np.array([sum(int(can_play[t, c]) << c for c in range(n_codes)) for t in range(n_codes)], np.int64)
    # today's layout: hand at OBS_HAND; the changed one leaves the hand out
    o_sizes = OBS_HAND + n_codes if contract == TODAY else OBS_HAND
    o_quit = o_sizes + MAX_SEATS
    o_discard = o_quit + 2 * MAX_SEATS
    obs_len = o_discard + n_codes
    direct = policy
    through_tuple = policy is None

    @njit(inline="always")
    def decide(policies, slot, obs, hand, legal, legal_bytes, params, rng):
        if contract == TODAY:
            if through_tuple:
                return policies[slot](obs, legal_bytes, params, rng)
            return direct(obs, legal_bytes, params, rng)
        if through_tuple:
            return policies[slot](obs, hand, legal, params, rng)
        return direct(obs, hand, legal, params, rng)

    @njit
    def rounds(n_rounds, seed, policies, slot_of_entry, params, entry_of_seat, s1, upper):
        n = entry_of_seat.shape[1]
        deck = deck0.copy()
        hands = np.zeros((n, n_codes), np.int64)
        discard = np.zeros(n_codes, np.int64)
        quit = np.zeros(n, np.int64)
        sizes = np.zeros(n, np.int64)
        held = np.zeros(n, np.int64)  # bit c: the seat holds code c
        obs = np.zeros((1, obs_len), np.int64)
        legal_bytes = np.zeros((1, n_codes + 2), np.uint8)
        drng = np.zeros(2, np.uint64)
        prng = np.zeros(2, np.uint64)
        v = np.zeros(3 * n, np.int64)
        deck_len = deck.shape[0]
        turn = 0
        for b in range(n_rounds):
            R.seed_state(drng, seed, b, R.DEAL_STREAM)
            R.seed_state(prng, seed, b, R.POLICY_STREAM)
            pos, top = deal_lazy_round(n, deck0, deck, hands, discard, quit, drng)
            obs[0, OBS_PLAYERS] = n
            obs[0, OBS_TOP] = top
            obs[0, OBS_DRAW_PILE] = deck_len - pos
            obs[0, OBS_ACTIVE] = n
            for c in range(n_codes):
                obs[0, o_discard + c] = discard[c]
            for s in range(n):
                sizes[s] = HAND_SIZE
                obs[0, o_sizes + s] = HAND_SIZE
                obs[0, o_quit + s] = 0
                bits = 0
                for c in range(n_codes):
                    bits |= np.int64(hands[s, c] > 0) << c
                held[s] = bits
            n_in, seat, out, turn = n, 0, -1, 0
            while n_in > 0:
                if quit[seat]:
                    seat = seat + 1 if seat + 1 < n else 0
                    continue
                obs[0, OBS_SEAT] = seat
                obs[0, OBS_TURN] = turn
                legal = (can_play_bits[top] & held[seat]) | (1 << quit_action)
                if pos < deck_len and n_in > 1:
                    legal |= 1 << draw_action
                if contract == TODAY:
                    for c in range(n_codes):
                        obs[0, OBS_HAND + c] = hands[seat, c]
                    for k in range(n_codes + 2):
                        legal_bytes[0, k] = (legal >> k) & 1
                e = entry_of_seat[0, seat]
                a = decide(policies, slot_of_entry[e], readonly_row(obs, 0), readonly_row(hands, seat), legal,
                           readonly_row(legal_bytes, 0), readonly_row(params, e), prng)
                if a < 0 or a > quit_action or (legal >> a) & 1 == 0:
                    raise ValueError("illegal action", e, seat, a)
                turn += 1
                if a == quit_action:
                    quit[seat] = 1
                    n_in -= 1
                    obs[0, o_quit + seat] = 1
                    obs[0, OBS_ACTIVE] = n_in
                elif a == draw_action:
                    j = pos + R.below(drng, deck_len - pos)
                    card = deck[j]
                    deck[j] = deck[pos]
                    deck[pos] = card
                    pos += 1
                    hands[seat, card] += 1
                    held[seat] |= 1 << card
                    sizes[seat] += 1
                    obs[0, o_sizes + seat] = sizes[seat]
                    obs[0, OBS_DRAW_PILE] = deck_len - pos
                else:
                    hands[seat, a] -= 1
                    if hands[seat, a] == 0:
                        held[seat] &= ~(1 << a)
                    sizes[seat] -= 1
                    obs[0, o_sizes + seat] = sizes[seat]
                    top = a
                    obs[0, OBS_TOP] = a
                    discard[a] += 1
                    obs[0, o_discard + a] += 1
                    if sizes[seat] == 0:
                        out = seat
                        break
                    if extra_turn[a]:
                        continue
                seat = seat + 1 if seat + 1 < n else 0
            for s in range(n):
                v[s] = 0 if s == out else seat_penalty(hands, s, code_penalty, twins)
                v[n + s] = 1 if s == out else 0
                v[2 * n + s] = quit[s]
            accumulate_upper(v, s1, upper)
        return turn

    return rounds


_U17, _U47, _U49, _U15, _U21, _U28, _U36, _U32 = (np.uint64(k) for k in (17, 47, 49, 15, 21, 28, 36, 32))
_LOW32 = np.uint64(0xFFFFFFFF)
LAMA_DECK = lama.DECK
LAMA_HELD_PENALTY = np.array([sum(int(lama.CODE_PENALTY[c]) for c in range(lama.N_CODES) if m >> c & 1)
                              for m in range(1 << lama.N_CODES)], np.int64)  # no twin codes in lama


@njit(inline="always")
def _next(s0, s1):
    """``rng.next_u64`` on a state held in two locals (registers) instead of an array."""
    x = s0 + s1
    out = ((x << _U17) | (x >> _U47)) + s0
    s1 ^= s0
    return out, ((s0 << _U49) | (s0 >> _U15)) ^ s1 ^ (s1 << _U21), (s1 << _U28) | (s1 >> _U36)


@njit(inline="always")
def _below(s0, s1, n):
    """``rng.below`` (the same numbers) on a state held in locals."""
    un = np.uint64(n)
    x, s0, s1 = _next(s0, s1)
    m = (x >> _U32) * un
    low = m & _LOW32
    if low < un:
        t = (np.uint64(4294967296) - un) % un
        while low < t:
            x, s0, s1 = _next(s0, s1)
            m = (x >> _U32) * un
            low = m & _LOW32
    return np.int64(m >> _U32), s0, s1


@njit
def lama_specialised(n_rounds, seed, n, s1, upper):
    """4-bit packed hands, greedy written in, the generator in registers; statistics as the kernel's."""
    deck = LAMA_DECK.copy()
    hand = np.zeros(n, np.int64)
    size = np.zeros(n, np.int64)
    quit = np.zeros(n, np.int64)
    state = np.zeros(2, np.uint64)
    prng = np.zeros(2, np.uint64)
    v = np.zeros(3 * n, np.int64)
    deck_len = deck.shape[0]
    turn = 0
    for b in range(n_rounds):
        R.seed_state(state, seed, b, R.DEAL_STREAM)
        R.seed_state(prng, seed, b, R.POLICY_STREAM)
        g0, g1 = state[0], state[1]
        for i in range(deck_len):
            deck[i] = LAMA_DECK[i]
        for k in range(HAND_SIZE * n + 1):
            j, g0, g1 = _below(g0, g1, deck_len - k)
            j += k
            card = deck[j]
            deck[j] = deck[k]
            deck[k] = card
        for s in range(n):
            packed = 0
            for k in range(HAND_SIZE):
                packed += 1 << (4 * deck[HAND_SIZE * s + k])
            hand[s] = packed
            size[s] = HAND_SIZE
            quit[s] = 0
        top = np.int64(deck[HAND_SIZE * n])
        pos = HAND_SIZE * n + 1
        n_in, seat, out, turn = n, 0, -1, 0
        while n_in > 0:
            if quit[seat]:
                seat = seat + 1 if seat + 1 < n else 0
                continue
            h = hand[seat]
            up = top + 1 if top + 1 < lama.N_CODES else 0
            turn += 1
            if (h >> (4 * top)) & 15:
                a = top
            elif (h >> (4 * up)) & 15:
                a = up
            elif pos < deck_len and n_in > 1:
                j, g0, g1 = _below(g0, g1, deck_len - pos)
                j += pos
                card = deck[j]
                deck[j] = deck[pos]
                deck[pos] = card
                pos += 1
                hand[seat] = h + (1 << (4 * card))
                size[seat] += 1
                seat = seat + 1 if seat + 1 < n else 0
                continue
            else:
                quit[seat] = 1
                n_in -= 1
                seat = seat + 1 if seat + 1 < n else 0
                continue
            hand[seat] = h - (1 << (4 * a))
            size[seat] -= 1
            top = a
            if size[seat] == 0:
                out = seat
                break
            seat = seat + 1 if seat + 1 < n else 0
        for s in range(n):
            x = hand[s]
            x = (x | (x >> 1) | (x >> 2) | (x >> 3)) & 0x1111111
            held = 0
            for c in range(lama.N_CODES):
                held |= ((x >> (4 * c)) & 1) << c
            v[s] = 0 if s == out else LAMA_HELD_PENALTY[held]
            v[n + s] = 1 if s == out else 0
            v[2 * n + s] = quit[s]
        accumulate_upper(v, s1, upper)
    return turn


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", choices=("lama", "party"), default="lama")
    ap.add_argument("--rounds", type=int, default=300_000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    n = 4
    game = get_game(args.game)
    module = lama if args.game == "lama" else party
    today = njit(TODAY_SIG)(lama_greedy_today if args.game == "lama" else party_greedy_today)
    changed = njit(CHANGED_SIG)(lama_greedy_changed if args.game == "lama" else party_greedy_changed)
    players = [registry.parse_spec(args.game, "greedy") for _ in range(n)]
    plan = seat_plan(game, players, False, game.config())
    today_tuple = (today,) * registry.MAX_POLICIES
    changed_tuple = (changed,) * registry.MAX_POLICIES
    work = (np.zeros(n, np.int64), np.zeros((n, registry.MAX_PARAMS)), plan.entry_of_seat[:1].copy(),
            np.zeros(3 * n, np.int64), np.zeros((3 * n, 3 * n), np.int64))
    loops = {
        "obs+legal, tuple": (_loop(module.RULES, TODAY, None), today_tuple),
        "obs+legal, compiled in": (_loop(module.RULES, TODAY, today), today_tuple),
        "hand+mask, tuple": (_loop(module.RULES, CHANGED, None), changed_tuple),
        "hand+mask, compiled in": (_loop(module.RULES, CHANGED, changed), changed_tuple),
    }
    own = with_kernel(plan, "lineup")
    variants = {"kernel": lambda: run_chunk(plan, 7, 0, args.rounds),
                "line-up kernel": lambda: run_chunk(own, 7, 0, args.rounds)}
    for name, (loop, policies) in loops.items():
        variants[name] = lambda loop=loop, policies=policies: loop(args.rounds, 7, policies, *work)
    if args.game == "lama":
        variants["specialised"] = lambda: lama_specialised(args.rounds, 7, n, work[3], work[4])
    for run in variants.values():  # compile outside the timing
        run()
    rates = {name: [] for name in variants}
    for _ in range(args.repeats):  # interleaved, so every variant sees the same load
        for name, run in variants.items():
            rates[name].append(args.rounds / thread_cpu(run))
    kernel = statistics.median(rates["kernel"])
    print(f"4 x greedy, {args.game}, {args.rounds} rounds, median of {args.repeats} "
          "(rounds per CPU-second, one thread)")
    for name, r in rates.items():
        m = statistics.median(r)
        print(f"  {name:<24} {m:>12,.0f}  {1e9 / m:6.0f} ns/round  {m / kernel:4.2f}x the kernel")


if __name__ == "__main__":
    main()
