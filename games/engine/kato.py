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
- A `color` given with a non-wild card is rejected (`color_not_allowed`), not ignored.
"""

from __future__ import annotations

from . import declaration as d
from .base import Game
from .cards import check_deck, draw_cards, event, placings, shuffled_deck
from .errors import IllegalAction, InvalidDeck
from .options import BoolOption, ChoiceOption, IntOption

COLORS = ("red", "yellow", "green", "blue")
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


def _copy_result(result: dict | None) -> dict | None:
    """A round result that callers may change without touching the state."""
    if result is None:
        return None
    return {k: list(v) if type(v) is list else v for k, v in result.items()}


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
_SEAT = d.EventField("seat", "seat", "the seat it is about")
_COLOR = d.Choice(choices=COLORS)

DECLARATION = d.Declaration(
    id="kato", name="KaTO", names={"en": "KaTO", "de": "KaTO"},
    summary="An UNO-style shedding game: match the colour or the symbol of the top card, "
            "call KaTO with one card left, and be the first without cards.",
    min_players=2, max_players=10, options=OPTIONS,
    cards=(
        d.CardGroup("number cards: one 0 and two each of 1 to 9 per colour (points: face "
                    "value)", tuple(f"{c}-{n}" for c in COLORS for n in NUMBERS)),
        d.CardGroup("action cards, two each per colour: skip the next player, reverse the "
                    "direction, the next player draws 2 (20 points)",
                    tuple(f"{c}-{a}" for c in COLORS for a in ACTIONS)),
        d.CardGroup("wild cards, four each: choose the colour; wild-draw4 also makes the next "
                    "player draw 4 (50 points)", (WILD, WILD4)),
        d.CardGroup("traffic cones, only with the cone_cards option: a wild whose effect "
                    "cone_effect sets (50 points)", (CONE,)),
    ),
    actions=(
        d.Action("play", "Play one card (several with multi_play; the last listed lies on "
                 "top). Wild cards need `color`; add `call: true` when one card will be left.",
                 (d.Field("cards", d.Cards(), "the cards played, from your hand"),
                  d.Field("color", _COLOR, "the colour chosen (wild cards only)", False),
                  d.Field("call", d.Flag(), "call KaTO with this play", False)),
                 example={"type": "play", "cards": ["red-7"]}),
        d.Action("draw", "Draw a card (always allowed on your turn)."),
        d.Action("pass", "Keep the card you just drew, although it fits."),
        d.Action("choose_color", "Choose the colour when a wild card starts the round.",
                 (d.Field("color", _COLOR, "the colour in force from now"),)),
        d.Action("accept", "Take the pending draw and be skipped."),
        d.Action("challenge", "Challenge the wild-draw4 played on you."),
        d.Action("call", "Call KaTO after a play that left you one card."),
        d.Action("catch", "Catch the player who forgot to call KaTO: they draw kato_penalty.",
                 (d.Field("seat", d.Seat(), "the seat caught"),)),
    ),
    view=(
        d.ViewField("hand", "[card]?", "your hand, in hand order (null for a spectator)",
                    private=True),
        d.ViewField("seat", "seat?", "your seat (null for a spectator)", private=True),
        d.ViewField("hand_counts", "[int]", "cards in each seat's hand"),
        d.ViewField("actors", "[seat]", "the seats that may act now"),
        d.ViewField("top", "card?", "the top card of the discard pile"),
        d.ViewField("color", "str?", "the colour in force"),
        d.ViewField("direction", "int", "1 clockwise, -1 counter-clockwise"),
        d.ViewField("phase", "str", "color (choose the first colour), play, drawn (play the "
                    "drawn card or pass), pending (answer a pending draw), round_over"),
        d.ViewField("turn", "seat?", "whose turn it is (null once the round is over)"),
        d.ViewField("pending_draw", "int", "cards a pending draw makes its victim take"),
        d.ViewField("pending_kind", "str?", "draw2 or wild-draw4: what was stacked last"),
        d.ViewField("challengeable", "bool", "the pending wild-draw4 may be challenged"),
        d.ViewField("challenge_color", "str?", "the colour a challengeable wild-draw4 is "
                    "judged against"),
        d.ViewField("drawn", "card?", "the card you just drew, while you may play it",
                    private=True),
        d.ViewField("kato_window", "seat?", "the seat that may still call KaTO or be caught"),
        d.ViewField("shown_hand", "json?", "{seat, cards}: the hand a challenge showed you",
                    private=True),
        d.ViewField("draw_count", "int", "cards in the draw pile"),
        d.ViewField("discard_count", "int", "cards in the discard pile"),
        d.ViewField("players", "int", "seats at the table"),
        d.ViewField("dealer", "seat", "this round's dealer"),
        d.ViewField("round", "int", "the round number, from 1"),
        d.ViewField("scores", "[int]", "match totals by seat"),
        d.ViewField("last_result", "json?", "the last round's result (see round_over)"),
        d.ViewField("over", "bool", "the match is over"),
        d.ViewField("options", "json", "the house rules in force"),
    ),
    events=(
        d.Event("dealt", "Your hand for the round.",
                (_SEAT, d.EventField("cards", "[card]", "the hand dealt")), d.OWNER),
        d.Event("round_started", "A round was dealt and its first card turned up.",
                (d.EventField("round", "int"), d.EventField("dealer", "seat"),
                 d.EventField("top", "card", "the first card turned up"),
                 d.EventField("hand_counts", "[int]"))),
        d.Event("played", "A play.", (_SEAT, d.EventField("cards", "[card]"),
                                      d.EventField("color", "str", "the colour now in force"))),
        d.Event("called", "KaTO was called.", (_SEAT,)),
        d.Event("caught", "A player was caught without a KaTO call.",
                (d.EventField("seat", "seat", "the player caught"),
                 d.EventField("by", "seat", "who caught them"),
                 d.EventField("penalty", "int", "cards they draw"))),
        d.Event("drew", "Cards drawn (how many only).",
                (_SEAT, d.EventField("count", "int"))),
        d.Event("drew_cards", "The cards you drew.", (_SEAT, d.EventField("cards", "[card]")),
                d.OWNER),
        d.Event("drawn_card_fits", "Whether the card just drawn may be played.",
                (_SEAT, d.EventField("fits", "bool"))),
        d.Event("passed", "The drawn card was kept.", (_SEAT,)),
        d.Event("skipped", "A player is skipped.", (_SEAT,)),
        d.Event("direction", "The direction of play changed.",
                (d.EventField("direction", "int", "1 or -1"),)),
        d.Event("color_chosen", "The first colour was chosen.",
                (_SEAT, d.EventField("color", "str"))),
        d.Event("draw_pending", "A draw waits for its victim's answer.",
                (d.EventField("seat", "seat", "the victim"),
                 d.EventField("total", "int", "cards to draw"),
                 d.EventField("challengeable", "bool"))),
        d.Event("accepted", "The victim takes the pending draw.",
                (_SEAT, d.EventField("total", "int"))),
        d.Event("challenged", "A wild-draw4 was challenged.",
                (d.EventField("seat", "seat", "the challenger"),
                 d.EventField("target", "seat", "who played the wild-draw4"),
                 d.EventField("honest", "bool", "the play was honest"))),
        d.Event("hand_shown", "The challenged hand, shown to the challenger.",
                (d.EventField("seat", "seat", "whose hand it is"),
                 d.EventField("cards", "[card]")), "only the challenger"),
        d.Event("reshuffled", "The discard pile became the new draw pile.",
                (d.EventField("draw_count", "int"),)),
        d.Event("round_over", "The round ended.",
                (d.EventField("round", "int"), d.EventField("winner", "seat"),
                 d.EventField("placings", "[int]", "by seat, 1 = best; ties share a place"),
                 d.EventField("scores", "[int]", "the round's points by seat"),
                 d.EventField("points_left", "[int]", "points in each hand"),
                 d.EventField("totals", "[int]", "match totals after the round"))),
        d.Event("match_over", "The match ended.",
                (d.EventField("placings", "[int]", "by seat, 1 = best; ties share a place"),
                 d.EventField("scores", "[int]", "match totals"),
                 d.EventField("rounds_played", "int"))),
    ),
    codes={
        "card_not_in_hand": "you do not hold that card (or those cards)",
        "does_not_match": "the card matches neither the colour in force nor the top card's symbol",
        "color_required": "a wild card needs `color`",
        "color_not_allowed": "only a wild card takes `color`",
        "choose_color_first": "the round's first colour must be chosen before anything else",
        "cannot_choose_color_now": "there is no colour to choose",
        "one_card_only": "several cards only with the multi_play rule (and not on a pending draw)",
        "invalid_combination": "these cards may not be played together",
        "must_answer_draw": "a draw is pending: accept it, or answer with a card the rules allow",
        "must_play_drawn_card": "after drawing only the card just drawn may be played",
        "cannot_draw_now": "drawing is not allowed now",
        "cannot_pass": "pass only after drawing a card that fits",
        "nothing_to_accept": "there is no pending draw",
        "nothing_to_challenge": "there is no wild-draw4 to challenge",
        "nothing_to_call": "there is no KaTO call to make",
        "nothing_to_catch": "that player cannot be caught",
        "cannot_catch_yourself": "call KaTO instead",
    },
    default_action_order=("accept", "pass", "draw", "choose_color"),
    results="`scores` are points: the round's in a round result, the match totals in the "
            "match result. Round placings: the winner first, then by points left in hand "
            "(fewest first); match placings by totals (highest first, lowest first under "
            "own_penalty). Ties share a place and the next place is skipped (1, 2, 2, 4).",
)


class KaTO(Game):
    declaration = DECLARATION

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
        self._validate(action)
        if state["over"]:
            raise IllegalAction("game_over", "the match is over")
        if state["phase"] == "round_over":
            raise IllegalAction("round_over", "the round is over")
        if type(seat) is not int or seat not in state["actors"]:
            raise IllegalAction("not_your_turn", "it is not your turn")
        return self._HANDLERS[action["type"]](self, state, seat, action)

    _validate = staticmethod(DECLARATION.validate_action)

    def _apply(self, state, seat, action):
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
        cards = action["cards"]
        call = action.get("call", False)
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
            if color is None:
                raise IllegalAction("color_required",
                                    "choose a colour: red, yellow, green or blue")
        elif color is not None:
            raise IllegalAction("color_not_allowed", "only a wild card takes a colour")
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
        color = action["color"]
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
        target = action["seat"]
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


KATO = KaTO()
