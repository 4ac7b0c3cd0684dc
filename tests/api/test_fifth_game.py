"""A fifth game touches only its engine, its bots and its tests.

"High card" is declared here, in the test, the way a real game is in games/engine/<game>.py
and games/bots/<game>.py: two players, a deck of two cards, each player plays the one card
they were dealt and the higher card wins. Registered for the test only, it gets the contract
suite, passes the start-up check, and is played through the GraphQL API (createTable, addBot,
startTable, act from `legalActions`, the typed `HighCardView`), with no other file edited.
A half-declared game is refused by the start-up check instead.
"""

from __future__ import annotations

import dataclasses
import types

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.urls import path
from django.views.decorators.csrf import csrf_exempt

from games import bots as bot_registry
from games import engine as engine_registry
from games import scheduling
from games.bots.base import Bot, GameBots, RandomBot
from games.checks import check_games, game_problems
from games.engine import declaration as d
from games.engine.base import Game
from games.engine.cards import event, placings, shuffled_deck
from games.engine.errors import IllegalAction
from games.models import Table
from tests.engine.contract import contract_playout

from .test_tables import ACT, CREATE, START, guest

# --- the game: what games/engine/high_card.py would hold ------------------------------------

RANKS = {"low": 1, "high": 2}
_SEAT = d.EventField("seat", "seat")

DECLARATION = d.Declaration(
    id="high_card", name="High card", names={"en": "High card", "de": "Hohe Karte"},
    summary="Each player plays the one card they hold; the higher card wins.",
    min_players=2, max_players=2, options=(),
    cards=(d.CardGroup("two cards: low and high", ("low", "high")),),
    actions=(d.Action("play", "Play your card.", (d.Field("card", d.Card(), "your card"),)),),
    view=(
        d.ViewField("hand", "[card]?", "your card", private=True),
        d.ViewField("hand_counts", "[int]", "cards in each hand"),
        d.ViewField("actors", "[seat]", "who plays now"),
        d.ViewField("top", "card?", "the last card played"),
        d.ViewField("played", "[card]", "the cards played, in order"),
        d.ViewField("winner", "seat?", "who played the higher card"),
    ),
    events=(
        d.Event("dealt", "Your card.", (_SEAT, d.EventField("cards", "[card]")), d.OWNER),
        d.Event("played", "A card was played.", (_SEAT, d.EventField("card", "card"))),
        d.Event("round_over", "Both have played.",
                (d.EventField("placings", "[int]"), d.EventField("scores", "[int]"))),
        d.Event("match_over", "The match ended.",
                (d.EventField("placings", "[int]"), d.EventField("scores", "[int]"))),
    ),
    codes={"card_not_in_hand": "you do not hold that card"},
    default_action_order=("play",),
    results="The higher card places 1, the other 2; `scores` are the ranks played.",
)


class HighCard(Game):
    declaration = DECLARATION

    def full_deck(self, options):
        return ["low", "high"]

    def _new_game_events(self, players, rng_state, options, deck):
        rng_state, pile = shuffled_deck(rng_state, self.full_deck(options), deck)
        state = {"hands": [[pile[0]], [pile[1]]], "played": [], "by": [], "rng": rng_state}
        return state, [event("dealt", [seat], seat=seat, cards=[pile[seat]]) for seat in (0, 1)]

    def actors(self, state):
        return [] if len(state["played"]) == 2 else [len(state["played"])]

    def legal_actions(self, state, seat):
        if seat not in self.actors(state):
            return []
        return [{"type": "play", "card": card} for card in state["hands"][seat]]

    def _apply(self, state, seat, action):
        if action["card"] not in state["hands"][seat]:
            raise IllegalAction("card_not_in_hand", "you do not hold that card")
        hands = list(state["hands"])
        hands[seat] = []
        s = {**state, "hands": hands, "played": state["played"] + [action["card"]],
             "by": state["by"] + [seat]}
        events = [event("played", seat=seat, card=action["card"])]
        if len(s["played"]) == 2:
            events.append(event("round_over", **self.result(s)))
            events.append(event("match_over", **self.result(s)))
        return s, events

    def view(self, state, seat):
        own = seat in (0, 1)
        result = self.result(state) if len(state["played"]) == 2 else None
        return {"hand": list(state["hands"][seat]) if own else None,
                "hand_counts": [len(h) for h in state["hands"]],
                "actors": self.actors(state),
                "top": state["played"][-1] if state["played"] else None,
                "played": list(state["played"]),
                "winner": result["placings"].index(1) if result else None}

    def is_round_over(self, state):
        return len(state["played"]) == 2

    def is_over(self, state):
        return len(state["played"]) == 2

    def round_result(self, state):
        return self.result(state)

    def result(self, state):
        scores = [0, 0]
        for seat, card in zip(state["by"], state["played"], strict=True):
            scores[seat] = RANKS[card]
        return {"placings": placings(scores, lower_is_better=False), "scores": scores}

    def start_next_round(self, state):
        raise IllegalAction("game_over", "one round only")

    def all_cards(self, state):
        return [c for hand in state["hands"] for c in hand] + state["played"]


HIGH_CARD = HighCard()


