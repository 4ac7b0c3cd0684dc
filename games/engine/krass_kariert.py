"""Krass Kariert: tricks of adjacent hand cards, reserves and chips (RULES.md "Krass Kariert").

Each deal deals `hand_size` hand cards one at a time from seat 0, then two face-up reserve
cards each. A hand keeps its order forever; cards only leave it from adjacent positions and
enter it at chosen positions. A trick is a lead and then one action from every other seat
still holding hand cards, clockwise. The loser of a deal gives a chip; the match ends when a
player who must give a chip has none left.

Choices this module makes where RULES.md leaves room (also public contract):

- `play` of `stop` or `draw` is `{"type": "play", "index": i, "count": 1, "kind": "stop"}`,
  without a `rank` (`rank_not_allowed`); every other kind needs one (`rank_required`). Like
  every field, `rank` is never `null` (`invalid_type`; the API drops nulls before).
- `top` in the view is the combination to beat in the current trick, as
  `{"seat", "cards", "kind", "rank"}`, or null when there is none (at the lead, or when only
  `draw`s were played so far: then anything may be played). It is not a card code.
- The discard pile is the cards of finished tricks, in the order they were played; a trick's
  cards go onto it as soon as the trick is over, before its winner draws. When the draw pile
  runs out, the discard pile except its top card (the last card put on it) is reshuffled.
- The trick winner's `draw` cards are drawn ONE AT A TIME: a card is drawn, shown to its owner
  as `drawn`, inserted with `insert {position}`, and only then is the next card drawn.
- The deal-end check "after a trick" happens after the winner has drawn and inserted.
- Played cards are shown sorted (numbers ascending, `x` last), and events and views never
  carry hand positions of other seats (`index`, `position`), so the hand order stays private.
- Each deal is dealt from seat 0 like the first; only the leader moves (the chip loser).
  With `deck=`, only the first deal uses it; later deals shuffle with the seeded RNG.
- `hand_size` may be 1..16 but at most what 54 cards allow with 2 reserves each
  (16 / 11 / 8 for 3 / 4 / 5 players); `null` means 10, or 7 with 5 players.
- `take_reserve.reserve` indexes the seat's REMAINING reserve cards (after one is taken, the
  other is reserve 0). The leader may not take a reserve card (`must_lead`).
- View `phase`: `lead`, `follow`, `insert` (the trick winner inserts `drawn` cards),
  `deal_over`, `match_over`. `trick` lists this trick's actions in order:
  `{"seat", "action": "play", "cards", "kind", "rank"}` (`rank` null for stop/draw) or
  `{"seat", "action": "take_reserve", "cards": [], "card", "reserve"}`; `to_act` is the seats
  still to act in it, the current one first; `last_trick` is the trick before.
- `round_result`/`result` add `loser` and (per deal) `reason`: `last_with_cards`,
  `last_to_empty` or `no_legal_action`. `result` of a running match is the standings by chips
  (`"over": false`).
"""

from __future__ import annotations

from functools import cache

from . import cards
from . import declaration as d
from .base import Game
from .errors import IllegalAction, InvalidOptions
from .options import IntOption

NUMBERS = tuple(str(n) for n in range(1, 13))
SPECIALS = ("stop", "draw")
FULL_DECK = tuple([n for n in NUMBERS for _ in range(4)]
                  + ["x", "x", "draw", "draw", "stop", "stop"])
COMBO_KINDS = ("solo", "street2", "pair", "street3", "triple")
KIND_ORDER = {kind: i for i, kind in enumerate(COMBO_KINDS)}
RESERVES_EACH = 2
DRAW_PER_CARD = 3



