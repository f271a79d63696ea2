"""Fit a rule set's value function for luck-adjusted runs and write it next to its engine
(``llama_sim/rulesets/<game>/luck.json``): L.A.M.A., the Party Edition, LAMA Dice and Llama Kadabra.

The value of a hand is ``b[n, size] + sum over held codes of w[n, size, code]`` (``shedding.card_luck``);
a run's luck under it is linear in ``w``: each card coming to a seat adds ``w[n, j, card]`` (if the code
was not held) minus its expectation over the pile, ``j`` the size after it. So the per-seat luck of a
round is ``Z . w`` with ``Z`` counted from the round, and the ``w`` that makes ``penalty - Z . w`` least
noisy is a least-squares regression of the round's penalty on ``Z``: fitted here on rounds the reference
engine plays (its ``Luck``, recording ``Z`` instead of adding), every seat a built-in strategy drawn at
random. Unbiasedness never depends on the fit (each luck term has mean 0 for any ``w``); these seeds are
not any run's.

    PYTHONPATH=. python scripts/fit_luck.py --game lama --rounds 6000
"""
from __future__ import annotations

import argparse
import functools
import json
from pathlib import Path

import numpy as np

from llama_sim.core import registry
from llama_sim.core import rng as R
from llama_sim.core.ruleset import get_game
from llama_sim.rulesets import shedding
from llama_sim.rulesets.shedding.reference import Luck, deal_lazy

RIDGE = 1.0  # pulls rarely seen (size, code) cells towards 0, i.e. no luck counted for them


class Recorder(Luck):
    """``Luck`` recording each seat's ``Z`` (features of ``w[n]``) instead of adding luck."""

    def __init__(self, weights, n, full_deck):
        super().__init__(weights, n, full_deck)
        self.z = np.zeros((n,) + weights.shape[1:])

    def card(self, seat, hand, card):
        pile, j = self.pile, min(int(hand.sum()) + 1, self.weights.shape[1] - 1)
        total = sum(pile)
        for c in range(len(pile)):
            if hand[c] == 0:
                self.z[seat, j, c] -= pile[c] / total
        if hand[card] == 0:
            self.z[seat, j, card] += 1
        pile[card] -= 1


def fit(game: str, n: int, rounds: int, seed: int, strategies: list[str]) -> np.ndarray:
    engine = __import__(f"llama_sim.rulesets.{game}.engine", fromlist=["Round"])
    shape = shedding.luck_shape(engine.RULES)
    players = [registry.at_table(registry.parse_spec(game, s), n) for s in strategies]
    pick = np.random.default_rng(seed)
    xs, ys = [], []
    for r in range(rounds):
        seats = [players[i] for i in pick.integers(len(players), size=n)]
        drng, prng = R.new_state(seed, r, R.DEAL_STREAM), R.new_state(seed, r, R.POLICY_STREAM)
        hands, pile, discard = deal_lazy(engine.RULES.deck, n, drng)
        rec = Recorder(np.zeros(shape), n, engine.RULES.deck)
        rec.deal(pile.cards)
        res = engine.Round(hands, pile, discard, [(p.strategy.policy, p.params) for p in seats], [0] * n,
                           prng=prng, luck=rec).play()
        for s in range(n):
            xs.append(rec.z[s].ravel())
            ys.append(res.penalties[s])
    return solve(np.array(xs), np.array(ys, float), f"{game} {n} players").reshape(shape[1:])


def fit_kadabra(n: int, rounds: int, seed: int, strategies: list[str]) -> np.ndarray:
    """Llama Kadabra's table (``rulesets/kadabra/luck.py``): the card games' value of a hand, so each card
    dealt or drawn records the same features as ``Recorder``, on rounds its reference engine plays."""
    from llama_sim.core.draws import shuffle_forward
    from llama_sim.rulesets.kadabra import luck as L, reference as ref, tables as T

    class KadabraRecorder(L.Luck):
        def __init__(self, n_, base):
            super().__init__(n_, base, np.zeros(L.LUCK_SHAPE))
            self.z = np.zeros((n_,) + L.LUCK_SHAPE[1:])

        def deal(self, deck):
            self.pile[:] = np.bincount(self.base, minlength=T.N_CODES)
            for s in range(self.n):
                hand = np.zeros(T.N_CODES, np.int64)
                for k in range(T.HAND_SIZE):
                    self.card(s, hand, int(deck[T.HAND_SIZE * s + k]))
                    hand[int(deck[T.HAND_SIZE * s + k])] += 1
            self.pile[int(deck[T.HAND_SIZE * self.n])] -= 1

        card = Recorder.card

    counts = np.asarray(get_game("kadabra").config()[:T.N_CODES])
    players = [registry.at_table(registry.parse_spec("kadabra", s), n) for s in strategies]
    pick = np.random.default_rng(seed)
    xs, ys = [], []
    for r in range(rounds):
        seats = [players[i] for i in pick.integers(len(players), size=n)]
        deck = T.deck_of_counts(counts)
        rec = KadabraRecorder(n, deck.copy())
        shuffle_forward(deck, R.new_state(seed, r, R.DEAL_STREAM))
        hands, pile, discard = ref.deal(deck, n)
        rec.deal(deck)
        res = ref.Round(hands, pile, discard, [(p.strategy.policy, p.params) for p in seats], [T.START_ONES] * n,
                        [0] * n, prng=R.new_state(seed, r, R.POLICY_STREAM), luck=rec).play()
        for s in range(n):
            xs.append(rec.z[s].ravel())
            ys.append(res.penalties[s])
    return solve(np.array(xs), np.array(ys, float), f"kadabra {n} players").reshape(L.LUCK_SHAPE[1:])


