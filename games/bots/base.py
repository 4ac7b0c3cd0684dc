"""What a bot is, and how a game declares its bot levels.

A bot sees exactly what a person in its seat sees: the seat's ``view`` and its legal actions.
It never reads the game state, so it cannot cheat with hidden cards. Each game's bot module
declares its levels once with ``GameBots``; ``games.bots`` is the registry of those.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


class Bot:
    level: str = "random"
    description: str = ""  # one line for players choosing an opponent (the `games` query)

    def choose(self, view: dict, legal_actions: list[dict], rng: random.Random) -> dict:
        raise NotImplementedError


class RandomBot(Bot):
    """Picks uniformly among the legal actions; the baseline every other bot must beat."""

    level = "random"
    description = "picks any legal move at random"

    def choose(self, view: dict, legal_actions: list[dict], rng: random.Random) -> dict:
        return rng.choice(legal_actions)


@dataclass(frozen=True)
class GameBots:
    """A game's bot levels, weakest first. ``default`` is the level a seat gets when none is
    asked for (``addBot`` without a level, a person's seat handed to a bot); ``fallback``
    plays when a stored level no longer exists."""

    game: str
    levels: tuple[Bot, ...]
    default: str = "heuristic"
    fallback: str = "random"

    @property
    def by_level(self) -> dict[str, Bot]:
        return {bot.level: bot for bot in self.levels}

    def bot(self, level: str | None) -> Bot:
        by_level = self.by_level
        return by_level.get(level or self.default) or by_level[self.fallback]

    def problems(self) -> list[str]:
        where = f"bots of game '{self.game}'"
        out = []
        names = [bot.level for bot in self.levels]
        if not names:
            out.append(f"{where}: declares no bot levels")
        if len(set(names)) != len(names):
            out.append(f"{where}: a level is declared twice")
        for name in (self.default, self.fallback):
            if name not in names:
                out.append(f"{where}: level '{name}' (default or fallback) is not declared")
        for bot in self.levels:
            if not bot.description:
                out.append(f"{where}: level '{bot.level}' has no description")
        return out
