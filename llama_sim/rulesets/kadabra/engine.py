"""Llama Kadabra's engine: gathers the tables, the reference engine and the kernel, and makes ``cfg``
from the rule-set options. The rules, the encoding and the layouts are in the package's docstring
(``llama_sim/rulesets/kadabra/__init__.py``), which declares the rule set.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from llama_sim.core.errors import UsageError
from llama_sim.core.ruleset import option_flag
from llama_sim.rulesets.kadabra import RULE_SET
from llama_sim.rulesets.kadabra.kernel import (
    deal_round, deck_from_counts, kernel_loop, new_table, play_game, play_round, run_blocks, score_round,
)
from llama_sim.rulesets.kadabra.reference import (
    Decision, Event, GameResult, Round, RoundResult, deal, reference_blocks, reference_game, reference_round,
)
from llama_sim.rulesets.kadabra.tables import *  # noqa: F401,F403  (the tables are the rule set's public vocabulary)
from llama_sim.rulesets.kadabra.tables import (
    CFG_LEN, CFG_NO_SHOW, CODE_SYMBOL, N_KINDS, PLAIN, SYM_MAGIC, code, DEFAULT_COUNTS, DEFAULT_DESCRIPTION,
    DEFAULT_NAME, MAX_PLAYERS, MIN_PLAYERS, N_CODES, describe_counts, load_deck_table,
)

_TABLE_NAMES: dict[bytes, tuple[str, str]] = {DEFAULT_COUNTS.tobytes(): (DEFAULT_NAME, "built-in")}


SWITCH_VALUES = ("on", "off")  # the values of the rule options magic_token and magic_show


def config(deck_file=None, magic_token=None, magic_show=None, **options) -> np.ndarray:
    """``cfg`` for a run: the count of each card code, from ``deck_file`` or the packaged default
    (``magic_token="off"``: every magic-symbol card becomes the plain card of its kind), then
    ``cfg[CFG_NO_SHOW]`` (1 with ``magic_show="off"``)."""
    RULE_SET.reject_other_options(options)
    for name, value in (("magic_token", magic_token), ("magic_show", magic_show)):
        if value is not None and value not in SWITCH_VALUES:
            raise UsageError(f"{option_flag(name)} must be on or off, not {value!r}")
    if deck_file is None:
        counts = DEFAULT_COUNTS.copy()
    else:
        counts, name, _ = load_deck_table(deck_file)
        _TABLE_NAMES[counts.tobytes()] = (name, str(Path(deck_file)))  # the table this process last loaded
    if magic_token == "off":
        name, source = _TABLE_NAMES[counts.tobytes()]
        counts = without_magic(counts)
        _TABLE_NAMES.setdefault(counts.tobytes(), (f"{name}, magic symbols taken off", source))
    return np.append(counts, 1 if magic_show == "off" else 0).astype(np.int64)


def without_magic(counts: np.ndarray) -> np.ndarray:
    """The deck with every magic symbol taken off its card (the card stays, plain): nobody can take the
    magic token, so it stays in the pool and its extra action never arises."""
    out = np.asarray(counts, np.int64).copy()
    for kind in range(N_KINDS):
        out[code(kind, PLAIN)] += out[code(kind, SYM_MAGIC)]
        out[code(kind, SYM_MAGIC)] = 0
    return out


def describe_config(cfg) -> dict:
    """Which deck and symbol table a run used, and the rule variant, for reports."""
    cfg = np.asarray(cfg, dtype=np.int64)
    if cfg.shape != (CFG_LEN,):
        raise UsageError(f"kadabra cfg must hold {N_CODES} card counts and the show rule")
    counts = cfg[:N_CODES]
    name, source = _TABLE_NAMES.get(counts.tobytes(), ("custom", "cfg"))
    if np.array_equal(counts, DEFAULT_COUNTS) and name != DEFAULT_NAME:
        name = f"{name} (same as default)"
    deck, symbols = describe_counts(counts)
    return {"symbol_table": name, "symbol_table_source": source, "deck": deck, "symbols": symbols,
            "magic_token": "on" if counts[CODE_SYMBOL == SYM_MAGIC].any() else "off (no magic symbol)",
            "magic_show": "off (a llama stakes nothing)" if cfg[CFG_NO_SHOW] else "on"}
