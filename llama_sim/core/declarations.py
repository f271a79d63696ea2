"""What a strategy declares besides its code: its description, parameters and presets.

Nothing here imports Numba. ``llamasim strategies`` lists the built-in strategies from a copy of
their declarations kept next to the compiled kernels (``read_listing``, ``write_listing``): a fresh
process then starts without importing Numba and the strategy modules, which took more than half of
the listing's time. The copy is in the kernel cache folder, whose name is a hash of the package's
sources and the strategy library (``core.cache``), so an edited strategy is never listed from an old
copy.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from llama_sim.core.cache import cache_folder
from llama_sim.core.files import write_text

LISTING_FILE = "strategies.json"
LISTING_FORMAT = 1


@dataclass(frozen=True)
class Param:
    name: str
    default: float
    low: float
    high: float
    description: str = ""


@dataclass
class Declaration:
    game: str
    name: str
    description: str
    params: tuple[Param, ...]
    source: str = "built-in"  # the module that registered it
    presets: dict[int, dict[str, float]] = field(default_factory=dict)
    # player count -> what its preset's values mean in play, where the numbers alone mislead (a quit
    # threshold above any hand's points: "always quits"); ``llamasim strategies`` shows it with the preset.
    preset_notes: dict[int, str] = field(default_factory=dict)
    search: bool = False  # a search player (the expert): its roll-outs allocate, so it never runs in a
    # line-up kernel (those run without reference counting), and it is slow, so "all" leaves it out
    family: bool = False  # a family of rules played with chosen values (the quit cards' rule): its
    # defaults are no strategy of their own, so "all" leaves it out

    def preset_for(self, n_players: int) -> dict[str, float]:
        """The parameter values declared for a table of ``n_players``; a count without its own preset
        uses the nearest declared count, ties going to the larger count (3 players -> the 4-player
        preset, 5 -> 6), because what changes a strategy's best values is the number of opponents
        who can go out first, and a table of 3 or 5 is closer in that to the larger table. ``{}``
        when the strategy declares no presets (its defaults apply at every count).

        Measured for ``threshold`` (``llamasim compare -g G -p N threshold:quit_at=<rule's>
        threshold:quit_at=<other> --games 20000 --seed 41 --threads 1``, win-rate edge of the rule's
        choice): 3 players, the 4-player over the 2-player preset: lama +0.065 [+0.058, +0.072], party
        +0.079 [+0.071, +0.086], kadabra +0.056 [+0.049, +0.063], dice -0.002 [-0.008, +0.003];
        5 players, the 6-player over the 4-player preset: lama -0.004 [-0.008, +0.001], party -0.001
        [-0.005, +0.002], kadabra +0.008 [+0.003, +0.012] (dice: the same value)."""
        nearest = self.preset_count(n_players)
        return {} if nearest is None else dict(self.presets[nearest])

    def preset_count(self, n_players: int) -> int | None:
        """The declared player count whose preset a table of ``n_players`` plays (``preset_for``); None
        when the strategy declares no presets."""
        if not self.presets:
            return None
        return min(self.presets, key=lambda k: (abs(k - n_players), -k))

    def values_at(self, n_players: int) -> dict[str, tuple[float, int | None]]:
        """What a spec naming no values plays at a table of ``n_players``: each parameter's value and the
        player count of the preset it comes from (None: the parameter's default)."""
        count = self.preset_count(n_players)
        preset = self.presets.get(count, {}) if count is not None else {}
        return {p.name: (preset[p.name], count) if p.name in preset else (p.default, None) for p in self.params}


def _declaration(record: dict) -> Declaration:
    """A declaration read back from the listing file (JSON keys are strings: the counts become ints).
    Anything else than what ``_record`` wrote is a TypeError, KeyError or ValueError."""
    declared = Declaration(record["game"], record["name"], record["description"],
                           tuple(Param(**p) for p in record["params"]), record["source"],
                           {int(n): {str(k): float(v) for k, v in values.items()}
                            for n, values in record["presets"].items()},
                           {int(n): str(note) for n, note in record["preset_notes"].items()}, bool(record["search"]),
                           bool(record.get("family", False)))
    texts = [declared.game, declared.name, declared.description, declared.source]
    texts += [p.name for p in declared.params] + [p.description for p in declared.params]
    numbers = [value for p in declared.params for value in (p.default, p.low, p.high)]
    if not all(isinstance(t, str) for t in texts) or not all(isinstance(v, (int, float)) for v in numbers):
        raise TypeError("not a declaration")
    return declared


def _record(declared: Declaration) -> dict:
    """A declaration's own fields (a ``registry.Strategy`` has its code too, which is not kept)."""
    record = {f.name: getattr(declared, f.name) for f in fields(Declaration)}
    return {**record, "params": [asdict(p) for p in declared.params]}


def read_listing(games: list[str]) -> dict[str, list[Declaration]] | None:
    """The built-in strategies of each of ``games`` from the listing file, in the registry's order; None
    when there is no usable file (none yet, damaged, or no cache folder)."""
    path = _listing_path()
    if path is None:
        return None
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        if document["format"] == LISTING_FORMAT and set(games) <= set(document["games"]):
            return {g: [_declaration(r) for r in document["games"][g]] for g in games}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    return None


def write_listing(builtin: dict[str, list[Declaration]]) -> None:
    """Keep every rule set's built-in strategies for ``read_listing``, written whole or not at all; a
    cache that cannot be written only costs the next listing its speed."""
    path = _listing_path()
    if path is None:
        return
    games = {g: [_record(d) for d in declared] for g, declared in builtin.items()}
    document = {"format": LISTING_FORMAT, "games": games}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text(path, json.dumps(document), output=False)
    except OSError:
        pass


def _listing_path() -> Path | None:
    folder = cache_folder()
    return None if folder is None else folder / LISTING_FILE
