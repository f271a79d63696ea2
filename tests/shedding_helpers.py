"""Test helpers for the two rule sets on the shared shedding engine (``lama`` and ``party``)."""
import numpy as np

from llama_sim.core import registry, rng


def player(game, spec):
    """(compiled policy, params) of a strategy spec, as the reference engine takes them."""
    p = registry.parse_spec(game, spec)
    return p.strategy.policy, p.params


def kernel_round(module, deck, specs, prng_seed, start=0):
    """Deal ``deck`` and play one round with the kernel (``module.play_round_entry``), logging it."""
    n = len(specs)
    players = [registry.parse_spec(module.RULE_SET.name, s) for s in specs]
    policies, slots = registry.policy_tuple(players)
    params = np.array([p.params for p in players])
    hands = np.zeros((n, module.N_CODES), np.int64)
    discard = np.zeros(module.N_CODES, np.int64)
    quit = np.zeros(n, np.int64)
    deck = deck.copy()
    pos, top = module.deal_round(n, deck, hands, discard, quit)
    obs = np.zeros(module.OBS_LEN, np.int64)
    log = np.zeros((module.LOG_CAPACITY, 2), np.int64)
    prng = rng.new_state(prng_seed, 0, rng.POLICY_STREAM)
    out, last_card, last_actor, k, pos = module.play_round_entry(
        n, hands, deck, pos, top, discard, quit, start, np.zeros(n, np.int64), policies, slots, params,
        np.arange(n, dtype=np.int64), prng, obs, log)
    return dict(actions=[tuple(x) for x in log[:k].tolist()], hands=hands, out=out, quit=quit,
                last_card=last_card, last_actor=last_actor, left=deck.shape[0] - pos, discard=discard)


def reference_round(module, deck, specs, prng_seed, start=0):
    """The same round with the reference engine (``module.Round``)."""
    n = len(specs)
    hands, pile, discard = module.deal(deck, n)
    prng = rng.new_state(prng_seed, 0, rng.POLICY_STREAM)
    players = [player(module.RULE_SET.name, s) for s in specs]
    return module.Round(hands, pile, discard, players, [0] * n, start=start, prng=prng).play()