def fit_dice(n: int, rounds: int, seed: int, strategies: list[str]) -> np.ndarray:
    """LAMA Dice's table (``rulesets/dice/luck.py``): its luck is linear in the table too, so each event's
    features are each seat's luck under each column set to 1 (at the seat's row size), minus the luck under
    zeros (the three llamas' exact token part, which is not fitted); the same least squares."""
    from llama_sim.core.luck_cards import card_luck
    from llama_sim.rulesets.dice import luck as L, reference as ref

    layout = np.asarray(get_game("dice").config()[1:19]).reshape(3, 6)
    cols = L.LUCK_SHAPE[2]
    units = [np.zeros(L.LUCK_SHAPE) for _ in range(cols)]
    for k, u in enumerate(units):
        u[:, :, k] = 1.0
    zero = np.zeros(L.LUCK_SHAPE)
    z = np.zeros((n, L.LUCK_SHAPE[1], cols))
    fixed = np.zeros(n)

    def roll_luck(luck, weights, n_, rows, seat, cfg, f0, f1, f2, token, llama_row, quit, alone):
        def under(table):
            out = np.zeros(n_)
            L.roll_luck(out, table, n_, rows, seat, cfg, f0, f1, f2, token, llama_row, quit, alone)
            return out
        base = under(zero)
        sizes = np.minimum(rows.sum(axis=1), L.LUCK_SHAPE[1] - 1)
        for k in range(cols):
            z[np.arange(n_), sizes, k] += under(units[k]) - base
        fixed[:] += base

    def deal_luck(luck, n_, deck):
        pile = np.bincount(L.DECK.astype(np.int64), minlength=7)
        rows = np.zeros((n_, 7), np.int64)
        for s in range(n_):
            for k in range(6):
                card = int(deck[6 * s + k])
                for c in range(7):
                    z[s, min(k + 1, L.LUCK_SHAPE[1] - 1), c] += card_luck(units[c], n_, k, rows, s, pile, card)
                rows[s, card] += 1
                pile[card] -= 1

    ref.roll_luck, ref.reference_deal_luck = roll_luck, deal_luck
    players = [registry.at_table(registry.parse_spec("dice", s), n) for s in strategies]
    pick = np.random.default_rng(seed)
    xs, ys = [], []
    for r in range(rounds):
        seats = [players[i] for i in pick.integers(len(players), size=n)]
        z[:], fixed[:] = 0.0, 0.0
        luck = np.zeros(n)
        rows, _ = ref.reference_deal(n, R.new_state(seed, r, R.DEAL_STREAM), luck)
        res = ref.Round(rows, [(p.strategy.policy, p.params) for p in seats], [0] * n, layout,
                        prng=R.new_state(seed, r, R.POLICY_STREAM), drng=R.new_state(seed, r, R.DICE_STREAM),
                        luck=luck).play()
        for s in range(n):
            xs.append(z[s].ravel().copy())
            ys.append(res.penalties[s] - fixed[s])
    return solve(np.array(xs), np.array(ys, float), f"dice {n} players").reshape(L.LUCK_SHAPE[1:])


def solve(x: np.ndarray, y: np.ndarray, what: str) -> np.ndarray:
    """Least squares of ``y`` on ``x`` with an intercept, ridge-pulled towards 0 (``RIDGE``)."""
    x1 = np.hstack([x, np.ones((len(x), 1))])
    gram = x1.T @ x1 + RIDGE * np.diag([1.0] * x.shape[1] + [0.0])
    w = np.linalg.solve(gram, x1.T @ y)[:-1]
    resid = y - x @ w
    print(f"{what}: {len(y)} seat-rounds, penalty sd {y.std():.3f}, after luck {resid.std():.3f} "
          f"(variance x{(resid.var() / y.var()):.3f})")
    return w


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", required=True)
    ap.add_argument("--rounds", type=int, default=6000, help="rounds per player count")
    ap.add_argument("--seed", type=int, default=20261128)
    ap.add_argument("--strategy", action="append", help="strategies drawn for the seats (default: built-in ones)")
    args = ap.parse_args()
    rule_set = get_game(args.game)
    registry.load_builtin(rule_set.name)
    strategies = args.strategy or registry.builtin_strategies(rule_set.name)
    if rule_set.name == "dice":
        from llama_sim.rulesets.dice import luck

        weights, path = np.zeros(luck.LUCK_SHAPE), Path(luck.__file__).with_name("luck.json")
        fitted = fit_dice
    elif rule_set.name == "kadabra":
        from llama_sim.rulesets.kadabra import luck

        weights, path = np.zeros(luck.LUCK_SHAPE), Path(luck.__file__).with_name("luck.json")
        fitted = fit_kadabra
    else:
        engine = __import__(f"llama_sim.rulesets.{rule_set.name}.engine", fromlist=["RULES"])
        weights, path = np.zeros(shedding.luck_shape(engine.RULES)), Path(engine.__file__).with_name("luck.json")
        fitted = functools.partial(fit, rule_set.name)
    for n in range(rule_set.min_players, rule_set.max_players + 1):
        weights[n] = fitted(n, args.rounds, args.seed + n, strategies)
    path.write_text(json.dumps({
        "what": "value function of luck-adjusted runs: weights[players][hand or row size][column] (core.luck)",
        "made_by": f"scripts/fit_luck.py --game {rule_set.name} --rounds {args.rounds} --seed {args.seed}",
        "strategies": strategies,
        "weights": np.round(weights, 4).tolist()}, indent=None) + "\n")
    print("wrote", path)


if __name__ == "__main__":
    main()
