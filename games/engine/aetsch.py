"""Ätsch, Ätsch: a Mau-Mau variant with a die, as settled by RULES.md.

Players shed cards by suit in force or rank; `J` and `joker` wish a suit, and every special
card (2, 5, 7, 10, K, A, joker) either moves the turn or opens a short phase in which only its
player acts (handing out drawn cards, peeking, giving a card, naming a swap). The state is
plain JSON and a turn is a ``phase`` plus the seat in ``turn``; ``apply`` copies only the lists
it changes. Hidden facts (hands, the cards a `5` hands out, a peeked hand) reach a seat only
through its own view and private events.
"""

from __future__ import annotations

from itertools import combinations

from . import cards, rng
from . import declaration as d
from .base import Game
from .cards import event
from .errors import IllegalAction
from .options import BoolOption, IntOption

SUITS = ("clubs", "spades", "hearts", "diamonds")
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
JOKER = "joker"
FULL_DECK = [f"{suit}-{rank}" for _ in range(2) for suit in SUITS for rank in RANKS] + [JOKER] * 6
SUIT_OF = {f"{s}-{r}": s for s in SUITS for r in RANKS}
RANK_OF = {f"{s}-{r}": r for s in SUITS for r in RANKS}

# Phases of a round. In every phase but the last two exactly one seat (``turn``) acts.
PLAY = "play"              # play a fitting card or draw
DRAWN = "drawn"            # the card just drawn fits: play it or pass
TWO = "two"                # a 2 is pending against ``turn``: push back with a 2 or draw the total
GIVE_DRAWN = "give_drawn"  # after a 5: hand out the unseen drawn cards one by one
PEEK = "peek"              # after a 10: name the player whose hand to look at
GIVE = "give"              # after a K: give a hand card to the next player
SWAP = "swap"              # joker rolled 3: name two players who swap hands (2 players: or reroll)
ROUND_OVER = "round_over"
MATCH_OVER = "match_over"

PHASE_ACTIONS = {
    PLAY: frozenset({"play", "draw"}),
    DRAWN: frozenset({"play", "pass"}),
    TWO: frozenset({"play", "draw"}),
    GIVE_DRAWN: frozenset({"give_drawn"}),
    PEEK: frozenset({"peek"}),
    GIVE: frozenset({"give"}),
    SWAP: frozenset({"swap", "reroll"}),
}


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_wild(card: str) -> bool:
    return card == JOKER or RANK_OF[card] == "J"


def _unique(hand: list) -> list:
    return list(dict.fromkeys(hand))


_SEAT = d.EventField("seat", "seat", "the seat it is about")
_RESULT = d.EventField("result", "json", "{round, winner, placings, scores}")

