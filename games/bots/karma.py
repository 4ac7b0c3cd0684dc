"""Karma bots. They decide from the seat's view and legal actions only, never the state.

The heuristic sheds its lowest cards first so that high ones stay for a high pile, burns the
pile whenever it can, keeps its Karma cards for the moments when nothing else fits (taking a
small pile rather than spending one while the draw pile lasts), turns a blind card rather than
taking the pile, and gives the pile to the opponent closest to finishing.
"""

from __future__ import annotations

import random

from games.engine.karma import KARMA_BOTTOM, KARMA_FIVE, KARMA_GIVE, KARMA_TABLE, VALUE

from . import Bot, RandomBot, register

# The pile is small enough to take rather than spend a Karma card on it.
SMALL_PILE = 2


def _top_run(pile: list) -> tuple[str | None, int]:
    """The top card of the pile and how many identical cards lie on top in a row."""
    if not pile:
        return None, 0
    top = pile[-1]
    run = 0
    for card in reversed(pile):
        if card != top:
            break
        run += 1
    return top, run


class HeuristicBot(Bot):
    level = "heuristic"

    def choose(self, view: dict, legal_actions: list[dict], rng: random.Random) -> dict:
        kind = legal_actions[0]["type"]
        if kind == "choose_face_up":
            return self._choose_face_up(legal_actions)
        if kind == "give_to":
            return self._give_target(view, legal_actions)
        blind = [a for a in legal_actions if a["type"] == "play_blind"]
        plays = [a for a in legal_actions if a["type"] == "play"]
        take = next((a for a in legal_actions if a["type"] == "take_pile"), None)

        top, run = _top_run(view["pile"])
        numbers = [a for a in plays if VALUE[a["cards"][0]] is not None]
        karmas = [a for a in plays if VALUE[a["cards"][0]] is None]

        # Burn whenever possible: the pile leaves the game and we play again.
        for action in numbers:
            if action["cards"][0] == top and run + len(action["cards"]) >= 3:
                return action
        if run == 2:
            for action in karmas:
                if action["cards"][0] == top:
                    return action
        if numbers:
            # The lowest number, all copies of it at once.
            return min(numbers, key=lambda a: (VALUE[a["cards"][0]], -len(a["cards"])))
        if blind:
            return blind[rng.randrange(len(blind))]
        if karmas:
            pile = view["pile"]
            if take is not None and len(pile) <= SMALL_PILE and view["draw_count"] > 0:
                return take
            return self._pick_karma(view, karmas)
        return take if take is not None else rng.choice(legal_actions)

    @staticmethod
    def _choose_face_up(legal_actions: list[dict]) -> dict:
        # Face-up cards are played late on a high pile: lay out Karma cards and high numbers.
        def strength(action):
            score = 0
            for card in action["cards"]:
                value = VALUE[card]
                score += 20 if value is None else value
            return score
        return max(legal_actions, key=strength)

    def _pick_karma(self, view: dict, karmas: list[dict]) -> dict:
        by_card: dict[str, list[dict]] = {}
        for action in karmas:
            by_card.setdefault(action["cards"][0], []).append(action)
        if view["pile"] and KARMA_GIVE in by_card:
            return self._give_target(view, by_card[KARMA_GIVE])
        for card in (KARMA_FIVE, KARMA_BOTTOM, KARMA_TABLE):
            if card in by_card:
                return by_card[card][0]
        return karmas[0]

    @staticmethod
    def _give_target(view: dict, actions: list[dict]) -> dict:
        """The opponent still in the game with the fewest cards left."""
        left = view["cards_left"]
        finished = set(view["finished"])

        def closeness(action):
            to = action["to"]
            return (to in finished, left[to], to)
        return min(actions, key=closeness)


register("karma", RandomBot(), HeuristicBot())
