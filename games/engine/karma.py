"""Karma: shed your hand, then your table cards, onto a pile that only goes up.

The rules are RULES.md's "Karma" section. Each seat holds a hand, up to three face-up table
cards and three face-down ones at fixed positions 0..2 (``None`` once played). Face-down cards
are in the state only: no view shows them, not even to their owner, except that with the
``foresight`` option the owner sees their remaining face-down cards as a sorted list (the set,
never the positions, which are shuffled before play). A blind card becomes public only when it
is played. The play phase has two sub-steps of the same player, kept in ``pending``:
``table_play`` (a ``karma-table`` was played: a table play must follow at once) and ``give_to``
(a blind ``karma-give`` waits for its receiver).
"""

from __future__ import annotations

from itertools import combinations

from . import cards, rng
from . import declaration as d
from .base import Game
from .errors import IllegalAction
from .options import BoolOption

KARMA_GIVE = "karma-give"
KARMA_TABLE = "karma-table"
KARMA_BOTTOM = "karma-bottom"
KARMA_FIVE = "karma-five"
KARMA_CARDS = (KARMA_GIVE, KARMA_TABLE, KARMA_BOTTOM, KARMA_FIVE)
NUMBERS = tuple(str(v) for v in range(1, 17))

# Number value of every card; Karma cards have none.
VALUE: dict[str, int | None] = {code: int(code) for code in NUMBERS}
VALUE.update({code: None for code in KARMA_CARDS})
# A stable order for showing sets of cards (numbers up, then the Karma cards).
SORT_KEY = {code: i for i, code in enumerate(NUMBERS + KARMA_CARDS)}

FULL_DECK = [code for code in NUMBERS for _ in range(3)] + [
    code for code in KARMA_CARDS for _ in range(3)]

HAND_SIZE = 3
DEALT_HAND = 6
TABLE_CARDS = 3

# Where a play comes from.
HAND = "hand"
TABLE_UP = "table_up"
TABLE_DOWN = "table_down"


def fits(card: str, top: str | None) -> bool:
    """The value rule: may ``card`` go on ``top``?"""
    value = VALUE[card]
    if value is None or top is None:
        return True
    if top == KARMA_FIVE:
        return value <= 5
    top_value = VALUE[top]
    return top_value is None or value >= top_value


def _has_cards(s: dict, seat: int) -> bool:
    if s["hands"][seat] or s["table_up"][seat]:
        return True
    for card in s["table_down"][seat]:
        if card is not None:
            return True
    return False


def _cards_left(s: dict, seat: int) -> int:
    return (len(s["hands"][seat]) + len(s["table_up"][seat])
            + sum(1 for c in s["table_down"][seat] if c is not None))


def _source(s: dict, seat: int) -> str | None:
    """Where the seat must play from now (hand and table cards never mix)."""
    if s["pending"] == "table_play":
        if s["table_up"][seat]:
            return TABLE_UP
        if any(c is not None for c in s["table_down"][seat]):
            return TABLE_DOWN
        return HAND if s["hands"][seat] else None
    if s["hands"][seat] or s["draw_pile"]:
        return HAND
    if s["table_up"][seat]:
        return TABLE_UP
    if any(c is not None for c in s["table_down"][seat]):
        return TABLE_DOWN
    return None


def _next_active(s: dict, seat: int) -> int | None:
    """The next seat clockwise after ``seat`` that still holds cards."""
    n = s["players"]
    for step in range(1, n):
        other = (seat + step) % n
        if _has_cards(s, other):
            return other
    return None


def _sorted_cards(codes) -> list:
    return sorted(codes, key=SORT_KEY.__getitem__)


_SEAT = d.EventField("seat", "seat", "the seat it is about")

