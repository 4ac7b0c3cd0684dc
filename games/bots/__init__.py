"""Bot policies over the rules engines. Pure Python, no Django.

A bot sees exactly what a person in its seat sees: the seat's ``view`` and its legal actions.
It never reads the game state, so it cannot cheat with hidden cards. ``BOTS`` maps a game id
to its levels (``{"random": RandomBot(), "heuristic": ..., "strong": ...}``); ``strong`` is the
information-set search of ``search.py`` over the heuristic.
"""

from __future__ import annotations

import random


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


BOTS: dict[str, dict[str, Bot]] = {}


def register(game_id: str, *bots: Bot) -> None:
    BOTS.setdefault(game_id, {})
    for bot in bots:
        BOTS[game_id][bot.level] = bot


# One import per game; each module registers itself.
from . import aetsch, karma, kato, krass_kariert  # noqa: E402,F401