@cache
def combos(window: tuple) -> tuple:
    """Every `(kind, rank)` the adjacent cards `window` (1..3 codes) can be played as, weakest
    first. Empty for `stop`/`draw` (played alone, not as a combination) and for non-combinations.
    """
    if any(c in SPECIALS for c in window):
        return ()
    nums = sorted(int(c) for c in window if c != "x")
    size = len(window)
    out = []
    for rank in range(1, 13):
        if size == 1:
            if not nums or nums[0] == rank:
                out.append(("solo", rank))
            continue
        same = "pair" if size == 2 else "triple"
        street = "street2" if size == 2 else "street3"
        if all(n == rank for n in nums):
            out.append((same, rank))
        if rank >= size:
            need = set(range(rank - size + 1, rank + 1))
            if len(set(nums)) == len(nums) and set(nums) <= need:
                out.append((street, rank))
    out.sort(key=lambda kr: (KIND_ORDER[kr[0]], kr[1]))
    return tuple(out)


@cache
def best_strength(window: tuple) -> tuple | None:
    """The strongest `(kind order, rank)` of `window`, or None if it is no combination."""
    found = combos(window)
    if not found:
        return None
    kind, rank = found[-1]
    return (KIND_ORDER[kind], rank)


def strength(combo: dict | None) -> tuple | None:
    return None if combo is None else (KIND_ORDER[combo["kind"]], combo["rank"])


def _sort_cards(played: list) -> list:
    return sorted(played, key=lambda c: (c == "x", int(c) if c.isdigit() else 0, c))


_SEAT = d.EventField("seat", "seat", "the seat it is about")