DECLARATION = d.Declaration(
    id="karma", name="Karma", names={"en": "Karma", "de": "Karma"},
    summary="Shed your hand, then your face-up and face-down table cards, onto a pile whose "
            "values only go up; Karma cards bend the rule. The last player with cards loses.",
    min_players=2, max_players=6,
    options=(
        BoolOption("foresight", False,
                   "Vorhersehung: each player sees their own face-down cards, which are then "
                   "shuffled among their positions before play"),
    ),
    cards=(
        d.CardGroup("number cards 1 to 16, three each", NUMBERS),
        d.CardGroup("Karma cards, three each: karma-give (give the pile to a player), "
                    "karma-table (play a table card at once), karma-bottom (the pile's bottom "
                    "card comes up), karma-five (the next player plays 5 or lower)",
                    KARMA_CARDS),
    ),
    actions=(
        d.Action("choose_face_up", "Before play: choose the three hand cards to lie face up "
                 "on your face-down ones (everyone at once).",
                 (d.Field("cards", d.Cards(min_length=3, max_length=3),
                          "three cards of your hand"),),
                 example={"type": "choose_face_up", "cards": ["3", "9", "karma-five"]}),
        d.Action("play", "Play identical number cards (at least the top card's value) or one "
                 "Karma card, from your hand or, once it and the draw pile are gone, from your "
                 "face-up table cards. karma-give needs `to`.",
                 (d.Field("cards", d.Cards(), "identical cards"),
                  d.Field("to", d.Seat(), "who receives the pile (karma-give only)", False)),
                 example={"type": "play", "cards": ["7", "7"]}),
        d.Action("play_blind", "Turn one of your face-down table cards onto the pile.",
                 (d.Field("position", d.Int(minimum=0, maximum=TABLE_CARDS - 1),
                          "its position 0..2"),)),
        d.Action("give_to", "Name who receives the pile after a blind karma-give.",
                 (d.Field("to", d.Seat(), "the receiver"),)),
        d.Action("take_pile", "Take the pile into your hand; your turn ends."),
    ),
    view=(
        d.ViewField("game", "str", "the game id"),
        d.ViewField("players", "int", "seats at the table"),
        d.ViewField("seat", "seat?", "your seat (null for a spectator)", private=True),
        d.ViewField("options", "json", "the house rules in force"),
        d.ViewField("phase", "str", "choose (face-up cards are being chosen), play, over"),
        d.ViewField("hand", "[card]?", "your hand (null for a spectator)", private=True),
        d.ViewField("hand_counts", "[int]", "cards in each seat's hand"),
        d.ViewField("actors", "[seat]", "the seats that may act now"),
        d.ViewField("turn", "seat?", "whose turn it is"),
        d.ViewField("pending", "str?", "table_play (the turn's player must make a table play "
                    "after karma-table) or give_to (a blind karma-give waits for its receiver)"),
        d.ViewField("top", "card?", "the top card of the pile"),
        d.ViewField("pile", "[card]", "the pile, bottom first"),
        d.ViewField("table_up", "[[card]]", "face-up table cards by seat"),
        d.ViewField("table_down_counts", "[int]", "face-down table cards left by seat"),
        d.ViewField("table_down_positions", "[[int]]", "the positions still holding a "
                    "face-down card, by seat"),
        d.ViewField("own_table_down", "[card]?", "with foresight: your face-down cards, "
                    "sorted (not by position)", private=True),
        d.ViewField("chosen", "[bool]", "who has chosen their face-up cards"),
        d.ViewField("face_up_choice", "[card]?", "your face-up choice while others still "
                    "choose", private=True),
        d.ViewField("draw_count", "int", "cards in the draw pile"),
        d.ViewField("out_count", "int", "cards out of the game (burned, given karma-give)"),
        d.ViewField("finished", "[seat]", "seats without cards, in finishing order"),
        d.ViewField("loser", "seat?", "the loser, once the game is over"),
        d.ViewField("cards_left", "[int]", "cards left by seat (hand and table)"),
        d.ViewField("result", "json?", "the result once the game is over (see round_over)"),
    ),
    events=(
        d.Event("dealt", "Your six hand cards.", (_SEAT, d.EventField("cards", "[card]")),
                d.OWNER),
        d.Event("face_up_chosen", "A player has chosen their face-up cards (which stay "
                "hidden until everyone has).", (_SEAT,)),
        d.Event("face_up_choice", "Your own face-up choice.",
                (_SEAT, d.EventField("cards", "[card]")), d.OWNER),
        d.Event("face_up_revealed", "Everyone has chosen: the face-up cards by seat.",
                (d.EventField("table_up", "[[card]]"),)),
        d.Event("face_down_shuffled", "With foresight: face-down cards were shuffled among "
                "their positions."),
        d.Event("turn", "Whose turn it is now.", (_SEAT,)),
        d.Event("played", "A play from the hand or the face-up table cards.",
                (_SEAT, d.EventField("cards", "[card]"),
                 d.EventField("source", "str", "hand or table_up"))),
        d.Event("played_blind", "A face-down card was turned onto the pile.",
                (_SEAT, d.EventField("position", "int"), d.EventField("card", "card"),
                 d.EventField("fits", "bool", "false: the player takes the pile"))),
        d.Event("drew", "Cards drawn to refill a hand (how many only).",
                (_SEAT, d.EventField("count", "int"))),
        d.Event("drew_cards", "The cards you drew.", (_SEAT, d.EventField("cards", "[card]")),
                d.OWNER),
        d.Event("bottom_card_up", "karma-bottom brought the bottom card up.",
                (_SEAT, d.EventField("card", "card"))),
        d.Event("burned", "Three alike on top: the pile left the game.",
                (_SEAT, d.EventField("cards", "[card]"))),
        d.Event("plays_again", "After a burn the same player plays again.", (_SEAT,)),
        d.Event("table_play_required", "After karma-table the player makes a table play.",
                (_SEAT,)),
        d.Event("receiver_required", "A blind karma-give waits for give_to.", (_SEAT,)),
        d.Event("pile_given", "The pile was given away with karma-give.",
                (_SEAT, d.EventField("to", "seat"), d.EventField("cards", "[card]"))),
        d.Event("took_pile", "A player took the pile.",
                (_SEAT, d.EventField("cards", "[card]"))),
        d.Event("back_in", "A finished player got the pile and plays again.", (_SEAT,)),
        d.Event("finished", "A player has no cards left.",
                (_SEAT, d.EventField("place", "int"))),
        d.Event("round_over", "The game ended (Karma is one round).",
                (d.EventField("result", "json", "{placings, scores, finished, loser}"),)),
        d.Event("match_over", "The match ended.",
                (d.EventField("result", "json", "{placings, scores, finished, loser}"),)),
    ),
    codes={
        "choose_face_up_first": "every player first chooses three face-up cards",
        "already_chosen": "the face-up cards are already chosen",
        "receiver_required": "karma-give needs `to`, or a blind karma-give waits for `giveTo`",
        "to_not_allowed": "`to` only goes with karma-give",
        "invalid_receiver": "give the pile to another player's seat",
        "card_not_in_hand": "you do not hold these cards",
        "card_not_on_table": "these cards are not among your face-up table cards",
        "cards_not_identical": "several cards must be identical",
        "one_karma_card": "Karma cards are played one at a time",
        "must_play_blind": "only face-down cards are left: playBlind",
        "no_cards": "you have no cards",
        "does_not_match": "lower than the top card (or above 5 after karma-five)",
        "blind_not_allowed": "face-down cards come after the hand, draw pile and face-up cards",
        "no_card_at_position": "no face-down card lies there",
        "nothing_to_give": "giveTo follows a blind karma-give only",
        "table_play_required": "after karma-table a table play must follow",
        "pile_empty": "there is no pile to take",
    },
    default_action_order=("take_pile", "choose_face_up", "give_to", "play_blind"),
    results="`placings` follow the order of finishing, the loser last; nobody ties. `scores` "
            "are the cards each seat still holds.",
)


