"""KaTO bots: the random baseline and a heuristic player.

The heuristic decides from the seat's view and legal actions only. It always calls KaTO and
catches others, keeps its wilds for when nothing else fits, plays a wild-draw4 only honestly,
sheds its high cards (and hits with action cards) when an opponent is close to going out,
picks the colour it holds most of, and challenges a wild-draw4 when the player holds enough
cards that a bluff is likely.
"""

from __future__ import annotations

import random

from games.engine.kato import COLOR, COLORS, IS_WILD, POINTS, RANK

from . import Bot, RandomBot, register

_HITS = {"skip", "reverse", "draw2"}


class HeuristicBot(Bot):
    level = "heuristic"

    # Weights of a play, tuned against random opponents (tests/bench/bench_kato.py).
    wild_penalty = 30.0
    hit_bonus = 2.0
    hit_bonus_next_low = 25.0
    color_weight = 1.0

    def choose(self, view: dict, legal_actions: list[dict], rng: random.Random) -> dict:
        by_type: dict[str, list[dict]] = {}
        for action in legal_actions:
            by_type.setdefault(action["type"], []).append(action)
        if "call" in by_type:
            return by_type["call"][0]
        if "catch" in by_type:
            return by_type["catch"][0]
        hand = view["hand"] or []
        if "choose_color" in by_type:
            return {"type": "choose_color", "color": self._best_color(hand, None)}
        plays = by_type.get("play", [])
        if view["phase"] == "pending":
            return self._answer_draw(view, hand, plays, by_type)
        if view["phase"] == "drawn":
            if plays and (not IS_WILD[plays[0]["cards"][0]] or len(hand) <= 3
                          or self._honest_or_plain(plays[0], view, hand)):
                return self._with_call(self._colored(plays[0], hand), hand)
            return by_type.get("pass", plays)[0]
        if plays:
            best = self._best_play(view, hand, plays)
            if best is not None:
                return self._with_call(best, hand)
        return by_type.get("draw", legal_actions)[0]

    # --- helpers -------------------------------------------------------------------------
    @staticmethod
    def _with_call(action: dict, hand: list) -> dict:
        if len(hand) - len(action["cards"]) == 1:
            return {**action, "call": True}
        return action

    @staticmethod
    def _best_color(hand: list, excluding: list | None) -> str:
        counts = dict.fromkeys(COLORS, 0)
        skip = list(excluding or [])
        for card in hand:
            if card in skip:
                skip.remove(card)
                continue
            color = COLOR[card]
            if color:
                counts[color] += 1 + POINTS[card] / 100
        return max(COLORS, key=lambda c: counts[c])

    def _colored(self, action: dict, hand: list) -> dict:
        if "color" in action:
            return {**action, "color": self._best_color(hand, action["cards"])}
        return action

    @staticmethod
    def _honest_or_plain(action: dict, view: dict, hand: list) -> bool:
        card = action["cards"][-1]
        if RANK[card] != "wild-draw4":
            return True
        color = view["color"]
        rest = list(hand)
        rest.remove(card)
        return not any(COLOR[c] == color for c in rest)

    def _answer_draw(self, view, hand, plays, by_type):
        # Passing a pending draw on is always better than taking it.
        if plays:
            return self._colored(plays[0], hand)
        if "challenge" in by_type:
            seat = view["seat"]
            direction = view["direction"]
            bluffer = (seat - direction) % view["players"]
            # The more cards the player kept, the likelier one had the judged colour.
            if view["hand_counts"][bluffer] >= 2:
                return by_type["challenge"][0]
        return by_type["accept"][0]

    def _best_play(self, view, hand, plays):
        seat = view["seat"]
        counts = view["hand_counts"]
        n = view["players"]
        nxt = (seat + view["direction"]) % n
        danger = min(c for i, c in enumerate(counts) if i != seat) <= 2
        next_low = counts[nxt] <= 2
        color_counts = dict.fromkeys(COLORS, 0)
        for card in hand:
            if COLOR[card]:
                color_counts[COLOR[card]] += 1
        best, best_score = None, None
        seen = set()
        for action in plays:
            cards = action["cards"]
            key = tuple(cards)
            if key in seen:
                continue
            seen.add(key)
            top = cards[-1]
            rank = RANK[top]
            score = 10.0 * len(cards)
            if IS_WILD[top]:
                if rank == "wild-draw4" and not self._honest_or_plain(action, view, hand):
                    continue  # never bluff: random challengers call it half the time
                score -= self.wild_penalty  # keep wilds for when nothing else fits
                if next_low and rank != "wild":
                    score += 45
            else:
                score += self.color_weight * color_counts[COLOR[top]]  # stay in the colour we hold most
                if rank in _HITS:
                    score += self.hit_bonus_next_low if next_low else self.hit_bonus
            if danger:
                score += sum(POINTS[c] for c in cards) / 5  # shed points before the end
            else:
                score += sum(POINTS[c] for c in cards) / 40
            if best_score is None or score > best_score:
                best, best_score = action, score
        if best is None:
            return None
        return self._colored(best, hand)


register("kato", RandomBot(), HeuristicBot())