DECLARATION = d.Declaration(
    id="aetsch", name="Ätsch, Ätsch", names={"en": "Ätsch, Ätsch", "de": "Ätsch, Ätsch"},
    summary="A Mau-Mau variant with a die: follow suit or rank, every special card does "
            "something, and going out needs the right call.",
    min_players=2, max_players=6,
    options=(
        IntOption("hand_size", 8, "cards dealt to each player", minimum=3, maximum=10),
        BoolOption("play_drawn", True, "a drawn card that fits may be played at once"),
        BoolOption("jack_on_jack", False, "a J may be played on a J"),
        IntOption("rounds", 1, "rounds in a match; summed placings rank the match",
                  minimum=1, maximum=100),
    ),
    cards=(
        d.CardGroup("two French packs: suit-rank, suits clubs spades hearts diamonds, ranks "
                    "2..10 J Q K A. Specials: 2 (next draws 2 or pushes back), 5 (draw 5 and "
                    "hand them out), 7 (skip), 10 (peek at a hand), J (wish a suit), K (give a "
                    "card to the next player), A (reverse)",
                    tuple(f"{s}-{r}" for s in SUITS for r in RANKS)),
        d.CardGroup("six jokers: wish a suit and roll the die", (JOKER,)),
    ),
    actions=(
        d.Action("play", "Play a card of the suit in force or the top card's rank (a J or "
                 "joker on anything; only a 2 against a pending 2). Add `call: true` when it "
                 "leaves you one card or none.",
                 (d.Field("card", d.Card(), "the card, from your hand"),
                  d.Field("suit", d.Choice(choices=SUITS), "the wished suit (J and joker "
                          "only)", False),
                  d.Field("call", d.Flag(), "Ätsch! (one card left) or Ätsch, Ätsch! (none)",
                          False)),
                 example={"type": "play", "card": "hearts-7"}),
        d.Action("draw", "Draw a card, or the whole pending total of 2s."),
        d.Action("pass", "Keep the card you just drew."),
        d.Action("give_drawn", "Give the next of the cards a 5 made you draw.",
                 (d.Field("to", d.Seat(), "another player"),)),
        d.Action("peek", "Look at another player's hand after your 10.",
                 (d.Field("seat", d.Seat(), "whose hand"),)),
        d.Action("give", "Give one of your cards to the next player after your K.",
                 (d.Field("card", d.Card(), "a card of your hand"),)),
        d.Action("swap", "After rolling a 3: two players swap hands.",
                 (d.Field("seats", d.Seats(length=2), "the two seats"),),
                 example={"type": "swap", "seats": [1, 2]}),
        d.Action("reroll", "With two players, roll again instead of swapping."),
    ),
    view=(
        d.ViewField("players", "int", "seats at the table"),
        d.ViewField("seat", "seat?", "your seat (null for a spectator)", private=True),
        d.ViewField("hand", "[card]?", "your hand (null for a spectator)", private=True),
        d.ViewField("hand_counts", "[int]", "cards in each seat's hand"),
        d.ViewField("actors", "[seat]", "the seats that may act now"),
        d.ViewField("top", "card?", "the top card of the discard pile"),
        d.ViewField("suit", "str?", "the suit in force"),
        d.ViewField("direction", "int", "1 clockwise, -1 counter-clockwise"),
        d.ViewField("phase", "str", "play, drawn, two, give_drawn, peek, give, swap, "
                    "round_over, match_over"),
        d.ViewField("turn", "seat?", "whose turn it is"),
        d.ViewField("pending_two", "int", "cards a pending 2 makes its target draw"),
        d.ViewField("two_target", "seat?", "who faces the pending 2"),
        d.ViewField("to_give_count", "int", "cards a 5 still hands out"),
        d.ViewField("give_to", "seat?", "who receives the card a K gives"),
        d.ViewField("drawn_card", "card?", "the card you just drew, while you may play it",
                    private=True),
        d.ViewField("last_roll", "json?", "{seat, face}: the last die roll"),
        d.ViewField("peeked", "json?", "{seat, hand}: the hand your 10 showed you",
                    private=True),
        d.ViewField("draw_count", "int", "cards in the draw pile"),
        d.ViewField("discard_count", "int", "cards in the discard pile"),
        d.ViewField("dealer", "seat", "this round's dealer"),
        d.ViewField("round", "int", "the round number, from 1"),
        d.ViewField("rounds", "int", "rounds in the match"),
        d.ViewField("round_results", "json", "each finished round's result"),
        d.ViewField("placing_sums", "[int]", "placings summed over the rounds, by seat"),
        d.ViewField("winner", "seat?", "who went out this round"),
        d.ViewField("options", "json", "the house rules in force"),
    ),
    events=(
        d.Event("round_started", "A round was dealt.",
                (d.EventField("round", "int"), d.EventField("dealer", "seat"),
                 d.EventField("turn", "seat"), d.EventField("top", "card"),
                 d.EventField("hand_counts", "[int]"))),
        d.Event("dealt", "Your hand for the round.", (_SEAT, d.EventField("cards", "[card]")),
                d.OWNER),
        d.Event("played", "A card was played.",
                (_SEAT, d.EventField("card", "card"),
                 d.EventField("suit", "str", "the suit now in force"))),
        d.Event("called", "Ätsch! or Ätsch, Ätsch!",
                (_SEAT, d.EventField("call", "str", "the words called"))),
        d.Event("penalty", "A missing call costs cards.",
                (_SEAT, d.EventField("count", "int"), d.EventField("reason", "str"))),
        d.Event("drew", "Cards drawn (how many only).",
                (_SEAT, d.EventField("count", "int"),
                 d.EventField("reason", "str", "draw, two, five, joker or penalty"),
                 d.EventField("unseen", "bool", "a 5's cards, drawn unseen", required=False))),
        d.Event("drew_cards", "The cards you drew.",
                (_SEAT, d.EventField("cards", "[card]"), d.EventField("reason", "str")),
                d.OWNER),
        d.Event("passed", "The drawn card was kept.", (_SEAT,)),
        d.Event("skipped", "A player is skipped.", (_SEAT,)),
        d.Event("direction", "The direction changed.", (d.EventField("direction", "int"),)),
        d.Event("two_pending", "A 2 is pending.",
                (d.EventField("seat", "seat", "who must answer"), d.EventField("total", "int"))),
        d.Event("gave_drawn", "One of a 5's cards was given (not which).",
                (_SEAT, d.EventField("to", "seat"),
                 d.EventField("left", "int", "cards still to give"))),
        d.Event("received_card", "The card you were given.",
                (d.EventField("seat", "seat", "the receiver"), d.EventField("card", "card"),
                 d.EventField("from", "seat")), d.OWNER),
        d.Event("peeked", "A 10 looked at a hand.",
                (_SEAT, d.EventField("target", "seat"))),
        d.Event("peeked_hand", "The hand your 10 showed you.",
                (_SEAT, d.EventField("target", "seat"), d.EventField("cards", "[card]")),
                d.OWNER),
        d.Event("gave", "A K's card was given to the next player (not which).",
                (_SEAT, d.EventField("to", "seat"))),
        d.Event("gave_card", "The card a K gave.",
                (_SEAT, d.EventField("to", "seat"), d.EventField("card", "card")),
                ("seat", "to")),
        d.Event("die_rolled", "A joker's die roll.", (_SEAT, d.EventField("face", "int"))),
        d.Event("swapped", "Two players swapped hands.",
                (_SEAT, d.EventField("seats", "[seat]"))),
        d.Event("hand_swapped", "Your hand after a swap.",
                (_SEAT, d.EventField("cards", "[card]")), d.OWNER),
        d.Event("rerolled", "The die is rolled again.", (_SEAT,)),
        d.Event("reshuffled", "The discard pile became the new draw pile.",
                (d.EventField("draw_count", "int"),)),
        d.Event("went_out", "A player went out with the right call and wins the round.",
                (_SEAT,)),
        d.Event("round_over", "The round ended.", (_RESULT,)),
        d.Event("match_over", "The match ended.",
                (d.EventField("result", "json",
                              "{placings, scores, placingSums, roundsPlayed}"),)),
    ),
    codes={
        "wrong_phase": "that action is not allowed in this phase of the turn",
        "card_not_in_hand": "you do not hold that card",
        "not_drawn_card": "only the card just drawn may be played",
        "must_answer_two": "only a 2 may be played against a pending 2",
        "does_not_match": "the card fits neither the suit in force nor the top card's rank",
        "suit_required": "a J or joker needs `suit`",
        "suit_not_allowed": "only a J or joker wishes a suit",
        "invalid_target": "name another player's seat",
        "invalid_seats": "name two different players (two players: yourself and the other)",
        "reroll_not_allowed": "only two players may roll again",
    },
    default_action_order=("pass", "draw", "give_drawn", "give", "peek", "swap", "reroll"),
    results="A round: the winner first, the others by cards left (fewer is better); ties "
            "share a place and the next place is skipped (1, 2, 2, 4). `scores` are cards "
            "left. The match: placings summed over the rounds, lower is better, ties share.",
)


