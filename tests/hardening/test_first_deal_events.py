"""Finding 10: the first deal had no deal events (the start update carried only
`match_started`; later rounds carry `dealt` and `round_started`). The first round now emits
what every later round emits, each seat's cards to that seat only."""

import pytest

from games.engine import GAMES
from tests.api.test_tables import guest, two_player_table

# What a later round's start_next_round emits, by game (karma has one round: its deal).
ROUND_START = {"kato": "round_started", "aetsch": "round_started",
               "krass_kariert": "deal_started", "karma": None}


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_first_deal_emits_each_seats_cards_and_the_rounds_start(game_id):
    engine = GAMES[game_id]
    players = max(engine.min_players, 3) if engine.max_players >= 3 else engine.min_players
    state, events = engine.new_game_with_events(players, seed=7)
    assert state == engine.new_game(players, seed=7)
    dealt = [e for e in events if e["type"] == "dealt"]
    assert [e["visible_to"] for e in dealt] == [[seat] for seat in range(players)]
    if ROUND_START[game_id]:
        (start,) = [e for e in events if e["type"] == ROUND_START[game_id]]
        assert start["visible_to"] == "all"
    # The cards dealt are the hands of the state.
    for e in dealt:
        assert sorted(e.get("cards") or e.get("hand")) == sorted(state["hands"][e["seat"]])


@pytest.mark.django_db(transaction=True)
def test_the_start_update_brings_each_seat_its_own_deal(gql):
    alice, bob = guest(gql, "Alice"), guest(gql, "Bob")
    table_id = two_player_table(alice, bob)
    query = """query($id: ID!) { table(id: $id) { view { ... on KatoView { hand } }
      events(limit: 5) { kind events { type data } } } }"""
    for client, seat in ((alice, 0), (bob, 1)):
        table = client(query, {"id": table_id})["table"]
        start = next(u for u in table["events"] if u["kind"] == "start")
        types = [e["type"] for e in start["events"]]
        assert types[0] == "match_started" and "round_started" in types
        (mine,) = [e for e in start["events"] if e["type"] == "dealt"]
        assert mine["data"]["seat"] == seat and len(mine["data"]["cards"]) == 7
