"""Fit a shedding rule set's value function for luck-adjusted runs and write it next to its engine
(``llama_sim/rulesets/<game>/luck.json``).

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
    x, y = np.array(xs), np.array(ys, float)
    x1 = np.hstack([x, np.ones((len(x), 1))])
    gram = x1.T @ x1 + RIDGE * np.diag([1.0] * x.shape[1] + [0.0])
    w = np.linalg.solve(gram, x1.T @ y)[:-1]
    resid = y - x1 @ np.append(w, 0) - (y - x @ w).mean()
    print(f"{game} {n} players: {len(y)} seat-rounds, penalty sd {y.std():.3f}, after luck {resid.std():.3f} "
          f"(variance x{(resid.var() / y.var()):.3f})")
    return w.reshape(shape[1:])


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
    engine = __import__(f"llama_sim.rulesets.{rule_set.name}.engine", fromlist=["RULES"])
    weights = np.zeros(shedding.luck_shape(engine.RULES))
    for n in range(rule_set.min_players, rule_set.max_players + 1):
        weights[n] = fit(rule_set.name, n, args.rounds, args.seed + n, strategies)
    path = Path(engine.__file__).with_name("luck.json")
    path.write_text(json.dumps({
        "what": "value function of luck-adjusted runs: weights[players][hand size][code] (shedding.card_luck)",
        "made_by": f"scripts/fit_luck.py --game {rule_set.name} --rounds {args.rounds} --seed {args.seed}",
        "strategies": strategies,
        "weights": np.round(weights, 4).tolist()}, indent=None) + "\n")
    print("wrote", path)


if __name__ == "__main__":
    main()
