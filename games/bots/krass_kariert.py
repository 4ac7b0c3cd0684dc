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
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from games.engine.krass_kariert import KRASS_KARIERT, best_strength

from .base import Bot, GameBots, RandomBot
from .search import InfoSet, SearchBot, hold_out_draw_pile, progress_reward, take, unseen

# How much holding a card is worth beyond its place in the plan (it gets us out of trouble).
ESCAPE_VALUE = {"stop": 0.9, "draw": 0.5, "x": 0.45}
# Worth of the reserve cards still lying in front of us: the last one is the lifeline.
RESERVE_VALUE = (0.0, 1.6, 2.4)
DRAWN_CARD_COST = 0.45
LEAD_VALUE = 0.25


# Hands seen by the heuristic, most recent first. Bounded: a strong bot's playouts meet ~20,000
# new hands a move, and the unbounded cache this was grew a simulation's worker past 12 GB
# within 400 matches (and would have grown a Celery worker's for as long as it ran).
PLAN_CACHE_SIZE = 1 << 16


@lru_cache(maxsize=PLAN_CACHE_SIZE)
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
    description = "plays by fixed rules of thumb, one move at a time"

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




@dataclass(frozen=True)
class Piles:
    """What the deal's public history tells about the piles: the discard pile, card for card
    (every finished trick since the last reshuffle, shown to all), and, once the discard pile
    was reshuffled into the draw pile, the cards that draw pile was made of less those the seat
    drew since (the draw pile is some of them; the others went to whoever won draws)."""
    discard: tuple
    reshuffled: tuple | None


def observe(info: InfoSet) -> Piles | None:
    """The seat's history of the deal read into ``Piles``; None where it does not account for
    the view's discard pile (a history cut short, a bot given none): the piles are then
    sampled as unseen cards."""
    pile: list = []
    trick: list = []
    reshuffled: Counter | None = None
    for e in info.history:
        kind = e.get("type")
        if kind == "deal_started":
            pile, trick, reshuffled = [], [], None
        elif kind == "played":
            trick.extend(e["cards"])
        elif kind == "trick_won":
            pile.extend(trick)
            trick = []
        elif kind == "reshuffled":
            reshuffled = Counter(pile[:-1])
            pile = pile[-1:]
        elif kind == "drew_card" and reshuffled is not None and e.get("seat") == info.seat:
            if reshuffled[e["card"]] > 0:
                reshuffled[e["card"]] -= 1
    if len(pile) != info.view["discard_pile_count"]:
        return None
    return Piles(tuple(pile), None if reshuffled is None else tuple(sorted(reshuffled.elements())))


def determinize(info: InfoSet, rng: random.Random, piles: Piles | None = None) -> dict:
    """A full Krass Kariert state consistent with the seat's view and history. Public: every
    reserve card, the current trick, the discard pile (``Piles``, read from the history); the
    seat's own hand and the cards it is inserting. After a reshuffle the draw pile (and a card
    another trick winner is inserting) is some of the reshuffled cards the seat did not draw
    itself. The other hands (in a random order: hand order is private) and the rest are a
    shuffle of the unseen cards with the counts the view shows. The trick winner and the last
    seat to empty its hand follow from the public tricks, as the engine computes them."""
    v = info.view
    seat, n = info.seat, v["players"]
    trick = v["trick"]
    own_drawn = v["drawn"] or []
    known_discard = list(piles.discard) if piles is not None else []
    pool = unseen(KRASS_KARIERT.full_deck({}), v["hand"], own_drawn, *v["reserves"],
                  *(e["cards"] for e in trick), known_discard)
    rng.shuffle(pool)
    drawer = v["drawer"]
    other_drawn = 0 if drawer == seat else v["drawn_waiting"]
    count = v["draw_pile_count"] + other_drawn
    held = hold_out_draw_pile(pool, piles and piles.reshuffled, count)
    from_pile = held + take(pool, count - len(held))
    draw_pile, drawn = from_pile[:v["draw_pile_count"]], from_pile[v["draw_pile_count"]:]
    hands = [list(v["hand"]) if p == seat else take(pool, v["hand_counts"][p])
             for p in range(n)]
    if drawer == seat:
        drawn = list(own_drawn)
    discard = known_discard if piles is not None else take(pool, v["discard_pile_count"])
    phase = v["phase"]
    state_phase = "play" if phase in ("lead", "follow") else phase
    last = v["last_trick"]
    candidates = [e["seat"] for e in reversed(last if phase == "insert" else trick)
                  if e["action"] == "play" and e["kind"] != "draw"]
    winner = candidates[0] if candidates else v["leader"]
    emptied = [e["seat"] for e in (last if phase == "insert" else trick)
               if e["action"] == "play" and not v["hand_counts"][e["seat"]]]
    top = v["top"]
    # The view has no options; within a deal only the hand size matters, and it shows that.
    options = {**KRASS_KARIERT.default_options(), "hand_size": v["hand_size"]}
    return {
        "players": n, "options": options,
        "rng": rng.getrandbits(62) + 1, "deal": v["deal"], "chips": list(v["chips"]),
        "last_loser": v["last_loser"], "hands": hands,
        "reserves": [list(r) for r in v["reserves"]], "draw_pile": draw_pile,
        "discard_pile": discard, "drawer": drawer, "drawn": drawn,
        "draws_left": v["draws_left"], "last_trick": [dict(e) for e in last],
        "deal_result": v["round_result"], "match_result": v["result"],
        "phase": state_phase, "leader": v["leader"], "to_act": list(v["to_act"]),
        "trick": [dict(e) for e in trick],
        "top": None if top is None else {**top, "cards": list(top["cards"])},
        "last_emptied": emptied[-1] if emptied else None,
        "winner": winner if phase == "insert" else None,
        "candidates": (candidates or [winner]) if phase == "insert" else [],
    }


def rollout_view(state: dict, seat: int) -> dict:
    """The fields of the seat's view the heuristic reads, straight from a sampled world (a
    playout's own guess, never the real state): no copies, nothing else."""
    phase = state["phase"]
    if phase == "play":
        phase = "follow" if state["trick"] else "lead"
    return {"seat": seat, "hand": state["hands"][seat], "phase": phase,
            "drawn": state["drawn"] if seat == state["drawer"] else [],
            "reserves": state["reserves"], "trick": state["trick"],
            "to_act": state["to_act"] if state["phase"] == "play" else []}


def evaluate(state: dict, seat: int) -> float:
    return progress_reward([len(h) for h in state["hands"]], seat)


_HEURISTIC = HeuristicBot()
BOTS = GameBots("krass_kariert", (
    RandomBot(),
    _HEURISTIC,
    SearchBot(KRASS_KARIERT, _HEURISTIC, determinize, evaluate, rollout_view=rollout_view,
              observe=observe),
))
