"""Llama Kadabra's luck (``core.luck``): of each card dealt and each card drawn (a draw, or the card a
draw symbol gives the next player), under a value linear in the codes a hand holds
(``core.luck_cards.card_luck``, the card games' own), against the true remaining pile. The reference
engine counts it with these same compiled functions (``Luck``), so both count the same floats.

The table ``weights[players, hand size, code]`` (``LUCK_SHAPE``) is fitted by
``scripts/fit_luck.py --game kadabra``; codes a deck never holds keep 0.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from llama_sim.core.luck import load_weights
from llama_sim.core.luck_cards import LUCK_SIZES, card_luck, deal_luck
from llama_sim.rulesets.kadabra.tables import HAND_SIZE, MAX_PLAYERS, N_CODES

LUCK_SHAPE = (MAX_PLAYERS + 1, LUCK_SIZES, N_CODES)
LUCK_WEIGHTS = load_weights(Path(__file__).with_name("luck.json"), LUCK_SHAPE)


@njit(cache=True, nogil=True, inline="always")
def round_deal_luck(luck_state, n, base, deck, hands):
    """A fresh deal's luck (``deck[:6 n]`` dealt seat by seat from ``base``), then the face-up card off the
    pile's counts; nothing when ``luck`` is empty (luck off). ``luck_state``: ``(luck, weights, pile)``."""
    luck, weights, pile = luck_state
    if luck.shape[0] > 0:
        deal_luck(luck, weights, pile, n, base, deck, hands, HAND_SIZE)
        pile[deck[HAND_SIZE * n]] -= 1


class Luck:
    """Each seat's luck as the kernel counts it, for the reference engine: ``deal`` at each fresh deal, then
    ``card`` at each card drawn, in play order (a game's luck is the sum over its rounds)."""

    def __init__(self, n: int, base: np.ndarray, weights: np.ndarray = LUCK_WEIGHTS):
        self.n, self.base, self.weights = n, np.asarray(base, np.int64), weights
        self.luck = np.zeros(n)
        self.pile = np.zeros(N_CODES, np.int64)

    def deal(self, deck) -> None:
        """The shuffled ``deck``: six cards to each seat in turn, the next one face up."""
        deck = np.asarray(deck, np.int64)
        round_deal_luck((self.luck, self.weights, self.pile), self.n, self.base, deck,
                        np.zeros((self.n, N_CODES), np.int64))

    def card(self, seat: int, hand: np.ndarray, card: int) -> None:
        """``card`` comes to ``seat``, whose counts before it are ``hand``."""
        row = np.ascontiguousarray(hand, np.int64).reshape(1, N_CODES)
        self.luck[seat] += card_luck(self.weights, self.n, int(row.sum()), row, 0, self.pile, card)
        self.pile[card] -= 1