class Karma(Game):
    declaration = DECLARATION

    # --- setup ---------------------------------------------------------------------------
    def full_deck(self, options: dict) -> list[str]:
        return list(FULL_DECK)

    def _new_game_events(self, players: int, rng_state: int, options: dict,
                         deck: list | None) -> tuple[dict, list]:
        rng_state, pile = cards.shuffled_deck(rng_state, FULL_DECK, deck)
        table_down, pile = cards.deal_round_robin(pile, players, TABLE_CARDS)
        hands, pile = cards.deal_round_robin(pile, players, DEALT_HAND)
        # Karma is one round: its only deal. The face-down cards stay unseen by everyone.
        events = [cards.event("dealt", [seat], seat=seat, cards=list(hands[seat]))
                  for seat in range(players)]
        return {
            "players": players,
            "options": dict(options),
            "rng": rng_state,
            "phase": "choose",
            "hands": hands,
            "choices": [None] * players,
            "table_up": [[] for _ in range(players)],
            "table_down": table_down,
            "draw_pile": pile,
            "pile": [],
            "out": [],
            "turn": None,
            "pending": None,
            "finished": [],
            "loser": None,
        }, events

    # --- who acts, what they may do ------------------------------------------------------
    def actors(self, state: dict) -> list[int]:
        phase = state["phase"]
        if phase == "choose":
            return [seat for seat, choice in enumerate(state["choices"]) if choice is None]
        if phase == "play" and state["turn"] is not None:
            return [state["turn"]]
        return []

    def legal_actions(self, state: dict, seat: int) -> list[dict]:
        phase = state["phase"]
        if phase == "choose":
            if not isinstance(seat, int) or not 0 <= seat < state["players"] \
                    or state["choices"][seat] is not None:
                return []
            seen = set()
            out = []
            for combo in combinations(state["hands"][seat], TABLE_CARDS):
                key = tuple(_sorted_cards(combo))
                if key not in seen:
                    seen.add(key)
                    out.append({"type": "choose_face_up", "cards": list(combo)})
            return out
        if phase != "play" or seat != state["turn"]:
            return []
        n = state["players"]
        if state["pending"] == "give_to":
            return [{"type": "give_to", "to": to} for to in range(n) if to != seat]
        source = _source(state, seat)
        pile = state["pile"]
        top = pile[-1] if pile else None
        out: list[dict] = []
        if source == TABLE_DOWN:
            out = [{"type": "play_blind", "position": pos}
                   for pos, card in enumerate(state["table_down"][seat]) if card is not None]
        elif source is not None:
            held = state["hands"][seat] if source == HAND else state["table_up"][seat]
            counts: dict[str, int] = {}
            for card in held:
                counts[card] = counts.get(card, 0) + 1
            for card, count in counts.items():
                if not fits(card, top):
                    continue
                if card == KARMA_GIVE:
                    out.extend({"type": "play", "cards": [card], "to": to}
                               for to in range(n) if to != seat)
                elif VALUE[card] is None:
                    out.append({"type": "play", "cards": [card]})
                else:
                    out.extend({"type": "play", "cards": [card] * m}
                               for m in range(1, count + 1))
        if pile and state["pending"] is None:
            out.append({"type": "take_pile"})
        return out

    # --- actions -------------------------------------------------------------------------
    def _apply(self, state: dict, seat: int, action: dict) -> tuple[dict, list[dict]]:
        kind = action["type"]
        if state["phase"] == "choose":
            if kind != "choose_face_up":
                raise IllegalAction("choose_face_up_first",
                                    "every player first chooses three face-up cards")
            return self._choose_face_up(state, seat, action)
        if kind == "choose_face_up":
            raise IllegalAction("already_chosen", "the face-up cards are already chosen")
        pending = state["pending"]
        if pending == "give_to" and kind != "give_to":
            raise IllegalAction("receiver_required",
                                "choose who receives the pile (give_to)")
        if kind == "play":
            return self._play(state, seat, action)
        if kind == "play_blind":
            return self._play_blind(state, seat, action)
        if kind == "give_to":
            return self._give_to(state, seat, action)
        return self._take_pile(state, seat, action)

    def _choose_face_up(self, state, seat, action):
        chosen = action["cards"]
        hand = state["hands"][seat]
        if cards.remove_cards(hand, chosen) is None:
            raise IllegalAction("card_not_in_hand", "you can only lay out cards from your hand")
        # Keep both parts in hand order, so equal choices give equal states.
        wanted: dict[str, int] = {}
        for card in chosen:
            wanted[card] = wanted.get(card, 0) + 1
        picked, rest = [], []
        for card in hand:
            if wanted.get(card):
                wanted[card] -= 1
                picked.append(card)
            else:
                rest.append(card)
        s = dict(state)
        s["hands"] = cards.replace_at(state["hands"], seat, rest)
        s["choices"] = cards.replace_at(state["choices"], seat, picked)
        events = [cards.event("face_up_chosen", seat=seat),
                  cards.event("face_up_choice", [seat], seat=seat, cards=picked)]
        if any(choice is None for choice in s["choices"]):
            return s, events
        # Everyone has chosen: the choices are revealed together and play starts.
        s["table_up"] = s["choices"]
        s["choices"] = [[] for _ in range(s["players"])]
        s["phase"] = "play"
        events.append(cards.event("face_up_revealed", table_up=[list(t) for t in s["table_up"]]))
        if s["options"]["foresight"]:
            rng_state = s["rng"]
            table_down = []
            for own in s["table_down"]:
                rng_state, own = rng.shuffled(rng_state, own)
                table_down.append(own)
            s["rng"] = rng_state
            s["table_down"] = table_down
            events.append(cards.event("face_down_shuffled"))
        s["turn"] = 0
        events.append(cards.event("turn", seat=0))
        return s, events

    def _play(self, state, seat, action):
        played = action["cards"]
        card = played[0]
        if any(c != card for c in played):
            raise IllegalAction("cards_not_identical", "several cards must be identical")
        if VALUE[card] is None and len(played) != 1:
            raise IllegalAction("one_karma_card", "Karma cards are played one at a time")
        source = _source(state, seat)
        if source == TABLE_DOWN:
            raise IllegalAction("must_play_blind", "only face-down cards are left: play_blind")
        if source is None:  # pragma: no cover - a seat without cards never acts
            raise IllegalAction("no_cards", "you have no cards")
        held = state["hands"][seat] if source == HAND else state["table_up"][seat]
        rest = cards.remove_cards(held, played)
        if rest is None:
            if source == HAND:
                raise IllegalAction("card_not_in_hand", "you do not hold these cards")
            raise IllegalAction("card_not_on_table",
                                "these cards are not among your face-up table cards")
        pile = state["pile"]
        top = pile[-1] if pile else None
        if not fits(card, top):
            raise IllegalAction("does_not_match", "the card is lower than the top card"
                                if top != KARMA_FIVE else "only numbers up to 5 may follow")
        to = action.get("to")
        if card == KARMA_GIVE:
            self._check_receiver(state, seat, to)
        elif to is not None:
            raise IllegalAction("to_not_allowed", "'to' only goes with karma-give")
        s = dict(state)
        s["pending"] = None
        if source == HAND:
            s["hands"] = cards.replace_at(state["hands"], seat, rest)
        else:
            s["table_up"] = cards.replace_at(state["table_up"], seat, rest)
        events = [cards.event("played", seat=seat, cards=list(played), source=source)]
        if card == KARMA_GIVE:
            s["out"] = state["out"] + [card]
            self._refill(s, seat, events)
            return self._give_pile(s, seat, to, events)
        return self._land(s, seat, played, events)

    def _play_blind(self, state, seat, action):
        pos = action["position"]
        if _source(state, seat) != TABLE_DOWN:
            raise IllegalAction("blind_not_allowed",
                                "face-down cards come after your hand, the draw pile and "
                                "your face-up cards")
        own = state["table_down"][seat]
        card = own[pos]
        if card is None:
            raise IllegalAction("no_card_at_position", "no face-down card lies there")
        s = dict(state)
        s["table_down"] = cards.replace_at(state["table_down"], seat,
                                           cards.replace_at(own, pos, None))
        pile = state["pile"]
        top = pile[-1] if pile else None
        fit = state["pending"] == "table_play" or fits(card, top)
        s["pending"] = None
        events = [cards.event("played_blind", seat=seat, position=pos, card=card, fits=fit)]
        if card == KARMA_GIVE:
            s["out"] = state["out"] + [card]
            s["pending"] = "give_to"
            events.append(cards.event("receiver_required", seat=seat))
            return s, events
        if fit:
            return self._land(s, seat, [card], events)
        # It does not fit: the player takes the pile, this card included.
        taken = pile + [card]
        s["pile"] = []
        s["hands"] = cards.replace_at(s["hands"], seat, s["hands"][seat] + taken)
        events.append(cards.event("took_pile", seat=seat, cards=taken))
        return self._pass_turn(s, seat, events)

    def _give_to(self, state, seat, action):
        if state["pending"] != "give_to":
            raise IllegalAction("nothing_to_give", "give_to follows a blind karma-give only")
        to = action["to"]
        self._check_receiver(state, seat, to)
        s = dict(state)
        s["pending"] = None
        events: list[dict] = []
        self._refill(s, seat, events)
        return self._give_pile(s, seat, to, events)

    def _take_pile(self, state, seat, action):
        if state["pending"] == "table_play":
            raise IllegalAction("table_play_required",
                                "after karma-table you must make a table play")
        pile = state["pile"]
        if not pile:
            raise IllegalAction("pile_empty", "there is no pile to take")
        s = dict(state)
        s["pile"] = []
        s["hands"] = cards.replace_at(state["hands"], seat, state["hands"][seat] + pile)
        events = [cards.event("took_pile", seat=seat, cards=list(pile))]
        return self._pass_turn(s, seat, events)

    # --- resolution ----------------------------------------------------------------------
    @staticmethod
    def _check_receiver(state, seat, to) -> None:
        if to is None:
            raise IllegalAction("receiver_required", "karma-give needs a receiver ('to')")
        if isinstance(to, bool) or not isinstance(to, int) or not 0 <= to < state["players"] \
                or to == seat:
            raise IllegalAction("invalid_receiver", "give the pile to another player's seat")

    @staticmethod
    def _refill(s: dict, seat: int, events: list) -> None:
        hand = s["hands"][seat]
        need = HAND_SIZE - len(hand)
        draw_pile = s["draw_pile"]
        if need <= 0 or not draw_pile:
            return
        drawn = draw_pile[:need]
        s["draw_pile"] = draw_pile[need:]
        s["hands"] = cards.replace_at(s["hands"], seat, hand + drawn)
        events.append(cards.event("drew", seat=seat, count=len(drawn)))
        events.append(cards.event("drew_cards", [seat], seat=seat, cards=drawn))

    def _land(self, s: dict, seat: int, played: list, events: list):
        """Put fitting cards on the pile and carry out what follows."""
        pile = s["pile"] + list(played)
        s["pile"] = pile
        card = played[0]
        if not self._burns(pile) and card == KARMA_BOTTOM and len(pile) > 1:
            bottom = pile[0]
            pile = pile[1:] + [bottom]
            s["pile"] = pile
            events.append(cards.event("bottom_card_up", seat=seat, card=bottom))
        if self._burns(pile):
            s["out"] = s["out"] + pile
            s["pile"] = []
            events.append(cards.event("burned", seat=seat, cards=pile))
            self._refill(s, seat, events)
            if self._finish_if_done(s, seat, events):
                return self._pass_turn(s, seat, events)
            events.append(cards.event("plays_again", seat=seat))
            return s, events
        self._refill(s, seat, events)
        if card == KARMA_TABLE and not self._finish_if_done(s, seat, events):
            s["pending"] = "table_play"
            events.append(cards.event("table_play_required", seat=seat))
            return s, events
        return self._pass_turn(s, seat, events)

    @staticmethod
    def _burns(pile: list) -> bool:
        return len(pile) >= 3 and pile[-1] == pile[-2] == pile[-3]

    def _give_pile(self, s: dict, seat: int, to: int, events: list):
        pile = s["pile"]
        s["pile"] = []
        events.append(cards.event("pile_given", seat=seat, to=to, cards=list(pile)))
        if pile:
            s["hands"] = cards.replace_at(s["hands"], to, s["hands"][to] + pile)
            if to in s["finished"]:
                s["finished"] = [p for p in s["finished"] if p != to]
                events.append(cards.event("back_in", seat=to))
        return self._pass_turn(s, seat, events)

    @staticmethod
    def _finish_if_done(s: dict, seat: int, events: list) -> bool:
        if _has_cards(s, seat):
            return False
        if seat not in s["finished"]:
            s["finished"] = s["finished"] + [seat]
            events.append(cards.event("finished", seat=seat, place=len(s["finished"])))
        return True

    def _pass_turn(self, s: dict, seat: int, events: list):
        """End ``seat``'s turn: it may have finished, the game may be over, else the next
        seat clockwise with cards acts."""
        s["pending"] = None
        self._finish_if_done(s, seat, events)
        active = [p for p in range(s["players"]) if _has_cards(s, p)]
        if len(active) <= 1:
            s["phase"] = "over"
            s["turn"] = None
            s["loser"] = active[0] if active else None
            result = self.result(s)
            events.append(cards.event("round_over", result=result))
            events.append(cards.event("match_over", result=result))
            return s, events
        s["turn"] = _next_active(s, seat)
        events.append(cards.event("turn", seat=s["turn"]))
        return s, events

    # --- views ---------------------------------------------------------------------------
    def view(self, state: dict, seat: int | None) -> dict:
        n = state["players"]
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)
                                 or not 0 <= seat < n):
            seat = None
        phase = state["phase"]
        pile = state["pile"]
        choosing = phase == "choose"
        own_down = None
        if seat is not None and state["options"]["foresight"]:
            own_down = _sorted_cards(c for c in state["table_down"][seat] if c is not None)
        return {
            "game": self.id,
            "players": n,
            "seat": seat,
            "options": dict(state["options"]),
            "phase": phase,
            "hand": list(state["hands"][seat]) if seat is not None else None,
            "hand_counts": [len(h) for h in state["hands"]],
            "actors": self.actors(state),
            "turn": state["turn"],
            "pending": state["pending"],
            "top": pile[-1] if pile else None,
            "pile": list(pile),
            "table_up": [list(t) for t in state["table_up"]],
            "table_down_counts": [sum(1 for c in own if c is not None)
                                  for own in state["table_down"]],
            "table_down_positions": [[pos for pos, c in enumerate(own) if c is not None]
                                     for own in state["table_down"]],
            "own_table_down": own_down,
            "chosen": [c is not None for c in state["choices"]] if choosing else [True] * n,
            "face_up_choice": (list(state["choices"][seat])
                               if choosing and seat is not None
                               and state["choices"][seat] is not None else None),
            "draw_count": len(state["draw_pile"]),
            "out_count": len(state["out"]),
            "finished": list(state["finished"]),
            "loser": state["loser"],
            "cards_left": [_cards_left(state, p) + (
                len(state["choices"][p] or []) if choosing else 0) for p in range(n)],
            "result": self.result(state) if phase == "over" else None,
        }

    # --- results -------------------------------------------------------------------------
    def is_round_over(self, state: dict) -> bool:
        return state["phase"] == "over"

    def is_over(self, state: dict) -> bool:
        return state["phase"] == "over"

    def round_result(self, state: dict) -> dict:
        return self.result(state)

    def result(self, state: dict) -> dict:
        n = state["players"]
        order = list(state["finished"])
        rest = [p for p in range(n) if p not in order]
        placings = [0] * n
        for place, p in enumerate(order, start=1):
            placings[p] = place
        for p in rest:  # the loser (only one, unless the game is not over)
            placings[p] = n
        return {"placings": placings,
                "scores": [_cards_left(state, p) for p in range(n)],
                "finished": order,
                "loser": state["loser"]}

    def start_next_round(self, state: dict) -> tuple[dict, list[dict]]:
        if state["phase"] != "over":
            raise IllegalAction("round_not_over", "the round is not over")
        raise IllegalAction("game_over", "a Karma match is one round")

    def all_cards(self, state: dict) -> list[str]:
        out: list[str] = []
        for hand in state["hands"]:
            out.extend(hand)
        for choice in state["choices"]:
            if choice:
                out.extend(choice)
        for up in state["table_up"]:
            out.extend(up)
        for down in state["table_down"]:
            out.extend(c for c in down if c is not None)
        out.extend(state["draw_pile"])
        out.extend(state["pile"])
        out.extend(state["out"])
        return out


KARMA = Karma()
