"""Replays: every ended match rebuilds from its export alone with the pure engine; nothing of a
running match leaks; an ended private match is for its players and staff only."""

import json

import pytest

from accounts import services as account_services
from accounts.models import Player
from games import scheduling, services
from games.engine import GAMES
from games.models import Table
from tests.api.test_tables import START, create, guest
from tests.tournaments.helpers import bots, organiser

pytestmark = pytest.mark.django_db(transaction=True)

REPLAY = """query($id: ID!) { tableReplay(tableId: $id) { tableId game seed deck seatCount
  players { seat playerId isBot } steps { seq kind engine seat action events hiddenEvents }
  finalState document } }"""

# Every game, several rounds where the game has them, so start_next_round is rebuilt too.
MATCHES = [("kato", {"rounds": 2}, 4), ("krass_kariert", {"chips": 1}, 4),
           ("karma", {}, 3), ("aetsch", {"rounds": 2}, 3), ("kato", {"rounds": 1}, 2)]


def _bot_match(game: str, options: dict, players: int) -> Table:
    table = services.table_create_seated(creator=organiser(f"org-{game}-{players}"), game=game,
                                         options=options, players=bots(players))
    assert scheduling.wait_idle(timeout=120)
    table.refresh_from_db()
    assert table.status == "finished", table.status
    return table


def rebuild(doc: dict) -> dict:
    """A client's rebuild: the export and the pure engine, nothing else."""
    engine = GAMES[doc["table"]["game"]]
    state = None
    for step in doc["steps"]:
        if step["engine"] == "new_game":
            state = engine.new_game(doc["seat_count"], int(doc["seed"]), doc["options"])
        elif step["engine"] == "apply":
            state, _ = engine.apply(state, step["seat"], step["action"])
        elif step["engine"] == "start_next_round":
            state, _ = engine.start_next_round(state)
    return state


