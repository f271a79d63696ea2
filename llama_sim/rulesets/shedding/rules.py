"""The shedding games' rules as data (``SheddingRules``), the observation layout and the scratch limits
the kernels' block loop is built for."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np



HAND_SIZE = 6
MAX_SEATS = 6
# Every rule set's card codes and deck fit the kernels' block loop, whose scratch is on its stack
# (``kernel_loop``): checked when a ``SheddingRules`` is made.
MAX_CODES = 14  # (Party: 14)
MAX_DECK = 64
OBS_SEAT, OBS_PLAYERS, OBS_TOP, OBS_DRAW_PILE, OBS_ACTIVE, OBS_TURN = range(6)
OBS_HAND_SIZES = 6  # the first field after the six scalars (the own hand is the policy's ``hand``)
LOG_CAPACITY = 256  # a round has at most 49 draws + 56 plays + 6 quits

# Indices into a rule set's ``flags`` array (the kernel's scalar rules).
F_TOKENS20, F_STARTER_LAST_CARD = range(2)


def play_bits(can_play: np.ndarray) -> np.ndarray:
    """``can_play`` (C x C, 0/1) as one bit mask per top card: bit c of ``[top]`` is ``can_play[top, c]``."""
    bits = np.zeros(can_play.shape[0], np.int64)
    for top in range(can_play.shape[0]):
        for c in range(can_play.shape[1]):
            bits[top] |= np.int64(can_play[top, c] != 0) << c
    return bits



@dataclass(frozen=True)
class Layout:
    """Observation and action indices for a rule set with ``n_codes`` card codes."""

    n_codes: int

    @property
    def hand_sizes(self) -> int:
        return OBS_HAND_SIZES

    @property
    def quit(self) -> int:
        return self.hand_sizes + MAX_SEATS

    @property
    def scores(self) -> int:
        return self.quit + MAX_SEATS

    @property
    def discard(self) -> int:
        return self.scores + MAX_SEATS

    @property
    def obs_len(self) -> int:
        return self.discard + self.n_codes

    @property
    def draw(self) -> int:
        return self.n_codes

    @property
    def quit_action(self) -> int:
        return self.n_codes + 1

    @property
    def n_actions(self) -> int:
        return self.n_codes + 2


@dataclass(frozen=True, eq=False)
class SheddingRules:
    """Everything in which one shedding rule set differs from another (see the module docstring)."""

    name: str
    code_names: tuple[str, ...]
    deck: np.ndarray
    playable: Callable[[int, int], bool]
    score: Callable[[list[int]], int]
    extra_turn: np.ndarray
    value_group: np.ndarray
    group_penalty: np.ndarray
    pink_code: int
    pink_bonus: int
    tokens20: bool
    starter_last_card: bool
    can_play: np.ndarray = field(init=False)
    can_play_bits: np.ndarray = field(init=False)
    code_penalty: np.ndarray = field(init=False)
    twins: np.ndarray = field(init=False)
    flags: np.ndarray = field(init=False)
    layout: Layout = field(init=False)

    def __post_init__(self):
        c = len(self.code_names)
        if c > MAX_CODES or len(self.deck) > MAX_DECK:
            raise ValueError(f"{self.name}: the kernels hold at most {MAX_CODES} card codes and {MAX_DECK} cards")
        # The plain-Python function under the jitted ``playable``: calling the compiled one here would
        # load Numba's whole compiler at import (about 0.6 s), before anything plays.
        playable = getattr(self.playable, "py_func", self.playable)
        table = np.array([[1 if playable(top, card) else 0 for card in range(c)] for top in range(c)],
                         dtype=np.uint8)
        # Scoring in the kernel's branch-free form: every held code scores its class's points (the
        # pink card its class's points plus the bonus) and every pair of codes of one class held
        # together gives back the smaller of the two, so each class counts once, at its highest.
        pen = self.group_penalty[self.value_group].astype(np.int64)
        if self.pink_code >= 0:
            pen[self.pink_code] += self.pink_bonus
        twins = []
        for g in range(len(self.group_penalty)):
            codes = [k for k in range(c) if self.value_group[k] == g]
            if len(codes) > 2:
                raise ValueError(f"{self.name}: the kernel's scoring allows at most two codes per value class")
            if len(codes) == 2:
                twins.append((codes[0], codes[1], min(pen[codes[0]], pen[codes[1]])))
        object.__setattr__(self, "can_play", table)
        object.__setattr__(self, "can_play_bits", play_bits(table))
        object.__setattr__(self, "code_penalty", pen)
        object.__setattr__(self, "twins", np.array(twins, dtype=np.int64).reshape(-1, 3))
        object.__setattr__(self, "flags", np.array([int(self.tokens20), int(self.starter_last_card)], dtype=np.int64))
        object.__setattr__(self, "layout", Layout(c))

    @property
    def n_codes(self) -> int:
        return len(self.code_names)

    def next_starter(self, last_card_seat: int, last_actor: int) -> int:
        if self.starter_last_card and last_card_seat >= 0:
            return last_card_seat
        return last_actor


