"""KaTO, the UNO-style shedding game, exactly as RULES.md settles it.

The state is one flat dict of plain JSON values. ``apply`` copies that dict and only the lists an
action changes (a hand, the draw pile, the discard pile), never the whole state, and card
attributes (colour, rank, points) come from module-level tables built once, because this is the
hot path of every bot, benchmark and server move.

Phases: ``color`` (a wild or cone was turned up: the starting seat chooses the colour first),
``play`` (an ordinary turn), ``drawn`` (the card just drawn fits: play it or pass), ``pending``
(a draw waits for its victim's answer), ``round_over``. Independently, ``window`` is the seat
whose KaTO call may still be made or caught (-1 when closed); while it is open every seat acts.

Where RULES.md leaves room, this module decides:
- A cone as the first card is only a wild (choose the colour); its effect does not apply.
- A `reverse` cone is a reverse in every respect, so with 2 players it acts as a skip.
- A `draw10` cone draws at once (nothing answers it), may not be played on a pending draw,
  and like a last draw2/wild-draw4 still makes the next player draw when it is the last card.
- Only a wild-draw4 played on no pending draw can be challenged; after a bounce, nobody can.
  Its honesty is judged at play time against the colour then in force; the challenge shows
  the hand as it is when challenged. The shown hand stays in the challenger's view until the
  next action of the seat whose turn it is.
- A bounced draw keeps its kind for stacking (a bounced +4 still takes no +2).
- `own_penalty` with `rounds` 0 ends when someone's total reaches `target_score`.
- A `color` given with a non-wild card is rejected (`invalid_field`), not ignored.
"""

from __future__ import annotations

from . import register
from .base import Game
from .cards import check_deck, draw_cards, event, placings, shuffled_deck
from .errors import IllegalAction, InvalidDeck
from .options import BoolOption, ChoiceOption, IntOption

COLORS = ("red", "yellow", "green", "blue")
_COLOR_SET = frozenset(COLORS)
NUMBERS = tuple(str(k) for k in range(10))
ACTIONS = ("skip", "reverse", "draw2")
WILD, WILD4, CONE = "wild", "wild-draw4", "cone"


def _base_deck() -> list[str]:
    deck = []
    for color in COLORS:
        deck.append(f"{color}-0")
        for rank in NUMBERS[1:] + ACTIONS:
            deck += [f"{color}-{rank}"] * 2
    return deck + [WILD] * 4 + [WILD4] * 4


BASE_DECK = _base_deck()

# Card attributes, looked up on every step instead of parsing codes.
COLOR: dict[str, str | None] = {}
RANK: dict[str, str] = {}
POINTS: dict[str, int] = {}
IS_WILD: dict[str, bool] = {}
IS_NUMBER: dict[str, bool] = {}
for _code in set(BASE_DECK) | {CONE}:
    if _code in (WILD, WILD4, CONE):
        COLOR[_code], RANK[_code], POINTS[_code] = None, _code, 50
    else:
        _c, _r = _code.split("-", 1)
        COLOR[_code], RANK[_code] = _c, _r
        POINTS[_code] = int(_r) if _r in NUMBERS else 20
    IS_WILD[_code] = COLOR[_code] is None
    IS_NUMBER[_code] = RANK[_code] in NUMBERS
# FITS[colour in force][rank of the top card]: the non-wild cards that may be played on it.
FITS: dict = {
    color: {rank: frozenset(c for c in RANK if not IS_WILD[c]
                            and (COLOR[c] == color or RANK[c] == rank))
            for rank in set(RANK.values())}
    for color in (*COLORS, None)
}
WILDS = frozenset(c for c in RANK if IS_WILD[c])
IS_PLAIN = {c: IS_NUMBER[c] or c == WILD for c in RANK}  # no effect beyond the colour
DRAW_AMOUNT = {"draw2": 2, WILD4: 4}

