"""Rule sets. Each module here defines ``GAME`` (a ``GameSpec``); they are found by name."""
from __future__ import annotations

import importlib
import pkgutil

from ..errors import UsageError
from .common import GameSpec

_GAMES: dict[str, GameSpec] | None = None


def all_games() -> dict[str, GameSpec]:
    global _GAMES
    if _GAMES is None:
        found = {}
        for info in pkgutil.iter_modules(__path__):
            if info.name.startswith("_") or info.name == "common":
                continue
            module = importlib.import_module(f"{__name__}.{info.name}")
            spec = getattr(module, "GAME", None)
            if isinstance(spec, GameSpec):
                found[spec.name] = spec
        order = ["lama", "party", "kadabra", "dice"]
        _GAMES = dict(sorted(found.items(), key=lambda kv: (order.index(kv[0]) if kv[0] in order else 99, kv[0])))
    return _GAMES


def get_game(name: str) -> GameSpec:
    games = all_games()
    if name not in games:
        raise UsageError(f"unknown game '{name}' (known: {', '.join(games)})")
    return games[name]
