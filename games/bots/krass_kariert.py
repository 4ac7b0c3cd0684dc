"""Krass Kariert bots: the random baseline and a heuristic that plans its hand.

The heuristic scores every legal action by the hand it leaves: the fewest combinations the
fixed-order hand splits into (a small DP over adjacent cards), minus a value for the escape
cards it still holds (`stop`, `draw`, `x`) and for its face-up reserve cards, which it keeps for
emergencies, minus the cards it expects to draw when it may win a trick holding `draw`s. So it
beats with plain cards when it can, places taken and drawn cards where they make combinations,
and breaks its hand up so that combinations stay possible. It reads only the view and the
legal actions.
"""

from __future__ import annotations

import random
from functools import cache

from games.engine.krass_kariert import best_strength

from . import Bot, RandomBot, register

# How much holding a card is worth beyond its place in the plan (it gets us out of trouble).
ESCAPE_VALUE = {"stop": 0.9, "draw": 0.5, "x": 0.45}
# Worth of the reserve cards still lying in front of us: the last one is the lifeline.
RESERVE_VALUE = (0.0, 1.6, 2.4)
DRAWN_CARD_COST = 0.45
LEAD_VALUE = 0.25


@cache
def plan_cost(hand: tuple) -> float:
    """About how many plays the hand needs, cheaper for stronger combinations, minus the
    value of the escape cards in it."""
    size = len(hand)
    best = [0.0] + [float("inf")] * size
    for i in range(1, size + 1):
        for count in (1, 2, 3):
            if count > i:
                break
            if count == 1:
                segment = 1.0
            else:
                strength = best_strength(hand[i - count:i])
                if strength is None:
                    continue
                segment = 1.0 - 0.04 * strength[0]
            if best[i - count] + segment < best[i]:
                best[i] = best[i - count] + segment
    return best[size] - sum(ESCAPE_VALUE.get(c, 0.0) for c in hand)


class HeuristicBot(Bot):
    level = "heuristic"

    def choose(self, view: dict, legal_actions: list[dict], rng: random.Random) -> dict:
        hand = view["hand"]
        if view["phase"] == "insert":
            card = view["drawn"][0]
            return min(legal_actions,
                       key=lambda a: plan_cost(tuple(hand[:a["position"]] + [card]
                                                     + hand[a["position"]:])))
        seat = view["seat"]
        reserves = view["reserves"][seat]
        trick = view["trick"]
        draws = sum(1 for e in trick if e.get("kind") == "draw")
        after_me = len(view["to_act"]) - 1
        leading = not trick
        best, best_score = legal_actions[0], float("-inf")
        for action in legal_actions:
            score = self._score(action, hand, reserves, draws, after_me, leading)
            if score > best_score:
                best, best_score = action, score
        return best

    @staticmethod
    def _score(action, hand, reserves, draws, after_me, leading) -> float:
        if action["type"] == "take_reserve":
            card = reserves[action["reserve"]]
            pos = action["position"]
            return (-plan_cost(tuple(hand[:pos] + [card] + hand[pos:]))
                    + RESERVE_VALUE[len(reserves) - 1])
        index, count, kind = action["index"], action["count"], action["kind"]
        rest = tuple(hand[:index] + hand[index + count:])
        score = -plan_cost(rest) + RESERVE_VALUE[len(reserves)]
        if kind == "draw":
            if leading:  # nobody may play a combination: then we win it and draw
                score -= DRAWN_CARD_COST * 3 * 0.4
            return score
        if kind == "stop":
            win = 1.0
        else:
            win = 0.5 ** after_me
            rank = action["rank"]
            # Lead high (hard to beat, keeps the lead); follow low (keep high cards).
            score += 0.02 * rank if leading else -0.02 * rank
        score += LEAD_VALUE * win - DRAWN_CARD_COST * 3 * draws * win
        return score


register("krass_kariert", RandomBot(), HeuristicBot())