# --- its bots: what games/bots/high_card.py would hold --------------------------------------

class PlayHighest(Bot):
    level = "heuristic"
    description = "plays its card"

    def choose(self, view, legal_actions, rng):
        return max(legal_actions, key=lambda a: RANKS[a["card"]])


BOTS = GameBots("high_card", (RandomBot(), PlayHighest()))


@pytest.fixture
def high_card():
    with engine_registry.registered(HIGH_CARD), bot_registry.registered(BOTS):
        yield HIGH_CARD


# --- it gets the contract suite ----------------------------------------------------------------

def test_high_card_passes_the_start_up_check(high_card):
    assert game_problems() == []
    assert check_games() == []


@pytest.mark.parametrize("seed", range(6))
def test_high_card_keeps_the_contract(high_card, seed):
    contract_playout(high_card, 2, seed, must_end=True)


# --- a half-declared game is refused at start-up ----------------------------------------------

class HalfDeclared(HighCard):
    declaration = dataclasses.replace(DECLARATION, id="half_declared", view=(),
                                      default_action_order=())


def test_a_half_declared_game_is_refused_at_start_up():
    with engine_registry.registered(HalfDeclared()):
        problems = game_problems()
        assert any("declares no view fields" in p for p in problems)
        assert any("no default action order" in p for p in problems)
        assert any("declares no bots" in p for p in problems)
        assert {e.id for e in check_games()} == {"games.E001"}
        with pytest.raises(SystemCheckError):
            call_command("check", tags=["stapel"])
    call_command("check", tags=["stapel"])  # without it, the start-up check passes again


def test_a_game_whose_view_differs_from_its_declaration_is_refused():
    class Undeclared(HighCard):
        declaration = dataclasses.replace(DECLARATION, id="undeclared_view")

        def view(self, state, seat):
            return {**super().view(state, seat), "secret": 1}

    with engine_registry.registered(Undeclared()), \
            bot_registry.registered(dataclasses.replace(BOTS, game="undeclared_view")):
        assert any("undeclared ['secret']" in p for p in game_problems())


# --- and it is playable through the API -------------------------------------------------------

VIEW = """query($id: ID!) { table(id: $id) { status version result
  view { __typename ... on HighCardView { seat hand handCounts actors top played winner
         legalActions } } } }"""
ADD_BOT = """mutation($id: ID!) { addBot(tableId: $id) {
  table { seats { position botLevel } } errors { code } } }"""
GAMES = "{ games { id name minPlayers maxPlayers botLevels } }"


@pytest.fixture
def api(high_card, settings):
    """The server as it starts with high card registered: a schema built now."""
    from config.graphql import GraphQLView
    from config.schema import build_schema

    urls = types.ModuleType("high_card_urls")
    urls.urlpatterns = [path("graphql/", csrf_exempt(GraphQLView.as_view(schema=build_schema())))]
    settings.ROOT_URLCONF = urls


@pytest.mark.django_db(transaction=True)
def test_high_card_is_playable_through_the_api(api, gql):
    games = {g["id"]: g for g in gql(GAMES)["games"]}
    assert games["high_card"] == {"id": "high_card", "name": "High card", "minPlayers": 2,
                                  "maxPlayers": 2, "botLevels": ["heuristic", "random"]}
    alice = guest(gql, "Alice")
    created = alice(CREATE, {"input": {"game": "high_card"}})["createTable"]
    assert created["errors"] == []
    table_id = created["table"]["id"]
    seats = alice(ADD_BOT, {"id": table_id})["addBot"]
    assert seats["errors"] == [] and seats["table"]["seats"][1]["botLevel"] == "heuristic"
    assert alice(START, {"id": table_id})["startTable"]["errors"] == []

    table = alice(VIEW, {"id": table_id})["table"]
    view = table["view"]
    assert view["__typename"] == "HighCardView" and view["seat"] == 0
    assert view["actors"] == [0] and view["handCounts"] == [1, 1] and len(view["hand"]) == 1
    assert view["legalActions"] == [{"play": {"card": view["hand"][0]}}]

    # The same malformed moves get the same answers as in every other game.
    for action, code in (({"play": {}}, "missing_field"),
                         ({"play": {"card": None}}, "missing_field"),
                         ({"play": {"card": "joker"}}, "invalid_value"),
                         ({"play": {"card": view["hand"][0], "index": 0}}, "unknown_field"),
                         ({"draw": True}, "unknown_action")):
        answer = alice(ACT, {"id": table_id, "a": action, "v": table["version"]})["act"]
        assert [e["code"] for e in answer["errors"]] == [code], action

    answer = alice(ACT, {"id": table_id, "a": view["legalActions"][0],
                         "v": table["version"]})["act"]
    assert answer["errors"] == []
    scheduling.wait_idle(timeout=10)  # the bot's move and the end of the match
    table = alice(VIEW, {"id": table_id})["table"]
    assert table["status"] == "FINISHED"
    mine = view["hand"][0]
    assert table["view"]["played"][0] == mine
    assert table["view"]["winner"] == (0 if mine == "high" else 1)
    assert Table.objects.get(public_id=table_id).result["placings"] == (
        [1, 2] if mine == "high" else [2, 1])
