"""Exact copies of the bench line-ups' built-in strategies (lama, party, kadabra ``greedy``; dice
``threshold``) as a strategies file, for ``file_strategy_cost.py``: the same code, played as a user's."""
from llama_sim.core.registry import strategy
import llama_sim.strategies.lama as L
import llama_sim.strategies.party as P
import llama_sim.strategies.kadabra as K
import llama_sim.strategies.dice as D

@strategy("lama", "greedy_copy", "copy")
def lama_greedy(obs, hand, legal, params, rng):
    a = L.greedy_play(obs, legal)
    if a >= 0:
        return a
    if (legal >> L.DRAW) & 1:
        return L.DRAW
    return L.QUIT

@strategy("party", "greedy_copy", "copy")
def party_greedy(obs, hand, legal, params, rng):
    a = P.greedy_play(obs, legal)
    if a >= 0:
        return a
    if (legal >> P.DRAW) & 1:
        return P.DRAW
    return P.QUIT

@strategy("kadabra", "greedy_copy", "copy")
def kadabra_greedy(obs, hand, legal, params, rng):
    phase = obs[K.OBS_PHASE]
    if phase == K.PHASE_GIVE:
        return K.next_target(obs, legal)
    if phase == K.PHASE_SHOW:
        return K.greedy_show(obs, legal)
    a = K.greedy_play(obs, legal)
    if a >= 0:
        return a
    if (legal >> K.RETURN_MAGIC) & 1:
        return K.RETURN_MAGIC
    if (legal >> K.DRAW) & 1:
        return K.DRAW
    return K.QUIT

@strategy("dice", "threshold_copy", "copy", params={"quit_at": (10, 0, 100)})
def dice_threshold(obs, hand, legal, params, rng):
    return D.heuristic(obs, hand, legal, params[0], 0, 0)