DECLARATION = d.Declaration(
    id="krass_kariert", name="Krass Kariert", names={"en": "Krass Kariert",
                                                     "de": "Krass Kariert"},
    summary="Tricks of adjacent cards from a hand you may never rearrange; beat the last "
            "combination or take a reserve card, and do not be the last with cards.",
    min_players=3, max_players=5,
    options=(
        IntOption("chips", 3, "chips each player starts the match with", minimum=1, maximum=5),
        IntOption("hand_size", None, "hand cards dealt each (default 10, or 7 with 5 players; "
                  "at most what the deck allows with 2 reserve cards each)",
                  minimum=1, maximum=16, nullable=True),
    ),
    cards=(
        d.CardGroup("numbers 1 to 12, four each", NUMBERS),
        d.CardGroup("two each: x (any number its player names), draw (the trick's winner "
                    "draws 3), stop (wins the trick at once)", ("x", "draw", "stop")),
    ),
    actions=(
        d.Action("play", "Play 1 to 3 adjacent hand cards as a combination that beats the "
                 "current one, or a lone stop or draw card (no rank).",
                 (d.Field("index", d.Int(), "the hand position of the first card"),
                  d.Field("count", d.Int(minimum=1, maximum=3), "how many adjacent cards"),
                  d.Field("kind", d.Choice(choices=COMBO_KINDS + SPECIALS),
                          "solo, street2, pair, street3, triple, stop or draw"),
                  d.Field("rank", d.Int(minimum=1, maximum=12),
                          "the highest number as played, x's included (not for stop or draw)",
                          False)),
                 example={"type": "play", "index": 0, "count": 2, "kind": "pair", "rank": 7}),
        d.Action("take_reserve", "Instead of beating: take one of your reserve cards into "
                 "your hand at a position of your choice.",
                 (d.Field("reserve", d.Int(minimum=0),
                          "0 or 1 among your remaining reserve cards"),
                  d.Field("position", d.Int(minimum=0), "where in your hand (0 = front)"))),
        d.Action("insert", "Put the card you just drew into your hand.",
                 (d.Field("position", d.Int(minimum=0), "where in your hand (0 = front)"),)),
    ),
    view=(
        d.ViewField("game", "str", "the game id"),
        d.ViewField("seat", "seat?", "your seat (null for a spectator)", private=True),
        d.ViewField("players", "int", "seats at the table"),
        d.ViewField("deal", "int", "the deal number, from 1"),
        d.ViewField("phase", "str", "lead, follow, insert (the trick's winner inserts drawn "
                    "cards), deal_over, match_over"),
        d.ViewField("hand", "[card]?", "your hand, in its fixed order (null for a spectator)",
                    private=True),
        d.ViewField("hand_counts", "[int]", "cards in each seat's hand"),
        d.ViewField("actors", "[seat]", "the seats that may act now"),
        d.ViewField("top", "json?", "{seat, cards, kind, rank}: the combination to beat (not "
                    "a card code), null when anything may be played"),
        d.ViewField("chips", "[int]", "chips left by seat"),
        d.ViewField("reserves", "[[card]]", "each seat's reserve cards, face up"),
        d.ViewField("leader", "seat?", "who led this trick"),
        d.ViewField("trick", "json", "this trick's actions in order: {seat, action, cards, "
                    "kind, rank} or {seat, action: take_reserve, cards, card, reserve}"),
        d.ViewField("to_act", "[seat]", "seats still to act in this trick, the current first"),
        d.ViewField("last_trick", "json", "the trick before, like trick"),
        d.ViewField("drawn", "[card]?", "the drawn cards waiting for you to insert them",
                    private=True),
        d.ViewField("drawer", "seat?", "who is drawing after winning a trick"),
        d.ViewField("drawn_waiting", "int", "drawn cards waiting to be inserted"),
        d.ViewField("draws_left", "int", "cards the trick's winner still draws"),
        d.ViewField("draw_pile_count", "int", "cards in the draw pile"),
        d.ViewField("discard_pile_count", "int", "cards of finished tricks"),
        d.ViewField("hand_size", "int", "hand cards dealt each"),
        d.ViewField("last_loser", "seat?", "who lost the last deal"),
        d.ViewField("round_result", "json?", "the last deal's result (see round_over)"),
        d.ViewField("result", "json?", "the match result once it is over"),
    ),
    events=(
        d.Event("deal_started", "A deal was dealt.",
                (d.EventField("deal", "int"), d.EventField("leader", "seat"),
                 d.EventField("hand_size", "int"),
                 d.EventField("reserves", "[[card]]", "reserve cards by seat (face up)"),
                 d.EventField("chips", "[int]"))),
        d.Event("dealt", "Your hand for the deal.", (_SEAT, d.EventField("hand", "[card]")),
                d.OWNER),
        d.Event("trick_started", "A trick starts.",
                (d.EventField("leader", "seat"),
                 d.EventField("order", "[seat]", "who acts in it, in order"))),
        d.Event("played", "A combination, stop or draw was played.",
                (_SEAT, d.EventField("cards", "[card]", "sorted, not in hand order"),
                 d.EventField("kind", "str"), d.EventField("rank", "int?"),
                 d.EventField("lead", "bool", "it opened the trick"))),
        d.Event("played_from", "Where in your hand the played cards were.",
                (_SEAT, d.EventField("index", "int"), d.EventField("count", "int")), d.OWNER),
        d.Event("took_reserve", "A reserve card was taken into the hand.",
                (_SEAT, d.EventField("reserve", "int"), d.EventField("card", "card"))),
        d.Event("placed_reserve", "Where you put the reserve card.",
                (_SEAT, d.EventField("card", "card"), d.EventField("position", "int")),
                d.OWNER),
        d.Event("hand_emptied", "A player has no hand cards left.", (_SEAT,)),
        d.Event("stopped", "A stop won the trick at once.",
                (_SEAT, d.EventField("skipped", "[seat]", "who did not get to act"))),
        d.Event("trick_won", "The trick's winner.",
                (_SEAT, d.EventField("draw_cards", "int", "draw cards played in the trick"),
                 d.EventField("draws", "int", "cards the winner draws"))),
        d.Event("drew", "The winner drew a card (which one only they see).",
                (_SEAT, d.EventField("count", "int"),
                 d.EventField("left", "int", "cards still to draw"))),
        d.Event("drew_card", "The card you drew.", (_SEAT, d.EventField("card", "card")),
                d.OWNER),
        d.Event("inserted", "A drawn card was inserted.", (_SEAT,)),
        d.Event("inserted_card", "Where you inserted it.",
                (_SEAT, d.EventField("card", "card"), d.EventField("position", "int")),
                d.OWNER),
        d.Event("reshuffled", "The discard pile became the new draw pile.",
                (d.EventField("count", "int"),)),
        d.Event("draw_pile_empty", "Nothing left to draw.",
                (_SEAT, d.EventField("missed", "int", "cards not drawn"))),
        d.Event("no_legal_action", "A player could not act and loses the deal.", (_SEAT,)),
        d.Event("chip_lost", "The deal's loser gave a chip.",
                (_SEAT, d.EventField("chips", "int", "chips left"))),
        d.Event("round_over", "The deal ended.",
                (d.EventField("loser", "seat"),
                 d.EventField("reason", "str", "last_with_cards, last_to_empty or "
                              "no_legal_action"),
                 d.EventField("result", "json", "{placings, scores, loser, reason, deal, "
                              "chipLost}"))),
        d.Event("match_over", "The match ended.",
                (d.EventField("loser", "seat"),
                 d.EventField("result", "json", "{placings, scores, loser, over, deals}"))),
    ),
    codes={
        "must_insert": "insert the drawn card first",
        "nothing_to_insert": "you have no drawn card to insert",
        "invalid_index": "those positions are not in your hand",
        "rank_required": "a combination needs its `rank`",
        "rank_not_allowed": "a stop or draw card has no `rank`",
        "played_alone": "a stop or draw card is played alone (count 1)",
        "does_not_match": "the card at that position is not the stop or draw card named",
        "not_a_combination": "those cards are not that combination",
        "does_not_beat": "that does not beat the combination to beat",
        "must_lead": "the leader must play a combination",
        "no_reserve": "you have no reserve card left",
        "no_such_reserve": "no such reserve card",
        "invalid_position": "that position is not in your hand",
    },
    default_action_order=("take_reserve", "insert"),
    results="A deal: the chip loser last, everyone else first, written as ties share a "
            "place (1, 1, 1, 4). `scores` are chips left. The match: the player who had to "
            "give a chip with none left is last, the others placed by chips left, ties share.",
)


