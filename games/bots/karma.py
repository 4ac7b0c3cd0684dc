"""Karma bots. They decide from the seat's view and legal actions only, never the state.

The heuristic sheds its lowest cards first so that high ones stay for a high pile, burns the
pile whenever it can, keeps its Karma cards for the moments when nothing else fits (taking a
small pile rather than spending one while the draw pile lasts), turns a blind card rather than
taking the pile, and gives the pile to the opponent closest to finishing.
"""

from __future__ import annotations

import random

from games.engine.karma import (
    DEALT_HAND,
    KARMA,
    KARMA_BOTTOM,
    KARMA_FIVE,
    KARMA_GIVE,
    KARMA_TABLE,
    TABLE_CARDS,
    VALUE,
    fits,
)

from .base import Bot, GameBots, RandomBot
from .search import (
    Beliefs,
    CannotSearch,
    InfoSet,
    SearchBot,
    deal_hands,
    take,
    unseen,
    win_reward,
    win_share,
)

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


# How often the heuristic plays another card than its rule's (see HeuristicBot.choose).
SHAKE = 0.1


class HeuristicBot(Bot):
    level = "heuristic"
    description = "plays by fixed rules of thumb, one move at a time"

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
        # Rules of thumb alone can go round in circles: two or three players handing the
        # same pile back and forth with the same cards, for ever (1 match in 200-300 of
        # heuristic bots never ended). Now and then another play breaks the circle, of a kind
        # that tells nothing false to the readings of ``observe``: a Karma card instead of
        # the lowest number (a Karma card played says nothing), and once the draw pile is
        # gone any number (``observe`` reads nothing from numbers played then).
        if numbers and rng.random() < SHAKE:
            if karmas:
                return rng.choice(karmas)
            if view["draw_count"] == 0:
                return rng.choice(numbers)
        if numbers:
            # The lowest number, all copies of it at once.
            return min(numbers, key=lambda a: (VALUE[a["cards"][0]], -len(a["cards"])))
        if blind:
            return blind[rng.randrange(len(blind))]
        if karmas:
            pile = view["pile"]
            # A small pile is worth taking rather than a Karma card while the draw pile lasts.
            # Once it is gone, now and then too: with only Karma cards that fit, two players
            # can hand the same Karma cards back and forth for ever (a strong and a heuristic
            # bot did, past 10,000 moves); taking a small pile tells ``observe`` nothing false.
            if take is not None and len(pile) <= SMALL_PILE and (
                    view["draw_count"] > 0 or rng.random() < SHAKE):
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


def features(card: str) -> tuple:
    """What decides a play (see ``Beliefs``): a number's value; a Karma card fits always."""
    value = VALUE[card]
    return ("karma",) if value is None else (f"v:{value}",)


_VALUES = sorted({v for v in VALUE.values() if v is not None})


def _unfitting(top: str | None, pile_size: int) -> set:
    """What a heuristic player held none of when it took a pile with ``top`` on it: a number
    that fits (it plays the lowest whenever one does) and, unless the pile was small enough
    to take rather than spend one, a Karma card."""
    out = {f"v:{v}" for v in _VALUES if fits(str(v), top)} if top is not None else set()
    if pile_size > SMALL_PILE:
        out.add("karma")
    return out


def _lower_fitting(played: list, pile: list) -> set:
    """The numbers a heuristic player did not hold when it played ``played`` from its hand
    on ``pile``: it burns when it can, else plays its lowest number that fits."""
    value = VALUE[played[0]]
    top, run = _top_run(pile)
    if value is None or (played[0] == top and run + len(played) >= 3):
        return set()
    return {f"v:{v}" for v in _VALUES if v < value and fits(str(v), top)}


def _pile_after(pile: list, e: dict) -> list:
    """The pile after an event, followed from the round's start (empty)."""
    kind = e.get("type")
    if kind == "played":
        return pile + list(e["cards"])
    if kind == "played_blind":
        return pile + [e["card"]]
    if kind in ("burned", "took_pile", "pile_given"):
        return []
    if kind == "bottom_card_up" and pile and pile[0] == e["card"]:
        return pile[1:] + [pile[0]]
    return pile


def observe(info: InfoSet) -> Beliefs:
    """The round's public events as seen by the seat: whoever took the pile (or was given
    it) holds its cards until it plays them; hand plays are public too; a player who took
    the pile from its hand had no number that fitted (nor a Karma card, for a big pile);
    one that played a number from its hand while the draw pile lasted had no lower one that
    fitted. The last needs the pile at every play, followed from the events: used only when
    that reading ends at the pile the view shows."""
    pile: list = []
    for e in info.history:
        if e.get("type") in ("round_started", "face_up_revealed"):
            pile = []
        pile = _pile_after(pile, e)
    follow = pile == list(info.view["pile"])
    b = Beliefs(info.view["players"], features)
    blind = None
    pile = []
    # The draw pile as it was at each event: a number the heuristic plays is its lowest
    # fitting one only while the draw pile lasts (HeuristicBot.choose).
    players = info.view["players"]
    drawable = len(KARMA.full_deck(info.view["options"])) - (DEALT_HAND + TABLE_CARDS) * players
    for e in info.history:
        kind = e.get("type")
        p = e.get("seat")
        if kind in ("round_started", "face_up_revealed"):
            pile = []
        if kind == "drew":
            drawable -= e.get("count", 0)
        if (follow and drawable > 0 and kind == "played" and e.get("source") == "hand"
                and p != info.seat):
            b.forbid(p, _lower_fitting(e["cards"], pile))
        pile = _pile_after(pile, e)
        if kind == "took_pile":
            if p != info.seat and blind != p and e["cards"]:
                b.forbid(p, _unfitting(e["cards"][-1], len(e["cards"])))
            b.add_known(p, e["cards"])
        elif kind == "pile_given":
            b.add_known(e["to"], e["cards"])
        elif kind == "played" and e.get("source") == "hand":
            for card in e["cards"]:
                b.remove(p, card)
        elif kind == "drew":
            b.add_unknown(p, e["count"])
        blind = p if kind == "played_blind" else None
    return b