_SEATS = [list(range(n)) for n in range(11)]
# The fields each action type may carry (RULES.md "Actions").
_FIELDS = {
    "play": frozenset({"type", "cards", "color", "call"}),
    "choose_color": frozenset({"type", "color"}),
    "catch": frozenset({"type", "seat"}),
    **{t: frozenset({"type"}) for t in ("draw", "pass", "accept", "challenge", "call")},
}


def _copy_result(result: dict | None) -> dict | None:
    """A round result that callers may change without touching the state."""
    if result is None:
        return None
    return {k: list(v) if type(v) is list else v for k, v in result.items()}


class KaTO(Game):
    id = "kato"
    name = "KaTO"
    min_players = 2
    max_players = 10
    OPTIONS = (
        IntOption("hand_size", 7, "cards dealt to each player", minimum=3, maximum=10),
        IntOption("target_score", 500, "the match ends when someone reaches it",
                  minimum=1, maximum=1_000_000),
        IntOption("rounds", 0, "play this many rounds instead of to target_score (0: off)",
                  minimum=0, maximum=10_000),
        ChoiceOption("scoring", "winner_collects", "who scores a round's points",
                     choices=("winner_collects", "own_penalty")),
        ChoiceOption("stacking", "none", "which draw cards may be put on a pending draw",
                     choices=("none", "draw2", "all")),
        ChoiceOption("multi_play", "none", "several number cards in one play",
                     choices=("none", "doubling", "same_number")),
        IntOption("kato_penalty", 2, "cards drawn by a player caught without a KaTO call",
                  minimum=0, maximum=20),
        BoolOption("challenge", True, "a wild-draw4 may be challenged"),
        BoolOption("draw_until_playable", False, "draw until a card fits, then play it"),
        IntOption("cone_cards", 0, "traffic cone cards added to the deck", minimum=0, maximum=4),
        ChoiceOption("cone_effect", "bounce", "what a cone does besides choosing the colour",
                     choices=("bounce", "reverse", "draw10")),
    )
    ACTION_TYPES = frozenset(
        {"play", "draw", "pass", "choose_color", "accept", "challenge", "call", "catch"})

    # --- deck and deal -------------------------------------------------------------------
    def full_deck(self, options: dict) -> list[str]:
        return BASE_DECK + [CONE] * options.get("cone_cards", 0)

    def _new_game_events(self, players, rng_state, options, deck):
        rng_state, pile = shuffled_deck(rng_state, self.full_deck(options), deck)
        state = {
            "players": players, "options": options, "rng": rng_state, "round": 1,
            "dealer": players - 1, "scores": [0] * players, "over": False,
            "last_result": None,
        }
        events: list = []
        return self._deal(state, pile, events), events

    def deal_round(self, state: dict, deck: list) -> dict:
        """The state with a fresh round dealt from ``deck`` (the full deck, in draw order) by
        the current dealer; used by ``start_next_round`` and by tests of later rounds."""
        return self._deal(dict(state), check_deck(deck, self.full_deck(state["options"])), [])

    def _deal(self, s: dict, pile: list, events: list) -> dict:
        n, opts = s["players"], s["options"]
        size = opts["hand_size"]
        dealer = s["dealer"]
        first = (dealer + 1) % n
        hands: list[list] = [[] for _ in range(n)]
        for i in range(n * size):
            hands[(first + i) % n].append(pile[i])
        pile = pile[n * size:]
        # A wild-draw4 turned up goes to the bottom; the next card is turned up instead.
        guard = len(pile)
        while pile[0] == WILD4 and guard:
            pile = pile[1:] + pile[:1]
            guard -= 1
        if pile[0] == WILD4:  # pragma: no cover - the deck always has other cards left
            raise InvalidDeck("invalid_deck", "no card can be turned up")
        up = pile[0]
        s.update(hands=hands, draw_pile=pile[1:], discard=[up], color=COLOR[up], direction=1,
                 turn=first, phase="play", pending=0, pending_kind=None, chal_seat=-1,
                 chal_honest=False, chal_color=None, drawn=None, window=-1, shown=None)
        for seat in range(n):
            events.append(event("dealt", [seat], seat=seat, cards=list(hands[seat])))
        events.append(event("round_started", round=s["round"], dealer=dealer, top=up,
                            hand_counts=[size] * n))
        rank = RANK[up]
        if rank == "skip":
            s["turn"] = (first + 1) % n
            events.append(event("skipped", seat=first))
        elif rank == "reverse":
            s["turn"] = dealer
            if n == 2:
                events.append(event("skipped", seat=first))
            else:
                s["direction"] = -1
                events.append(event("direction", direction=-1))
        elif rank == "draw2":
            s["hands"] = hands = list(hands)
            self._draw(s, hands, first, 2, events)
            s["turn"] = (first + 1) % n
            events.append(event("skipped", seat=first))
        elif IS_WILD[up]:
            s["phase"] = "color"
        s["actors"] = [s["turn"]]
        return s

    # --- drawing -------------------------------------------------------------------------
    @staticmethod
    def _draw(s: dict, hands: list, seat: int, count: int, events: list) -> list:
        """``seat`` draws ``count`` cards into ``hands`` (a copy owned by ``s``)."""
        pile = s["draw_pile"]
        if len(pile) >= count:
            drawn = pile[:count]
            s["draw_pile"] = pile[count:]
        else:
            rng_state, drawn, pile, discard, reshuffled = draw_cards(
                s["rng"], pile, s["discard"], count)
            s["rng"], s["draw_pile"], s["discard"] = rng_state, pile, discard
            if reshuffled:
                events.append(event("reshuffled", draw_count=len(pile) + len(drawn)))
        if drawn:
            hands[seat] = hands[seat] + drawn
        events.append({"type": "drew", "visible_to": "all", "seat": seat, "count": len(drawn)})
        events.append({"type": "drew_cards", "visible_to": [seat], "seat": seat,
                       "cards": drawn})
        return drawn

    # --- queries -------------------------------------------------------------------------
    def actors(self, state: dict) -> list[int]:
        return list(state["actors"])

    def is_round_over(self, state: dict) -> bool:
        return state["phase"] == "round_over"

    def is_over(self, state: dict) -> bool:
        return state["over"]

    def all_cards(self, state: dict) -> list[str]:
        out = [c for hand in state["hands"] for c in hand]
        return out + state["draw_pile"] + state["discard"]

    @staticmethod
    def _waits(s: dict, kind: str) -> bool:
        """Whether a pending draw of ``kind`` waits for its victim: only the rules in force
        decide, never the victim's hand, so that waiting reveals nothing."""
        opts = s["options"]
        if opts["cone_cards"] and opts["cone_effect"] == "bounce":
            return True
        if kind == "draw2":
            return opts["stacking"] != "none"
        return opts["stacking"] == "all" or s["chal_seat"] >= 0

    @staticmethod
    def _answers(s: dict, card: str) -> bool:
        """Whether ``card`` may be played on the pending draw."""
        rank = RANK[card]
        opts = s["options"]
        if rank == "draw2":
            return s["pending_kind"] == "draw2" and opts["stacking"] != "none"
        if rank == WILD4:
            return opts["stacking"] == "all"
        if rank == CONE:
            return opts["cone_effect"] == "bounce"
        return False

    def legal_actions(self, state: dict, seat: int) -> list[dict]:
        if seat not in state["actors"]:
            return []
        out: list[dict] = []
        window = state["window"]
        if seat == state["turn"]:
            phase = state["phase"]
            if phase == "play":
                hand = state["hands"][seat]
                color = state["color"]
                top_rank = RANK[state["discard"][-1]]
                fits = FITS[color][top_rank]
                for c in dict.fromkeys(hand):
                    if c in fits:
                        out.append({"type": "play", "cards": [c]})
                    elif c in WILDS:
                        for k in COLORS:
                            out.append({"type": "play", "cards": [c], "color": k})
                mode = state["options"]["multi_play"]
                if mode != "none":
                    out += self._multi_plays(hand, color, top_rank, mode)
                out.append({"type": "draw"})
            elif phase == "drawn":
                c = state["drawn"]
                if IS_WILD[c]:
                    for k in COLORS:
                        out.append({"type": "play", "cards": [c], "color": k})
                else:
                    out.append({"type": "play", "cards": [c]})
                if not state["options"]["draw_until_playable"]:
                    out.append({"type": "pass"})
            elif phase == "pending":
                out.append({"type": "accept"})
                if state["chal_seat"] >= 0:
                    out.append({"type": "challenge"})
                for c in dict.fromkeys(state["hands"][seat]):
                    if IS_WILD[c] or RANK[c] == "draw2":
                        if self._answers(state, c):
                            if IS_WILD[c]:
                                for k in COLORS:
                                    out.append({"type": "play", "cards": [c], "color": k})
                            else:
                                out.append({"type": "play", "cards": [c]})
            elif phase == "color":
                for k in COLORS:
                    out.append({"type": "choose_color", "color": k})
        if window >= 0:
            if seat == window:
                out.append({"type": "call"})
            else:
                out.append({"type": "catch", "seat": window})
        return out

    @staticmethod
    def _multi_plays(hand: list, color: str, top_rank: str, mode: str) -> list[dict]:
        out = []
        if mode == "doubling":
            seen = set()
            for c in hand:
                if IS_NUMBER[c] and c not in seen and (COLOR[c] == color or RANK[c] == top_rank):
                    seen.add(c)
                    if hand.count(c) >= 2:
                        out.append({"type": "play", "cards": [c, c]})
            return out
        by_number: dict[str, list] = {}
        for c in hand:
            if IS_NUMBER[c]:
                by_number.setdefault(RANK[c], []).append(c)
        for group in by_number.values():
            if len(group) < 2:
                continue
            group.sort()
            keys: dict = {}
            k = len(group)
            for mask in range(1, 1 << k):
                if mask & (mask - 1) == 0:
                    continue
                chosen = [group[i] for i in range(k) if mask >> i & 1]
                for fi, first in enumerate(chosen):
                    if COLOR[first] != color and RANK[first] != top_rank:
                        continue
                    rest = chosen[:fi] + chosen[fi + 1:]
                    for li, last in enumerate(rest):
                        middle = rest[:li] + rest[li + 1:]
                        keys[(first, *middle, last)] = None
            out += [{"type": "play", "cards": list(key)} for key in keys]
        return out

    # --- apply ---------------------------------------------------------------------------
    def apply(self, state: dict, seat: int, action) -> tuple[dict, list[dict]]:
        # The base checks, inlined for speed (same order, same codes).
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise IllegalAction("malformed_action", "an action must be an object with a type")
        handler = self._HANDLERS.get(action["type"])
        if handler is None:
            raise IllegalAction("unknown_action", f"unknown action type '{action['type']}'")
        if state["over"]:
            raise IllegalAction("game_over", "the match is over")
        if state["phase"] == "round_over":
            raise IllegalAction("round_over", "the round is over")
        if type(seat) is not int or seat not in state["actors"]:
            raise IllegalAction("not_your_turn", "it is not your turn")
        if not _FIELDS[action["type"]].issuperset(action):
            raise IllegalAction("invalid_field", "unknown field in the action")
        return handler(self, state, seat, action)

    def _apply(self, state, seat, action):
        if not _FIELDS[action["type"]].issuperset(action):
            raise IllegalAction("invalid_field", "unknown field in the action")
        return self._HANDLERS[action["type"]](self, state, seat, action)

    @staticmethod
    def _open(state: dict, seat: int) -> tuple[dict, list, list]:
        """Start a turn action: a copy of the state with the KaTO window closed (the next
        action of the seat whose turn it is closes it) and no challenged hand shown any more;
        also a copy of the hands list and an empty event list."""
        s = dict(state)
        s["shown"] = None
        s["window"] = -1
        return s, list(state["hands"]), []

    @staticmethod
    def _finish(s: dict) -> dict:
        s["actors"] = _SEATS[s["players"]][:] if s["window"] >= 0 else [s["turn"]]
        return s

    # play ------------------------------------------------------------------------------
    def _play(self, state, seat, action):
        if seat != state["turn"]:
            raise IllegalAction("not_your_turn", "it is not your turn")
        cards = action.get("cards")
        if type(cards) is not list or not cards:
            raise IllegalAction("invalid_field", "cards must be a non-empty list of card codes")
        for c in cards:
            if type(c) is not str or c not in RANK:
                raise IllegalAction("invalid_field", "cards must be a list of card codes")
        call = action.get("call", False)
        if call is not False and call is not True:
            raise IllegalAction("invalid_field", "call must be true or false")
        color = action.get("color")
        phase = state["phase"]
        opts = state["options"]
        hand = state["hands"][seat]
        card = cards[-1]
        first = cards[0]
        if phase == "color":
            raise IllegalAction("choose_color_first", "choose the colour first")
        if len(cards) == 1:
            new_hand = list(hand)
            try:
                new_hand.remove(card)
            except ValueError:
                raise IllegalAction("card_not_in_hand", "you do not hold that card") from None
        else:
            mode = opts["multi_play"]
            if mode == "none":
                raise IllegalAction("one_card_only", "only one card may be played")
            if phase != "play":
                raise IllegalAction("one_card_only", "only one card may be played now")
            if mode == "doubling":
                if len(cards) != 2 or first != card or not IS_NUMBER[card]:
                    raise IllegalAction("invalid_combination",
                                        "doubling is two identical number cards")
            else:
                rank = RANK[first]
                if not all(IS_NUMBER[c] and RANK[c] == rank for c in cards):
                    raise IllegalAction("invalid_combination",
                                        "several cards must all be number cards of one number")
            new_hand = list(hand)
            for c in cards:
                if c not in new_hand:
                    raise IllegalAction("card_not_in_hand", "you do not hold those cards")
                new_hand.remove(c)
        if IS_WILD[card]:
            if color not in _COLOR_SET:
                raise IllegalAction("color_required" if color is None else "invalid_field",
                                    "choose a colour: red, yellow, green or blue")
        elif color is not None:
            raise IllegalAction("invalid_field", "only a wild card takes a colour")
        pending = state["pending"]
        if phase == "pending":
            if not self._answers(state, card):
                raise IllegalAction("must_answer_draw",
                                    "accept the draw, or answer it with a card the rules allow")
        elif phase == "drawn":
            if card != state["drawn"]:
                raise IllegalAction("must_play_drawn_card", "only the card just drawn may be played")
        elif not (IS_WILD[first] or COLOR[first] == state["color"]
                  or RANK[first] == RANK[state["discard"][-1]]):
            raise IllegalAction("does_not_match", "that card does not match the top card")

        n = state["players"]
        s = dict(state)
        s["shown"] = None
        s["window"] = -1
        hands = list(state["hands"])
        events = []
        hands[seat] = new_hand
        s["hands"] = hands
        s["discard"] = state["discard"] + cards
        s["drawn"] = None
        s["phase"] = "play"
        rank = RANK[card]
        s["color"] = color if color is not None else COLOR[card]
        events.append({"type": "played", "visible_to": "all", "seat": seat, "cards": cards,
                       "color": s["color"]})
        left = len(new_hand)
        if left == 1:
            if call:
                events.append({"type": "called", "visible_to": "all", "seat": seat})
            else:
                s["window"] = seat
        direction = state["direction"]
        nxt = (seat + direction) % n
        if IS_PLAIN[card]:  # the common case: a number or a plain wild
            if left == 0:
                return self._end_round(s, seat, events), events
            s["turn"] = nxt
            s["actors"] = _SEATS[n][:] if s["window"] >= 0 else [nxt]
            return s, events

        if rank in DRAW_AMOUNT or (phase == "pending" and rank == CONE):
            if rank == CONE:  # a bounce: the whole pending draw goes on
                total, kind = pending, state["pending_kind"]
                s["chal_seat"] = -1
            else:
                total = pending + DRAW_AMOUNT[rank]
                kind = rank if pending == 0 else ("draw2" if rank == "draw2" else WILD4)
                if rank == WILD4 and pending == 0 and opts["challenge"]:
                    prev = state["color"]
                    s["chal_seat"] = seat
                    s["chal_color"] = prev
                    s["chal_honest"] = not any(COLOR[c] == prev for c in new_hand)
                else:
                    s["chal_seat"] = -1
            if left == 0:  # the last card still makes the next player draw, at once
                s["pending"], s["pending_kind"], s["chal_seat"] = 0, None, -1
                self._draw(s, hands, nxt, total, events)
                return self._end_round(s, seat, events), events
            if self._waits(s, kind):
                s["pending"], s["pending_kind"] = total, kind
                s["phase"] = "pending"
                s["turn"] = nxt
                events.append({"type": "draw_pending", "visible_to": "all", "seat": nxt,
                               "total": total, "challengeable": s["chal_seat"] >= 0})
            else:
                s["pending"], s["pending_kind"], s["chal_seat"] = 0, None, -1
                self._draw(s, hands, nxt, total, events)
                events.append({"type": "skipped", "visible_to": "all", "seat": nxt})
                s["turn"] = (nxt + direction) % n
            return self._finish(s), events

        if rank == CONE and opts["cone_effect"] == "draw10":
            # Like a last draw2 or wild-draw4, a last draw10 cone still makes the next draw.
            self._draw(s, hands, nxt, 10, events)
            if left == 0:
                return self._end_round(s, seat, events), events
            events.append({"type": "skipped", "visible_to": "all", "seat": nxt})
            s["turn"] = (nxt + direction) % n
            return self._finish(s), events
        if left == 0:
            return self._end_round(s, seat, events), events
        if rank == "skip" or (n == 2 and (rank == "reverse" or (
                rank == CONE and opts["cone_effect"] == "reverse"))):
            events.append({"type": "skipped", "visible_to": "all", "seat": nxt})
            s["turn"] = (nxt + direction) % n
        elif rank == "reverse" or (rank == CONE and opts["cone_effect"] == "reverse"):
            direction = -direction
            s["direction"] = direction
            events.append({"type": "direction", "visible_to": "all", "direction": direction})
            s["turn"] = (seat + direction) % n
        else:
            s["turn"] = nxt
        return self._finish(s), events

    # draw / pass ------------------------------------------------------------------------
    def _draw_action(self, state, seat, action):
        if seat != state["turn"]:
            raise IllegalAction("not_your_turn", "it is not your turn")
        phase = state["phase"]
        if phase != "play":
            raise IllegalAction(
                "must_answer_draw" if phase == "pending" else "cannot_draw_now",
                "you cannot draw now")
        s, hands, events = self._open(state, seat)
        s["hands"] = hands
        color = state["color"]
        top_rank = RANK[state["discard"][-1]]
        until = state["options"]["draw_until_playable"]
        while True:
            drawn = self._draw(s, hands, seat, 1, events)
            if not drawn:
                break
            c = drawn[0]
            if IS_WILD[c] or COLOR[c] == color or RANK[c] == top_rank:
                s["phase"] = "drawn"
                s["drawn"] = c
                events.append({"type": "drawn_card_fits", "visible_to": "all", "seat": seat,
                               "fits": True})
                return self._finish(s), events
            if not until:
                break
        # Public anyway: the turn ends at once when the drawn card does not fit.
        events.append({"type": "drawn_card_fits", "visible_to": "all", "seat": seat,
                       "fits": False})
        s["turn"] = (seat + state["direction"]) % state["players"]
        return self._finish(s), events

    def _pass(self, state, seat, action):
        if seat != state["turn"]:
            raise IllegalAction("not_your_turn", "it is not your turn")
        if state["phase"] != "drawn" or state["options"]["draw_until_playable"]:
            raise IllegalAction("cannot_pass", "you can only pass after drawing a card that fits")
        s, hands, events = self._open(state, seat)
        s["phase"] = "play"
        s["drawn"] = None
        events.append({"type": "passed", "visible_to": "all", "seat": seat})
        s["turn"] = (seat + state["direction"]) % state["players"]
        return self._finish(s), events

    # colour at the start ----------------------------------------------------------------
    def _choose_color(self, state, seat, action):
        if seat != state["turn"]:
            raise IllegalAction("not_your_turn", "it is not your turn")
        if state["phase"] != "color":
            raise IllegalAction("cannot_choose_color_now", "there is no colour to choose")
        color = action.get("color")
        if color not in _COLOR_SET:
            raise IllegalAction("invalid_field", "color must be red, yellow, green or blue")
        s, hands, events = self._open(state, seat)
        s["color"] = color
        s["phase"] = "play"
        events.append(event("color_chosen", seat=seat, color=color))
        return self._finish(s), events

    # answers to a pending draw ----------------------------------------------------------
    def _accept(self, state, seat, action):
        if seat != state["turn"]:
            raise IllegalAction("not_your_turn", "it is not your turn")
        if state["phase"] != "pending":
            raise IllegalAction("nothing_to_accept", "there is no pending draw")
        s, hands, events = self._open(state, seat)
        s["hands"] = hands
        events.append({"type": "accepted", "visible_to": "all", "seat": seat,
                       "total": state["pending"]})
        self._draw(s, hands, seat, state["pending"], events)
        events.append({"type": "skipped", "visible_to": "all", "seat": seat})
        s.update(pending=0, pending_kind=None, chal_seat=-1, phase="play")
        s["turn"] = (seat + state["direction"]) % state["players"]
        return self._finish(s), events

    def _challenge(self, state, seat, action):
        if seat != state["turn"]:
            raise IllegalAction("not_your_turn", "it is not your turn")
        bluffer = state["chal_seat"]
        if state["phase"] != "pending" or bluffer < 0:
            raise IllegalAction("nothing_to_challenge", "there is no wild-draw4 to challenge")
        s, hands, events = self._open(state, seat)
        s["hands"] = hands
        honest = state["chal_honest"]
        shown = list(state["hands"][bluffer])
        s["shown"] = {"to": seat, "seat": bluffer, "cards": shown}
        events.append(event("challenged", seat=seat, target=bluffer, honest=honest))
        events.append(event("hand_shown", [seat], seat=bluffer, cards=shown))
        s.update(chal_seat=-1, phase="play")
        if honest:
            total = state["pending"] + 2
            s["pending"], s["pending_kind"] = 0, None
            self._draw(s, hands, seat, total, events)
            events.append({"type": "skipped", "visible_to": "all", "seat": seat})
            s["turn"] = (seat + state["direction"]) % state["players"]
        else:
            s["pending"], s["pending_kind"] = 0, None
            self._draw(s, hands, bluffer, 4, events)
        return self._finish(s), events

    # KaTO call and catch ----------------------------------------------------------------
    def _call(self, state, seat, action):
        if state["window"] != seat:
            raise IllegalAction("nothing_to_call", "there is no KaTO call to make")
        s = dict(state)
        s["window"] = -1
        events = [event("called", seat=seat)]
        return self._finish(s), events

    def _catch(self, state, seat, action):
        target = action.get("seat")
        if type(target) is not int:
            raise IllegalAction("invalid_field", "seat must be a seat number")
        window = state["window"]
        if window < 0 or target != window:
            raise IllegalAction("nothing_to_catch", "that player cannot be caught")
        if target == seat:
            raise IllegalAction("cannot_catch_yourself", "call KaTO instead")
        s = dict(state)
        s["window"] = -1
        hands = list(state["hands"])
        s["hands"] = hands
        events = [event("caught", seat=target, by=seat,
                        penalty=state["options"]["kato_penalty"])]
        if state["options"]["kato_penalty"]:
            self._draw(s, hands, target, state["options"]["kato_penalty"], events)
        return self._finish(s), events

    _HANDLERS = {"play": _play, "draw": _draw_action, "pass": _pass,
                 "choose_color": _choose_color, "accept": _accept, "challenge": _challenge,
                 "call": _call, "catch": _catch}

    # --- rounds and match ----------------------------------------------------------------
    def _end_round(self, s: dict, winner: int, events: list) -> dict:
        n, opts = s["players"], s["options"]
        points = [sum(POINTS[c] for c in hand) for hand in s["hands"]]
        if opts["scoring"] == "winner_collects":
            round_scores = [0] * n
            round_scores[winner] = sum(points)
        else:
            round_scores = points
        totals = [a + b for a, b in zip(s["scores"], round_scores, strict=True)]
        order = [-1 if i == winner else p for i, p in enumerate(points)]
        result = {"round": s["round"], "winner": winner, "placings": placings(order),
                  "scores": round_scores, "points_left": points, "totals": totals}
        if opts["rounds"]:
            over = s["round"] >= opts["rounds"]
        else:
            over = max(totals) >= opts["target_score"]
        s.update(phase="round_over", window=-1, actors=[], scores=totals, over=over,
                 last_result=result, pending=0, pending_kind=None, chal_seat=-1, drawn=None)
        events.append(event("round_over", **result))
        if over:
            events.append(event("match_over", **self.result(s)))
        return s

    def round_result(self, state: dict) -> dict:
        if state["phase"] != "round_over":
            raise IllegalAction("round_not_over", "the round is not over")
        return _copy_result(state["last_result"])

    def start_next_round(self, state: dict) -> tuple[dict, list[dict]]:
        if state["over"]:
            raise IllegalAction("game_over", "the match is over")
        if state["phase"] != "round_over":
            raise IllegalAction("round_not_over", "the round is not over")
        s = dict(state)
        s["round"] = state["round"] + 1
        s["dealer"] = (state["dealer"] + 1) % state["players"]
        s["rng"], pile = shuffled_deck(state["rng"], self.full_deck(state["options"]), None)
        events: list = []
        s = self._deal(s, pile, events)
        return s, events

    def result(self, state: dict) -> dict:
        totals = state["scores"]
        lower = state["options"]["scoring"] == "own_penalty"
        return {"placings": placings(totals, lower_is_better=lower), "scores": list(totals),
                "rounds_played": state["round"]}

    # --- views ---------------------------------------------------------------------------
    def view(self, state: dict, seat: int | None) -> dict:
        own = seat is not None and 0 <= seat < state["players"]
        turn = state["turn"]
        shown = state["shown"]
        phase = state["phase"]
        discard = state["discard"]
        return {
            "hand": list(state["hands"][seat]) if own else None,
            "seat": seat if own else None,
            "hand_counts": [len(h) for h in state["hands"]],
            "actors": list(state["actors"]),
            "top": discard[-1] if discard else None,
            "color": state["color"],
            "direction": state["direction"],
            "phase": phase,
            "turn": None if phase == "round_over" else turn,
            "pending_draw": state["pending"],
            "pending_kind": state["pending_kind"],
            "challengeable": state["chal_seat"] >= 0,
            # The colour a challengeable wild-draw4 is judged against (everyone saw it).
            "challenge_color": state["chal_color"] if state["chal_seat"] >= 0 else None,
            "drawn": state["drawn"] if own and seat == turn else None,
            "kato_window": state["window"] if state["window"] >= 0 else None,
            "shown_hand": ({"seat": shown["seat"], "cards": list(shown["cards"])}
                           if own and shown and shown["to"] == seat else None),
            "draw_count": len(state["draw_pile"]),
            "discard_count": len(discard),
            "players": state["players"],
            "dealer": state["dealer"],
            "round": state["round"],
            "scores": list(state["scores"]),
            "last_result": _copy_result(state["last_result"]),
            "over": state["over"],
            "options": dict(state["options"]),
        }


KATO = register(KaTO())