class KrassKariert(Game):
    declaration = DECLARATION

    # --- setup ---------------------------------------------------------------------------
    def full_deck(self, options: dict) -> list[str]:
        return list(FULL_DECK)

    @staticmethod
    def hand_size(players: int, options: dict) -> int:
        size = options.get("hand_size")
        if size is None:
            size = 7 if players == 5 else 10
        return size

    def _new_game_events(self, players, rng_state, options, deck):
        size = self.hand_size(players, options)
        if players * (size + RESERVES_EACH) > len(FULL_DECK):
            raise InvalidOptions(
                "invalid_options",
                f"with {players} players 'hand_size' must be at most "
                f"{len(FULL_DECK) // players - RESERVES_EACH}", field="hand_size")
        state = {
            "players": players,
            "options": dict(options),
            "rng": rng_state,
            "deal": 0,
            "chips": [options["chips"]] * players,
            "last_loser": None,
        }
        return self._deal(state, leader=0, deck=deck)

    def _deal(self, state: dict, leader: int, deck: list | None) -> tuple[dict, list]:
        s = dict(state)
        n = s["players"]
        size = self.hand_size(n, s["options"])
        s["rng"], pile = cards.shuffled_deck(s["rng"], list(FULL_DECK), deck)
        hands, pile = cards.deal_round_robin(pile, n, size)
        reserves, pile = cards.deal_round_robin(pile, n, RESERVES_EACH)
        s.update({
            "deal": s["deal"] + 1,
            "hands": hands,
            "reserves": reserves,
            "draw_pile": pile,
            "discard_pile": [],
            "drawer": None,
            "drawn": [],
            "draws_left": 0,
            "last_trick": [],
            "deal_result": None,
            "match_result": None,
        })
        events = [cards.event("deal_started", deal=s["deal"], leader=leader,
                              hand_size=size, reserves=[list(r) for r in reserves],
                              chips=list(s["chips"]))]
        events += [cards.event("dealt", [p], seat=p, hand=list(hands[p])) for p in range(n)]
        self._start_trick(s, leader, events)
        return s, events

    # --- queries -------------------------------------------------------------------------
    def actors(self, state: dict) -> list[int]:
        phase = state["phase"]
        if phase == "play":
            return [state["to_act"][0]]
        if phase == "insert":
            return [state["drawer"]]
        return []

    def is_round_over(self, state: dict) -> bool:
        return state["phase"] in ("deal_over", "match_over")

    def is_over(self, state: dict) -> bool:
        return state["phase"] == "match_over"

    def round_result(self, state: dict) -> dict:
        if not self.is_round_over(state):
            raise IllegalAction("round_not_over", "the deal is not over")
        return _copy_result(state["deal_result"])

    def result(self, state: dict) -> dict:
        """The match result; while the match runs, the standings by chips left."""
        if state["match_result"] is not None:
            return _copy_result(state["match_result"])
        chips = list(state["chips"])
        return {"placings": cards.placings(chips, lower_is_better=False), "scores": chips,
                "over": False}

    def all_cards(self, state: dict) -> list[str]:
        out = [c for hand in state["hands"] for c in hand]
        out += [c for res in state["reserves"] for c in res]
        out += state["draw_pile"] + state["discard_pile"] + state["drawn"]
        out += [c for entry in state["trick"] for c in entry["cards"]]
        return out

    def legal_actions(self, state: dict, seat: int) -> list[dict]:
        phase = state["phase"]
        if phase == "insert":
            if seat != state["drawer"]:
                return []
            return [{"type": "insert", "position": p}
                    for p in range(len(state["hands"][seat]) + 1)]
        if phase != "play" or seat != state["to_act"][0]:
            return []
        hand = state["hands"][seat]
        to_beat = strength(state["top"])
        out = []
        size = len(hand)
        for i in range(size):
            if hand[i] in SPECIALS:
                out.append({"type": "play", "index": i, "count": 1, "kind": hand[i]})
                continue
            for count in (1, 2, 3):
                if i + count > size:
                    break
                window = tuple(hand[i:i + count])
                found = combos(window)
                if not found:
                    if window[-1] in SPECIALS:
                        break
                    continue
                for kind, rank in found:
                    if to_beat is None or (KIND_ORDER[kind], rank) > to_beat:
                        out.append({"type": "play", "index": i, "count": count,
                                    "kind": kind, "rank": rank})
        if state["trick"]:
            for r in range(len(state["reserves"][seat])):
                out += [{"type": "take_reserve", "reserve": r, "position": p}
                        for p in range(size + 1)]
        return out

    def _has_legal_action(self, state: dict, seat: int) -> bool:
        """Whether ``seat``, to act in the trick (not leading), has any legal action."""
        hand = state["hands"][seat]
        if state["reserves"][seat] or any(c in SPECIALS for c in hand):
            return True
        to_beat = strength(state["top"])
        if to_beat is None:
            return bool(hand)
        size = len(hand)
        for i in range(size):
            for count in (1, 2, 3):
                if i + count > size:
                    break
                best = best_strength(tuple(hand[i:i + count]))
                if best is not None and best > to_beat:
                    return True
        return False

    def view(self, state: dict, seat: int | None) -> dict:
        n = state["players"]
        mine = seat is not None and 0 <= seat < n
        phase = state["phase"]
        if phase == "play":
            phase = "follow" if state["trick"] else "lead"
        top = state["top"]
        return {
            "game": self.id,
            "seat": seat if mine else None,
            "players": n,
            "deal": state["deal"],
            "phase": phase,
            "hand": list(state["hands"][seat]) if mine else None,
            "hand_counts": [len(h) for h in state["hands"]],
            "actors": self.actors(state),
            "top": None if top is None else {**top, "cards": list(top["cards"])},
            "chips": list(state["chips"]),
            "reserves": [list(r) for r in state["reserves"]],
            "leader": state["leader"],
            "trick": [_copy_entry(e) for e in state["trick"]],
            "to_act": list(state["to_act"]) if state["phase"] == "play" else [],
            "last_trick": [_copy_entry(e) for e in state["last_trick"]],
            "drawn": (list(state["drawn"]) if seat == state["drawer"] else []) if mine else None,
            "drawer": state["drawer"],
            "drawn_waiting": len(state["drawn"]),
            "draws_left": state["draws_left"],
            "draw_pile_count": len(state["draw_pile"]),
            "discard_pile_count": len(state["discard_pile"]),
            "hand_size": self.hand_size(n, state["options"]),
            "last_loser": state["last_loser"],
            "round_result": _copy_result(state["deal_result"]),
            "result": _copy_result(state["match_result"]),
        }

    # --- actions -------------------------------------------------------------------------
    def _apply(self, state: dict, seat: int, action: dict) -> tuple[dict, list[dict]]:
        kind = action["type"]
        if kind == "insert":
            return self._insert(state, seat, action)
        if state["phase"] != "play":
            raise IllegalAction("must_insert", "insert the drawn card first")
        if kind == "play":
            return self._play(state, seat, action)
        return self._take_reserve(state, seat, action)

    def _play(self, state, seat, action):
        hand = state["hands"][seat]
        index, count, kind = action["index"], action["count"], action["kind"]
        if index < 0 or index + count > len(hand):
            raise IllegalAction("invalid_index", "those positions are not in your hand")
        played = hand[index:index + count]
        rank = action.get("rank")
        if kind in SPECIALS:
            if rank is not None:
                raise IllegalAction("rank_not_allowed", f"a '{kind}' has no rank")
            if count != 1:
                raise IllegalAction("played_alone", f"a '{kind}' is played alone (count 1)")
            if played[0] != kind:
                raise IllegalAction("does_not_match", f"the card at that position is no '{kind}'")
        else:
            if rank is None:
                raise IllegalAction("rank_required", f"a '{kind}' needs its 'rank'")
            if (kind, rank) not in combos(tuple(played)):
                raise IllegalAction("not_a_combination",
                                    f"those cards are no {kind} of rank {rank}")
            to_beat = strength(state["top"])
            if to_beat is not None and (KIND_ORDER[kind], rank) <= to_beat:
                raise IllegalAction("does_not_beat", "that does not beat the combination to beat")

        s = dict(state)
        new_hand = hand[:index] + hand[index + count:]
        s["hands"] = cards.replace_at(s["hands"], seat, new_hand)
        shown = _sort_cards(played)
        entry = {"seat": seat, "action": "play", "cards": shown, "kind": kind,
                 "rank": None if kind in SPECIALS else rank}
        s["trick"] = s["trick"] + [entry]
        events = [cards.event("played", seat=seat, cards=list(shown), kind=kind,
                              rank=entry["rank"], lead=not state["trick"]),
                  cards.event("played_from", [seat], seat=seat, index=index, count=count)]
        if kind not in SPECIALS:
            s["top"] = {"seat": seat, "cards": list(shown), "kind": kind, "rank": rank}
        if not new_hand:
            s["last_emptied"] = seat
            events.append(cards.event("hand_emptied", seat=seat))
        s["to_act"] = s["to_act"][1:]
        if kind == "stop" or not s["to_act"]:
            if kind == "stop" and s["to_act"]:
                events.append(cards.event("stopped", seat=seat, skipped=list(s["to_act"])))
            self._finish_trick(s, events)
        else:
            self._advance(s, events)
        return s, events

    def _take_reserve(self, state, seat, action):
        if not state["trick"]:
            raise IllegalAction("must_lead", "the leader must play a combination")
        reserves = state["reserves"][seat]
        hand = state["hands"][seat]
        reserve, position = action["reserve"], action["position"]
        if not reserves:
            raise IllegalAction("no_reserve", "you have no reserve card left")
        if not 0 <= reserve < len(reserves):
            raise IllegalAction("no_such_reserve", "no such reserve card")
        if not 0 <= position <= len(hand):
            raise IllegalAction("invalid_position", f"'position' must be 0..{len(hand)}")
        s = dict(state)
        card = reserves[reserve]
        s["reserves"] = cards.replace_at(s["reserves"], seat,
                                         reserves[:reserve] + reserves[reserve + 1:])
        s["hands"] = cards.replace_at(s["hands"], seat,
                                      hand[:position] + [card] + hand[position:])
        s["trick"] = s["trick"] + [{"seat": seat, "action": "take_reserve", "cards": [],
                                    "card": card, "reserve": reserve}]
        events = [cards.event("took_reserve", seat=seat, reserve=reserve, card=card),
                  cards.event("placed_reserve", [seat], seat=seat, card=card,
                              position=position)]
        s["to_act"] = s["to_act"][1:]
        if s["to_act"]:
            self._advance(s, events)
        else:
            self._finish_trick(s, events)
        return s, events

    def _insert(self, state, seat, action):
        if state["phase"] != "insert":
            raise IllegalAction("nothing_to_insert", "you have no drawn card to insert")
        position = action["position"]
        hand = state["hands"][seat]
        if not 0 <= position <= len(hand):
            raise IllegalAction("invalid_position", f"'position' must be 0..{len(hand)}")
        s = dict(state)
        card = s["drawn"][0]
        s["drawn"] = s["drawn"][1:]
        s["hands"] = cards.replace_at(s["hands"], seat,
                                      hand[:position] + [card] + hand[position:])
        events = [cards.event("inserted", seat=seat),
                  cards.event("inserted_card", [seat], seat=seat, card=card,
                              position=position)]
        if not self._draw_next(s, events):
            self._after_trick(s, events)
        return s, events

    # --- flow ----------------------------------------------------------------------------
    def _start_trick(self, s: dict, leader: int, events: list) -> None:
        n = s["players"]
        hands = s["hands"]
        s["phase"] = "play"
        s["leader"] = leader
        s["to_act"] = [leader] + [(leader + k) % n for k in range(1, n)
                                  if hands[(leader + k) % n]]
        s["trick"] = []
        s["top"] = None
        s["last_emptied"] = None
        s["winner"] = None
        s["candidates"] = []
        events.append(cards.event("trick_started", leader=leader, order=list(s["to_act"])))

    def _advance(self, s: dict, events: list) -> None:
        """The next seat is to act: if it has no legal action, the deal ends at once."""
        seat = s["to_act"][0]
        if not self._has_legal_action(s, seat):
            events.append(cards.event("no_legal_action", seat=seat))
            self._end_deal(s, seat, "no_legal_action", events)

    def _finish_trick(self, s: dict, events: list) -> None:
        trick = s["trick"]
        # Each combination beat the one before it, so the later a combination, the higher.
        candidates = [e["seat"] for e in reversed(trick)
                      if e["action"] == "play" and e["kind"] != "draw"]
        winner = candidates[0] if candidates else s["leader"]
        draws = sum(1 for e in trick if e["action"] == "play" and e["kind"] == "draw")
        s["discard_pile"] = s["discard_pile"] + [c for e in trick for c in e["cards"]]
        s["last_trick"] = trick
        s["trick"] = []
        s["top"] = None
        s["to_act"] = []
        s["winner"] = winner
        s["candidates"] = candidates or [winner]
        events.append(cards.event("trick_won", seat=winner, draw_cards=draws,
                                  draws=DRAW_PER_CARD * draws))
        s["draws_left"] = DRAW_PER_CARD * draws
        if draws:
            s["drawer"] = winner
        if not self._draw_next(s, events):
            self._after_trick(s, events)

    def _draw_next(self, s: dict, events: list) -> bool:
        """Draw the winner's next card; False when nothing is left to draw."""
        if s["draws_left"] <= 0:
            return False
        seat = s["drawer"]
        s["rng"], drawn, s["draw_pile"], s["discard_pile"], reshuffled = cards.draw_cards(
            s["rng"], s["draw_pile"], s["discard_pile"], 1)
        if reshuffled:
            events.append(cards.event("reshuffled", count=len(s["draw_pile"]) + len(drawn)))
        if not drawn:
            events.append(cards.event("draw_pile_empty", seat=seat, missed=s["draws_left"]))
            s["draws_left"] = 0
            return False
        s["draws_left"] -= 1
        s["drawn"] = drawn
        s["phase"] = "insert"
        events.append(cards.event("drew", seat=seat, count=1, left=s["draws_left"]))
        events.append(cards.event("drew_card", [seat], seat=seat, card=drawn[0]))
        return True

    def _after_trick(self, s: dict, events: list) -> None:
        s["drawer"] = None
        s["draws_left"] = 0
        hands = s["hands"]
        n = s["players"]
        holding = [p for p in range(n) if hands[p]]
        if len(holding) == 1:
            self._end_deal(s, holding[0], "last_with_cards", events)
            return
        if not holding:
            self._end_deal(s, s["last_emptied"], "last_to_empty", events)
            return
        leader = next((p for p in s["candidates"] if hands[p]), None)
        if leader is None:
            winner = s["winner"]
            leader = next((winner + k) % n for k in range(1, n) if hands[(winner + k) % n])
        self._start_trick(s, leader, events)

    def _end_deal(self, s: dict, loser: int, reason: str, events: list) -> None:
        n = s["players"]
        chips = list(s["chips"])
        s["drawer"] = None
        s["draws_left"] = 0
        s["last_loser"] = loser
        deal_placings = [n if p == loser else 1 for p in range(n)]
        if chips[loser] == 0:
            s["phase"] = "match_over"
            values = [-1 if p == loser else chips[p] for p in range(n)]
            s["deal_result"] = {"placings": deal_placings, "scores": chips, "loser": loser,
                                "reason": reason, "deal": s["deal"], "chip_lost": False}
            s["match_result"] = {"placings": cards.placings(values, lower_is_better=False),
                                 "scores": list(chips), "loser": loser, "over": True,
                                 "deals": s["deal"]}
            events.append(cards.event("round_over", loser=loser, reason=reason,
                                      result=_copy_result(s["deal_result"])))
            events.append(cards.event("match_over", loser=loser,
                                      result=_copy_result(s["match_result"])))
            return
        chips[loser] -= 1
        s["chips"] = chips
        s["phase"] = "deal_over"
        s["deal_result"] = {"placings": deal_placings, "scores": list(chips), "loser": loser,
                            "reason": reason, "deal": s["deal"], "chip_lost": True}
        events.append(cards.event("chip_lost", seat=loser, chips=chips[loser]))
        events.append(cards.event("round_over", loser=loser, reason=reason,
                                  result=_copy_result(s["deal_result"])))

    def start_next_round(self, state: dict) -> tuple[dict, list[dict]]:
        if self.is_over(state):
            raise IllegalAction("game_over", "the match is over")
        if not self.is_round_over(state):
            raise IllegalAction("round_not_over", "the deal is not over")
        return self._deal(state, leader=state["last_loser"], deck=None)


def _copy_entry(entry: dict) -> dict:
    return {**entry, "cards": list(entry["cards"])}


def _copy_result(result: dict | None) -> dict | None:
    if result is None:
        return None
    return {k: list(v) if isinstance(v, list) else v for k, v in result.items()}


KRASS_KARIERT = KrassKariert()