def out_of_game(history: tuple, out_count: int) -> list | None:
    """The cards out of the game, read from the seat's history of the round: every burned
    pile and every karma-give played, all shown to every seat. None where the history does
    not account for the view's count (a history cut short, a bot given none)."""
    out: list = []
    for e in history:
        kind = e.get("type")
        if kind == "round_started":
            out = []
        elif kind == "burned":
            out.extend(e["cards"])
        elif kind == "played" and e["cards"] == [KARMA_GIVE]:
            out.append(KARMA_GIVE)
        elif kind == "played_blind" and e["card"] == KARMA_GIVE:
            out.append(KARMA_GIVE)
    return out if len(out) == out_count else None


def determinize(info: InfoSet, rng: random.Random, beliefs: Beliefs | None = None) -> dict:
    """A full Karma state consistent with the seat's view. Public: the pile, the face-up
    table cards, who finished, the cards out of the game (read from the history,
    ``out_of_game``); the seat's own hand (and, with ``foresight``, the set of its face-down
    cards). Everything else it has not seen (other hands, every face-down card at its
    remaining positions, the draw pile) is a shuffle of the unseen cards with the counts the
    view shows; so are the cards out of the game where the history does not tell them."""
    v = info.view
    seat, n = info.seat, v["players"]
    own_down = v["own_table_down"]
    known_out = out_of_game(info.history, v["out_count"])
    pool = unseen(KARMA.full_deck(v["options"]), v["hand"], v["pile"],
                  *v["table_up"], own_down or [], known_out or [])
    rng.shuffle(pool)
    hands = deal_hands(v, seat, pool, beliefs)
    table_down = []
    for p in range(n):
        positions = v["table_down_positions"][p]
        if p == seat and own_down is not None:
            cards = list(own_down)
            rng.shuffle(cards)
        else:
            cards = take(pool, len(positions))
        row = [None] * 3
        for pos, card in zip(positions, cards, strict=True):
            row[pos] = card
        table_down.append(row)
    draw_pile = take(pool, v["draw_count"])
    out = take(pool, v["out_count"]) if known_out is None else known_out
    if pool:
        raise CannotSearch("the view's counts do not add up")
    return {
        "players": n, "options": dict(v["options"]), "rng": rng.getrandbits(62) + 1,
        "phase": v["phase"], "hands": hands, "choices": [[] for _ in range(n)],
        "table_up": [list(t) for t in v["table_up"]], "table_down": table_down,
        "draw_pile": draw_pile, "pile": list(v["pile"]), "out": out, "turn": v["turn"],
        "pending": v["pending"], "finished": list(v["finished"]), "loser": v["loser"],
    }


def _left(state: dict) -> list:
    return [len(h) + len(up) + sum(1 for c in down if c is not None)
            for h, up, down in zip(state["hands"], state["table_up"], state["table_down"],
                                   strict=True)]


def rollout_view(state: dict, seat: int) -> dict:
    """The fields of the seat's view the heuristic reads, straight from a sampled world (a
    playout's own guess, never the real state): no copies, nothing else."""
    return {"seat": seat, "pile": state["pile"], "draw_count": len(state["draw_pile"]),
            "finished": state["finished"], "cards_left": _left(state)}


def evaluate(state: dict, seat: int) -> float:
    """A cut-off playout: lost once another seat went out first, else the seat's chance to
    go out first from the cards each still holds (hand and table)."""
    finished = state["finished"]
    if finished:
        return 1.0 if finished[0] == seat else 0.1
    return win_share(_left(state), seat, scale=2.5, rest=0.2)


def searchable(info: InfoSet) -> bool:
    # Choosing the face-up cards is left to the heuristic: the other seats' choices are
    # hidden until all have chosen, and the choice only pays off a whole match later.
    return info.view["phase"] == "play"


_HEURISTIC = HeuristicBot()
BOTS = GameBots("karma", (
    RandomBot(),
    _HEURISTIC,
    SearchBot(KARMA, _HEURISTIC, determinize, evaluate, searchable=searchable,
              reward=win_reward, depth=40, confidence=2.5, keep_arms=4,
              rollout_view=rollout_view, observe=observe),
))
