"""Pure-Python rules engines for Stapel's games, behind one contract (see base.Game).

Nothing here imports Django, Celery or Channels. This module is the registry: ``GAMES`` maps a
game id to its engine, and each engine carries its ``declaration`` (declaration.py). Adding a
game is one line in ``_BUILT_IN`` below; ``register`` also serves tests that declare a game of
their own.
"""

from __future__ import annotations

from contextlib import contextmanager

from . import aetsch, karma, kato, krass_kariert
from .base import Game
from .declaration import Declaration
from .errors import EngineError, IllegalAction, InvalidDeck, InvalidOptions

_BUILT_IN: tuple[Game, ...] = (kato.KATO, krass_kariert.KRASS_KARIERT, karma.KARMA,
                               aetsch.AETSCH)

GAMES: dict[str, Game] = {game.id: game for game in _BUILT_IN}


def declaration_of(game_id: str) -> Declaration:
    return GAMES[game_id].declaration


def declarations() -> list[Declaration]:
    return [game.declaration for game in GAMES.values()]


def register(game: Game) -> Game:
    if game.id in GAMES and GAMES[game.id] is not game:
        raise ValueError(f"a game '{game.id}' is already registered")
    GAMES[game.id] = game
    return game


def unregister(game_id: str) -> None:
    GAMES.pop(game_id, None)


@contextmanager
def registered(game: Game):
    """``game`` is registered inside the block only (tests of a game declared in a test)."""
    register(game)
    try:
        yield game
    finally:
        unregister(game.id)


__all__ = ["GAMES", "Declaration", "Game", "EngineError", "IllegalAction", "InvalidDeck",
           "InvalidOptions", "declaration_of", "declarations", "register", "registered",
           "unregister"]