def _export(client, table_id, token=None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return client.get(f"/api/tables/{table_id}/replay.json", headers=headers)


def test_every_game_rebuilds_from_its_export_to_the_stored_final_state(client):
    for game, options, players in MATCHES:
        table = _bot_match(game, options, players)
        response = _export(client, table.public_id)
        assert response.status_code == 200
        assert response["Content-Type"] == "application/json; charset=utf-8"
        assert response["Content-Disposition"] == (
            f'inline; filename="stapel-table-{table.public_id}-replay.json"')
        doc = json.loads(response.content)
        assert doc["format"] == "stapel-replay/1"
        assert rebuild(doc) == table.state == doc["final_state"], game
        kinds = [s["engine"] for s in doc["steps"]]
        assert kinds.count("new_game") == 1
        if options.get("rounds") == 2:
            assert kinds.count("start_next_round") == 1, game
        # The events each step sends are the engine's: a rebuild that applies them yields them.
        engine = GAMES[game]
        state = None
        for step in doc["steps"]:
            if step["engine"] == "apply":
                state, events = engine.apply(state, step["seat"], step["action"])
                public = [e for e in events if e.get("visible_to", "all") == "all"]
                assert step["events"] == [{k: v for k, v in e.items() if k != "visible_to"}
                                          for e in public]
                assert step["hidden_events"] == [e for e in events if e not in public]
            elif step["engine"] == "new_game":
                state = engine.new_game(doc["seat_count"], int(doc["seed"]), doc["options"])
            elif step["engine"] == "start_next_round":
                state, _ = engine.start_next_round(state)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_deck_is_the_draw_order_of_the_first_deal(game):
    from games.replays import first_deck

    engine = GAMES[game]
    options = engine.validate_options({})
    for seed in (1, 2**61 + 12345, 987654321):
        players = engine.min_players + 1
        dealt = engine.new_game(players, seed, options)
        again = engine.new_game(players, seed, options, deck=first_deck(engine, seed, options))
        # Only the RNG differs: a given deck is not shuffled, so the RNG did not move.
        assert {k: v for k, v in again.items() if k != "rng"} == {
            k: v for k, v in dealt.items() if k != "rng"}


def test_the_graphql_replay_is_the_export(client, gql):
    table = _bot_match("kato", {"rounds": 1}, 2)
    replay = gql(REPLAY, {"id": table.public_id})["tableReplay"]
    assert replay["document"] == json.loads(_export(client, table.public_id).content)
    assert replay["seed"] == str(table.seed) and replay["game"] == "kato"
    assert replay["finalState"] == table.state
    assert [s["seq"] for s in replay["steps"]] == [s["seq"] for s in replay["document"]["steps"]]
    assert replay["deck"] == replay["document"]["deck"]


def _private_match(alice, bob):
    table = create(alice, seatCount=2, visibility="PRIVATE", options={"rounds": 1})["table"]
    assert bob("mutation($c: String!) { joinTable(inviteCode: $c) { errors { code } } }",
               {"c": table["inviteCode"]})["joinTable"]["errors"] == []
    assert alice(START, {"id": table["id"]})["startTable"]["errors"] == []
    return Table.objects.get(public_id=table["id"])


def _staff_token() -> str:
    staff = Player.objects.create(username="mod", display_name="Mod", password="!",
                                  is_staff=True)
    return account_services.api_token_create(player=staff, name="t")[1]


def test_nothing_of_a_running_match_leaks_to_anyone_but_staff(gql, client):
    alice, bob, eve = guest(gql, "Alice"), guest(gql, "Bob"), guest(gql, "Eve")
    table = _private_match(alice, bob)
    hands = [card for hand in table.state["hands"] for card in hand]
    for who in (alice, bob, eve, gql):
        body = who.raw(REPLAY, {"id": table.public_id}).json()
        assert body["data"] is None
        (error,) = body["errors"]
        assert error["extensions"]["code"] in ("not_finished", "not_found")
        response = _export(client, table.public_id, who.token)
        assert response.status_code in (409, 404)
        for text in (json.dumps(body), response.content.decode()):
            assert str(table.seed) not in text and "deck" not in text and "hand" not in text
    # The players learn that it runs; outsiders that it does not exist.
    assert alice.raw(REPLAY, {"id": table.public_id}).json()["errors"][0]["extensions"][
        "code"] == "not_finished"
    assert _export(client, table.public_id, eve.token).status_code == 404
    assert _export(client, table.public_id).json() == {"error": {"code": "not_found",
                                                          "message": "no such table"}}
    # Staff see the private table exists, and still no replay while it runs.
    response = _export(client, table.public_id, _staff_token())
    assert response.status_code == 409 and response.json()["error"]["code"] == "not_finished"
    assert hands  # the deal happened; none of its cards appeared above
    for card in set(hands):
        assert f'"{card}"' not in response.content.decode()


def test_an_ended_private_match_is_for_its_players_and_staff(gql, client):
    alice, bob, eve = guest(gql, "Alice"), guest(gql, "Bob"), guest(gql, "Eve")
    table = _private_match(alice, bob)
    services.table_abort(actor=None, table_id=table.pk, reason="test")
    table.refresh_from_db()
    for who in (alice, bob):
        assert _export(client, table.public_id, who.token).json()["final_state"] == table.state
        assert who(REPLAY, {"id": table.public_id})["tableReplay"]["seed"] == str(table.seed)
    assert _export(client, table.public_id, _staff_token()).status_code == 200
    assert _export(client, table.public_id, eve.token).status_code == 404
    assert _export(client, table.public_id).status_code == 404
    assert eve.raw(REPLAY, {"id": table.public_id}).json()["errors"][0]["extensions"][
        "code"] == "not_found"


def test_an_ended_public_match_is_for_anyone_and_a_bad_token_is_refused(client):
    table = _bot_match("kato", {"rounds": 1}, 2)
    assert _export(client, table.public_id).status_code == 200
    response = _export(client, table.public_id, "nonsense")
    assert response.status_code == 401 and response.json()["error"]["code"] == "invalid_token"
    assert _export(client, 10**9).status_code == 404
    assert client.post(f"/api/tables/{table.public_id}/replay.json").status_code == 405


def test_a_table_aborted_before_its_deal_has_no_replay(gql, client):
    alice = guest(gql, "Alice")
    table = create(alice, seatCount=2)["table"]
    services.table_abort(actor=None, table_id=Table.objects.get(public_id=table["id"]).pk, reason="test")
    response = _export(client, table["id"], alice.token)
    assert response.status_code == 409 and response.json()["error"]["code"] == "not_started"