class Aetsch(Game):
    declaration = DECLARATION

    # --- deal ----------------------------------------------------------------------------
    def full_deck(self, options: dict) -> list[str]:
        return list(FULL_DECK)

    def _new_game_events(self, players: int, rng_state: int, options: dict,
                         deck: list | None) -> tuple[dict, list]:
        return self._deal(players, options, rng_state, 1, players - 1, deck, [])

    def _deal(self, players: int, options: dict, rng_state: int, round_no: int, dealer: int,
              deck: list | None, round_results: list) -> tuple[dict, list]:
        rng_state, pile = cards.shuffled_deck(rng_state, FULL_DECK, deck)
        first = (dealer + 1) % players
        hands, pile = cards.deal_round_robin(pile, players, options["hand_size"], first)
        # A joker turned up goes to the bottom; the first card's effect never applies.
        while pile[0] == JOKER:
            pile = pile[1:] + [JOKER]
        top = pile[0]
        state = {
            "players": players,
            "options": dict(options),
            "rng": rng_state,
            "round": round_no,
            "dealer": dealer,
            "hands": hands,
            "draw_pile": pile[1:],
            "discard_pile": [top],
            "suit": SUIT_OF[top],
            "direction": 1,
            "turn": first,
            "phase": PLAY,
            "two": None,          # {"total", "target", "pusher", "first_target"}
            "drawn": None,        # the fitting card just drawn (phase DRAWN)
            "to_give": [],        # the unseen cards a 5 hands out (phase GIVE_DRAWN)
            "give_called": False,  # whether the K that opened phase GIVE was called
            "last_roll": None,    # {"seat", "face"}
            "peeks": [None] * players,  # by peeker: {"seat", "hand"} as seen at the time
            "winner": None,
            "round_results": round_results,
        }
        events = [event("round_started", round=round_no, dealer=dealer, turn=first, top=top,
                        hand_counts=[len(h) for h in hands])]
        events += [event("dealt", [seat], seat=seat, cards=list(hands[seat]))
                   for seat in range(players)]
        return state, events

    # --- queries -------------------------------------------------------------------------
    def actors(self, state: dict) -> list[int]:
        if state["phase"] in (ROUND_OVER, MATCH_OVER):
            return []
        return [state["turn"]]

    def fits(self, state: dict, card: str) -> bool:
        """Whether ``card`` may be played on the discard pile outside a pending 2."""
        if card == JOKER:
            return True
        top = state["discard_pile"][-1]
        rank = RANK_OF[card]
        if rank == "J":
            return top == JOKER or RANK_OF[top] != "J" or state["options"]["jack_on_jack"]
        if SUIT_OF[card] == state["suit"]:
            return True
        return top != JOKER and RANK_OF[top] == rank

    def _play_entries(self, card: str) -> list[dict]:
        if _is_wild(card):
            return [{"type": "play", "card": card, "suit": suit} for suit in SUITS]
        return [{"type": "play", "card": card}]

    def legal_actions(self, state: dict, seat: int) -> list[dict]:
        phase = state["phase"]
        if phase in (ROUND_OVER, MATCH_OVER) or seat != state["turn"]:
            return []
        hand = state["hands"][seat]
        n = state["players"]
        others = [t for t in range(n) if t != seat]
        if phase == PLAY:
            # ``fits`` inlined: this is the hottest path of every bot and random playout.
            top = state["discard_pile"][-1]
            top_rank = None if top == JOKER else RANK_OF[top]
            suit = state["suit"]
            jack_ok = top_rank != "J" or state["options"]["jack_on_jack"]
            actions = []
            for card in _unique(hand):
                if card == JOKER:
                    actions += [{"type": "play", "card": card, "suit": s} for s in SUITS]
                    continue
                rank = RANK_OF[card]
                if rank == "J":
                    if jack_ok:
                        actions += [{"type": "play", "card": card, "suit": s} for s in SUITS]
                elif SUIT_OF[card] == suit or rank == top_rank:
                    actions.append({"type": "play", "card": card})
            actions.append({"type": "draw"})
            return actions
        if phase == DRAWN:
            return self._play_entries(state["drawn"]) + [{"type": "pass"}]
        if phase == TWO:
            actions = [{"type": "play", "card": card} for card in _unique(hand)
                       if card != JOKER and RANK_OF[card] == "2"]
            actions.append({"type": "draw"})
            return actions
        if phase == GIVE_DRAWN:
            return [{"type": "give_drawn", "to": t} for t in others]
        if phase == PEEK:
            return [{"type": "peek", "seat": t} for t in others]
        if phase == GIVE:
            return [{"type": "give", "card": card} for card in _unique(hand)]
        # SWAP
        if n == 2:
            return [{"type": "swap", "seats": [0, 1]}, {"type": "reroll"}]
        return [{"type": "swap", "seats": [a, b]} for a, b in combinations(others, 2)]

    def view(self, state: dict, seat: int | None) -> dict:
        hands = state["hands"]
        two = state["two"]
        phase = state["phase"]
        n = state["players"]
        in_turn = seat is not None and seat == state["turn"]
        return {
            "players": n,
            "seat": seat,
            "hand": list(hands[seat]) if seat is not None else None,
            "hand_counts": [len(h) for h in hands],
            "actors": self.actors(state),
            "top": state["discard_pile"][-1] if state["discard_pile"] else None,
            "suit": state["suit"],
            "direction": state["direction"],
            "phase": phase,
            "turn": state["turn"],
            "pending_two": two["total"] if two else 0,
            "two_target": two["target"] if two else None,
            # A 5's cards are handed out unseen: even their giver learns only how many remain.
            "to_give_count": len(state["to_give"]),
            "give_to": (state["turn"] + state["direction"]) % n if phase == GIVE else None,
            "drawn_card": state["drawn"] if in_turn and phase == DRAWN else None,
            "last_roll": dict(state["last_roll"]) if state["last_roll"] else None,
            "peeked": (dict(state["peeks"][seat]) if seat is not None and state["peeks"][seat]
                       else None),
            "draw_count": len(state["draw_pile"]),
            "discard_count": len(state["discard_pile"]),
            "dealer": state["dealer"],
            "round": state["round"],
            "rounds": state["options"]["rounds"],
            "round_results": [dict(r) for r in state["round_results"]],
            "placing_sums": self._placing_sums(state),
            "winner": state["winner"],
            "options": dict(state["options"]),
        }

    # --- rounds and match ----------------------------------------------------------------
    def is_round_over(self, state: dict) -> bool:
        return state["phase"] in (ROUND_OVER, MATCH_OVER)

    def is_over(self, state: dict) -> bool:
        return state["phase"] == MATCH_OVER

    def round_result(self, state: dict) -> dict:
        if not self.is_round_over(state):
            raise IllegalAction("round_not_over", "the round is still being played")
        return dict(state["round_results"][-1])

    def _placing_sums(self, state: dict) -> list[int]:
        sums = [0] * state["players"]
        for result in state["round_results"]:
            for seat, place in enumerate(result["placings"]):
                sums[seat] += place
        return sums

    def result(self, state: dict) -> dict:
        """The match standings over the rounds finished so far: summed placings rank it
        (lower is better, ties share); ``scores`` are the cards left summed over rounds."""
        sums = self._placing_sums(state)
        scores = [0] * state["players"]
        for result in state["round_results"]:
            for seat, left in enumerate(result["scores"]):
                scores[seat] += left
        return {"placings": cards.placings(sums), "scores": scores, "placing_sums": sums,
                "rounds_played": len(state["round_results"])}

    def start_next_round(self, state: dict) -> tuple[dict, list[dict]]:
        if state["phase"] == MATCH_OVER:
            raise IllegalAction("game_over", "the match is over")
        if state["phase"] != ROUND_OVER:
            raise IllegalAction("round_not_over", "the round is still being played")
        n = state["players"]
        return self._deal(n, state["options"], state["rng"], state["round"] + 1,
                          (state["dealer"] + 1) % n, None, list(state["round_results"]))

    def all_cards(self, state: dict) -> list[str]:
        out = list(state["draw_pile"]) + list(state["discard_pile"]) + list(state["to_give"])
        for hand in state["hands"]:
            out += hand
        return out

    # --- actions -------------------------------------------------------------------------
    def _apply(self, state: dict, seat: int, action: dict) -> tuple[dict, list[dict]]:
        kind = action["type"]
        phase = state["phase"]
        if kind not in PHASE_ACTIONS[phase]:
            raise IllegalAction("wrong_phase", f"'{kind}' is not allowed now (phase {phase})")
        s = dict(state)
        s["hands"] = list(state["hands"])
        ev: list[dict] = []
        getattr(self, "_do_" + kind)(s, seat, action, ev)
        return s, ev

    def _do_play(self, s: dict, seat: int, action: dict, ev: list) -> None:
        card = action["card"]
        hand = s["hands"][seat]
        phase = s["phase"]
        if phase == DRAWN:
            if card != s["drawn"]:
                raise IllegalAction("not_drawn_card", "only the card just drawn may be played")
            index = len(hand) - 1  # the drawn card is the last of the hand
        else:
            if card not in hand:
                raise IllegalAction("card_not_in_hand", f"you do not hold {card}")
            index = hand.index(card)
        if phase == TWO:
            if card == JOKER or RANK_OF[card] != "2":
                raise IllegalAction("must_answer_two",
                                    "only a 2 may be played against a pending 2")
        elif not self.fits(s, card):
            raise IllegalAction("does_not_match", f"{card} does not fit the discard pile")
        wish = action.get("suit")
        if _is_wild(card):
            if wish is None:
                raise IllegalAction("suit_required", "a J or joker needs a wished 'suit'")
        elif wish is not None:
            raise IllegalAction("suit_not_allowed", "only a J or joker wishes a suit")
        call = action.get("call", False)

        new_hand = hand[:index] + hand[index + 1:]
        s["hands"][seat] = new_hand
        s["discard_pile"] = s["discard_pile"] + [card]
        s["suit"] = wish if wish is not None else SUIT_OF[card]
        s["drawn"] = None
        ev.append(event("played", seat=seat, card=card, suit=s["suit"]))
        left = len(new_hand)
        if left <= 1 and call:
            ev.append(event("called", seat=seat, call="Ätsch, Ätsch!" if left == 0 else "Ätsch!"))
        if left == 0:
            if call:
                self._win(s, seat, ev)  # the last card's effect is dropped
                return
            self._penalty(s, seat, 5, ev)
        elif left == 1 and not call:
            self._penalty(s, seat, 2, ev)
        self._effect(s, seat, card, call, ev)

    def _effect(self, s: dict, seat: int, card: str, called: bool, ev: list) -> None:
        if card == JOKER:
            self._roll(s, seat, ev)
            return
        rank = RANK_OF[card]
        n = s["players"]
        if rank == "2":
            two = s["two"]
            if two is None:
                target = (seat + s["direction"]) % n
                two = {"total": 2, "target": target, "pusher": seat, "first_target": target}
            else:  # pushed back: the player of the previous 2 faces the total plus 2
                two = {"total": two["total"] + 2, "target": two["pusher"], "pusher": seat,
                       "first_target": two["first_target"]}
            s["two"] = two
            s["turn"] = two["target"]
            s["phase"] = TWO
            ev.append(event("two_pending", seat=two["target"], total=two["total"]))
        elif rank == "5":
            drawn = self._take(s, 5, ev)
            ev.append(event("drew", seat=seat, count=len(drawn), reason="five", unseen=True))
            if drawn:
                s["to_give"] = drawn
                s["phase"] = GIVE_DRAWN
            else:
                self._advance(s, seat, 0, ev)
        elif rank == "7":
            self._advance(s, seat, 1, ev)
        elif rank == "10":
            s["phase"] = PEEK
        elif rank == "K":
            if s["hands"][seat]:
                s["phase"] = GIVE
                s["give_called"] = called
            else:
                self._advance(s, seat, 0, ev)
        elif rank == "A":
            if n == 2:
                self._advance(s, seat, 1, ev)
            else:
                s["direction"] = -s["direction"]
                ev.append(event("direction", direction=s["direction"]))
                self._advance(s, seat, 0, ev)
        else:
            self._advance(s, seat, 0, ev)

    def _roll(self, s: dict, seat: int, ev: list) -> None:
        s["rng"], face = rng.roll_die(s["rng"])
        s["last_roll"] = {"seat": seat, "face": face}
        ev.append(event("die_rolled", seat=seat, face=face))
        n = s["players"]
        d = s["direction"]
        nxt = (seat + d) % n
        if face == 1:
            self._advance(s, seat, 1, ev)
        elif face in (2, 4):  # drawn at once, no pushing back; the drawer then plays
            self._draw(s, nxt, face, "joker", ev)
            self._advance(s, seat, 0, ev)
        elif face == 3:
            s["phase"] = SWAP
        elif face == 5:
            for k in range(1, n):
                self._draw(s, (seat + d * k) % n, 3, "joker", ev)
            self._advance(s, seat, 0, ev)
        else:  # 6
            self._draw(s, nxt, 4, "joker", ev)
            self._advance(s, seat, 1, ev)

    def _do_draw(self, s: dict, seat: int, action: dict, ev: list) -> None:
        if s["phase"] == TWO:
            two = s["two"]
            self._draw(s, seat, two["total"], "two", ev)
            s["two"] = None
            self._advance(s, two["first_target"], 0, ev)
            return
        drawn = self._draw(s, seat, 1, "draw", ev)
        if drawn and s["options"]["play_drawn"] and self.fits(s, drawn[0]):
            s["phase"] = DRAWN
            s["drawn"] = drawn[0]
        else:
            self._advance(s, seat, 0, ev)

    def _do_pass(self, s: dict, seat: int, action: dict, ev: list) -> None:
        s["drawn"] = None
        ev.append(event("passed", seat=seat))
        self._advance(s, seat, 0, ev)

    def _target(self, s: dict, seat: int, value, field: str) -> int:
        if not _is_int(value) or not 0 <= value < s["players"] or value == seat:
            raise IllegalAction("invalid_target", f"'{field}' must be another player's seat")
        return value

    def _do_give_drawn(self, s: dict, seat: int, action: dict, ev: list) -> None:
        to = self._target(s, seat, action.get("to"), "to")
        card, rest = s["to_give"][0], s["to_give"][1:]
        s["to_give"] = rest
        s["hands"][to] = s["hands"][to] + [card]
        ev.append(event("gave_drawn", seat=seat, to=to, left=len(rest)))
        ev.append(event("received_card", [to], seat=to, card=card, **{"from": seat}))
        if not rest:
            self._advance(s, seat, 0, ev)

    def _do_peek(self, s: dict, seat: int, action: dict, ev: list) -> None:
        target = self._target(s, seat, action.get("seat"), "seat")
        hand = list(s["hands"][target])
        s["peeks"] = cards.replace_at(s["peeks"], seat, {"seat": target, "hand": hand})
        ev.append(event("peeked", seat=seat, target=target))
        ev.append(event("peeked_hand", [seat], seat=seat, target=target, cards=hand))
        self._advance(s, seat, 0, ev)

    def _do_give(self, s: dict, seat: int, action: dict, ev: list) -> None:
        card = action["card"]
        hand = s["hands"][seat]
        if card not in hand:
            raise IllegalAction("card_not_in_hand", f"you do not hold {card}")
        to = (seat + s["direction"]) % s["players"]
        index = hand.index(card)
        s["hands"][seat] = hand[:index] + hand[index + 1:]
        s["hands"][to] = s["hands"][to] + [card]
        ev.append(event("gave", seat=seat, to=to))
        ev.append(event("gave_card", [seat, to], seat=seat, to=to, card=card))
        if not s["hands"][seat]:
            if s["give_called"]:
                self._win(s, seat, ev)
                return
            # Out without a call (only when the uncalled K's penalty found nothing to draw).
            self._penalty(s, seat, 5, ev)
        s["give_called"] = False
        self._advance(s, seat, 0, ev)

    def _do_swap(self, s: dict, seat: int, action: dict, ev: list) -> None:
        seats = action["seats"]
        n = s["players"]
        if seats[0] == seats[1] or not all(x < n for x in seats):
            raise IllegalAction("invalid_seats", "'seats' must be two different seats")
        if n == 2:
            if seat not in seats:
                raise IllegalAction("invalid_seats", "with two players you swap with the opponent")
        elif seat in seats:
            raise IllegalAction("invalid_seats", "name two players other than yourself")
        a, b = seats
        s["hands"][a], s["hands"][b] = s["hands"][b], s["hands"][a]
        ev.append(event("swapped", seat=seat, seats=[a, b]))
        ev.append(event("hand_swapped", [a], seat=a, cards=list(s["hands"][a])))
        ev.append(event("hand_swapped", [b], seat=b, cards=list(s["hands"][b])))
        self._advance(s, seat, 0, ev)

    def _do_reroll(self, s: dict, seat: int, action: dict, ev: list) -> None:
        if s["players"] != 2:
            raise IllegalAction("reroll_not_allowed", "only two players may roll again")
        ev.append(event("rerolled", seat=seat))
        self._roll(s, seat, ev)

    # --- helpers (mutate the working copy ``s`` whose ``hands`` list is already copied) ---
    def _advance(self, s: dict, seat: int, skip: int, ev: list) -> None:
        n = s["players"]
        d = s["direction"]
        if skip:
            ev.append(event("skipped", seat=(seat + d) % n))
        s["turn"] = (seat + d * (1 + skip)) % n
        s["phase"] = PLAY

    def _take(self, s: dict, count: int, ev: list) -> list:
        s["rng"], drawn, s["draw_pile"], s["discard_pile"], reshuffled = cards.draw_cards(
            s["rng"], s["draw_pile"], s["discard_pile"], count)
        if reshuffled:
            ev.append(event("reshuffled", draw_count=len(s["draw_pile"])))
        return drawn

    def _draw(self, s: dict, seat: int, count: int, reason: str, ev: list) -> list:
        drawn = self._take(s, count, ev)
        s["hands"][seat] = s["hands"][seat] + drawn
        ev.append(event("drew", seat=seat, count=len(drawn), reason=reason))
        if drawn:
            ev.append(event("drew_cards", [seat], seat=seat, cards=drawn, reason=reason))
        return drawn

    def _penalty(self, s: dict, seat: int, count: int, ev: list) -> None:
        ev.append(event("penalty", seat=seat, count=count, reason="no_call"))
        self._draw(s, seat, count, "penalty", ev)

    def _win(self, s: dict, seat: int, ev: list) -> None:
        counts = [len(h) for h in s["hands"]]
        # The winner is first; the others rank by cards left (fewer is better, ties share).
        places = cards.placings([(0 if i == seat else 1, c) for i, c in enumerate(counts)])
        result = {"round": s["round"], "winner": seat, "placings": places, "scores": counts}
        s["round_results"] = s["round_results"] + [result]
        s["winner"] = seat
        s["two"] = None
        s["drawn"] = None
        s["give_called"] = False
        match_over = s["round"] >= s["options"]["rounds"]
        s["phase"] = MATCH_OVER if match_over else ROUND_OVER
        ev.append(event("went_out", seat=seat))
        ev.append(event("round_over", result=dict(result)))
        if match_over:
            ev.append(event("match_over", result=self.result(s)))


AETSCH = Aetsch()
