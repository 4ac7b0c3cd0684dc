"""Pure-Python rules engines for Stapel's games, behind one contract (see base.Game).

Nothing here imports Django, Celery or Channels. ``GAMES`` maps a game id to its engine.
"""

from .base import Game
from .errors import EngineError, IllegalAction, InvalidDeck, InvalidOptions

GAMES: dict[str, Game] = {}


def register(game: Game) -> Game:
    GAMES[game.id] = game
    return game


# One import per game; each module registers itself.
from . import aetsch, karma, kato, krass_kariert  # noqa: E402,F401

__all__ = ["GAMES", "Game", "EngineError", "IllegalAction", "InvalidDeck", "InvalidOptions",
           "register"]
