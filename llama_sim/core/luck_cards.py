"""The luck of a card coming to a seat, compiled (``core.luck``): what the card games' kernels add at
each card dealt or drawn, under a value function linear in the codes a seat holds."""
from __future__ import annotations

import numpy as np
from numba import njit

LUCK_SIZES = 16  # hand (row) sizes a value table tells apart (0..15; larger ones use the last)


@njit(cache=True, nogil=True, inline="always")
def card_luck(weights, n, size, hands, seat, pile, card):
    """The luck of ``card`` coming to ``seat`` from ``pile`` (counts of the cards it may be) when the seat
    holds ``size`` cards: ``V(after) - E[V(after)]`` under the value ``V(hand) = b[n, size] + sum over
    held codes of weights[n, size, code]``, whose size term cancels; sizes past the table use its last
    row; codes past ``pile``'s are not read. The shedding reference engine (``shedding.reference.Luck``)
    computes the same floats in the same order."""
    j = min(size + 1, weights.shape[1] - 1)
    total = 0
    expected = 0.0
    for c in range(pile.shape[0]):
        total += pile[c]
        if hands[seat, c] == 0:
            expected += pile[c] * weights[n, j, c]
    gained = weights[n, j, card] if hands[seat, card] == 0 else 0.0
    return gained - expected / total


@njit(cache=True, nogil=True, inline="always")
def deal_luck(luck, weights, pile, n, full_deck, deck, hands, per_seat):
    """A deal's luck, card by card in the order it was dealt (``deck[:n * per_seat]``: ``per_seat`` to
    seat 0, then to seat 1, ...), each against the cards of ``full_deck`` not dealt before it. ``hands``
    is rebuilt card by card on the way (it ends as the deal's) and ``pile`` ends as the counts of the
    cards not dealt."""
    pile[:] = 0
    for i in range(full_deck.shape[0]):
        pile[full_deck[i]] += 1
    hands[:, :] = 0
    for s in range(n):
        for k in range(per_seat):
            card = deck[per_seat * s + k]
            luck[s] += card_luck(weights, n, k, hands, s, pile, card)
            hands[s, card] += 1
            pile[card] -= 1


@njit(cache=True, nogil=True, inline="always")
def draw_luck(luck_state, n, seat, hands, size, card):
    """A card drawn by ``seat`` (holding ``size`` cards before it): its luck into ``luck[seat]`` (nothing
    when ``luck`` is empty: luck off), and the card off the counts of the draw pile. ``luck_state`` is
    ``(luck, weights, pile)`` as the block loop passes it."""
    luck, weights, pile = luck_state
    if luck.shape[0] > 0:
        luck[seat] += card_luck(weights, n, size, hands, seat, pile, card)
        pile[card] -= 1


@njit(cache=True, nogil=True, inline="always")
def no_luck():
    """The ``(luck, weights, pile)`` of a game played without luck accounting (``luck`` empty)."""
    return np.zeros(0), np.zeros((0, 0, 0)), np.zeros(0, np.int64)
