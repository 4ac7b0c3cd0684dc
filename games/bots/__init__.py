"""Bot policies over the rules engines. Pure Python, no Django.

This module is the registry of each game's declared bot levels (``GameBots`` in base.py,
declared at the end of each game's bot module): ``levels(game_id)`` gives
``{"random": RandomBot(), "heuristic": ..., "strong": ...}`` weakest first, and
``bot_for(game_id, level)`` the bot that plays a seat. ``strong`` is the information-set search
of ``search.py`` over the heuristic.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from . import aetsch, karma, kato, krass_kariert
from .base import Bot, GameBots, RandomBot

_BUILT_IN: tuple[GameBots, ...] = (kato.BOTS, krass_kariert.BOTS, karma.BOTS, aetsch.BOTS)

REGISTRY: dict[str, GameBots] = {bots.game: bots for bots in _BUILT_IN}


class _Levels(Mapping):
    """``BOTS[game_id][level]``: a read-only view of the registry, for scripts and tests."""

    def __getitem__(self, game_id: str) -> dict[str, Bot]:
        return REGISTRY[game_id].by_level

    def __iter__(self) -> Iterator[str]:
        return iter(REGISTRY)

    def __len__(self) -> int:
        return len(REGISTRY)


BOTS: Mapping[str, dict[str, Bot]] = _Levels()


def levels(game_id: str) -> dict[str, Bot]:
    """The declared levels of a game, weakest first (empty for an unknown game)."""
    bots = REGISTRY.get(game_id)
    return bots.by_level if bots else {}


def bot_for(game_id: str, level: str | None) -> Bot:
    """The bot that plays ``level`` (None: the game's default level; a level that no longer
    exists: its fallback)."""
    return REGISTRY[game_id].bot(level)


def default_level(game_id: str) -> str:
    return REGISTRY[game_id].default


def register(bots: GameBots) -> GameBots:
    if bots.game in REGISTRY and REGISTRY[bots.game] is not bots:
        raise ValueError(f"bots of game '{bots.game}' are already registered")
    REGISTRY[bots.game] = bots
    return bots


def unregister(game_id: str) -> None:
    REGISTRY.pop(game_id, None)


@contextmanager
def registered(bots: GameBots):
    register(bots)
    try:
        yield bots
    finally:
        unregister(bots.game)


__all__ = ["BOTS", "REGISTRY", "Bot", "GameBots", "RandomBot", "bot_for", "default_level", "levels",
           "register", "registered", "unregister"]
