"""Finding 7: a player who left mid-match kept receiving the seat's hand, and one `act` took
the seat back from the bot. Now the leaver watches as a spectator (no hand, no legal actions,
no private events) and `act` answers `not_seated`; a person replaced after missed turns still
takes the seat back by acting (the turn clock's rule)."""

import json

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from config.asgi import application
from games import scheduling
from games.models import Seat
from tests.api.test_tables import ACT, VIEW, guest, two_player_table

pytestmark = pytest.mark.django_db(transaction=True)

LEAVE = "mutation($id: ID!) { leaveTable(tableId: $id) { errors { code } } }"
SUBSCRIBE = """subscription($id: ID!, $after: Int!) { tableEvents(tableId: $id, afterSeq: $after) { seq kind events { type data }
  view { __typename ... on KatoView { seat hand legalActions } } } }"""


@pytest.fixture
def alice(gql):
    return guest(gql, "Alice")


@pytest.fixture
def bob(gql):
    return guest(gql, "Bob")


def _view(client, table_id):
    return client(VIEW, {"id": table_id})["table"]


def test_after_leaving_the_leaver_is_a_spectator_and_act_is_not_seated(alice, bob):
    table_id = two_player_table(alice, bob)
    mine = _view(bob, table_id)
    assert mine["mySeat"] == 1 and mine["view"]["hand"]
    assert bob(LEAVE, {"id": table_id})["leaveTable"]["errors"] == []
    scheduling.wait_idle(timeout=10)
    table = _view(bob, table_id)
    assert table["mySeat"] is None
    assert table["view"]["seat"] is None and table["view"]["hand"] is None
    assert table["view"]["legalActions"] == []
    # Whatever the leaver sends, the seat stays with the bot.
    legal = mine["view"]["legalActions"] or [{"draw": True}]
    answer = bob(ACT, {"id": table_id, "a": legal[0], "v": table["version"]})["act"]
    assert answer["errors"][0]["code"] == "not_seated"
    seat = Seat.objects.get(table__public_id=table_id, position=1)
    assert seat.taken_over_by_bot and seat.left_at is not None
    assert bob(LEAVE, {"id": table_id})["leaveTable"]["errors"][0]["code"] == "not_seated"
    assert bob("{ myTables { id } }")["myTables"] == []


def test_leaving_at_ones_own_turn_then_acting_at_once_is_refused(alice, bob):
    table_id = two_player_table(alice, bob)
    for client in (alice, bob):
        view = _view(client, table_id)
        if view["view"]["legalActions"]:
            break
    assert client(LEAVE, {"id": table_id})["leaveTable"]["errors"] == []
    answer = client(ACT, {"id": table_id, "a": view["view"]["legalActions"][0],
                          "v": view["version"]})["act"]
    assert answer["errors"][0]["code"] == "not_seated"
    scheduling.wait_idle(timeout=10)


async def test_the_leavers_subscription_gets_the_spectators_view_from_then_on(alice, bob):
    table_id = await database_sync_to_async(two_player_table)(alice, bob)
    await database_sync_to_async(scheduling.wait_idle)(timeout=10)
    last = (await database_sync_to_async(lambda: bob("query($id: ID!) { table(id: $id) "
                                                      "{ lastSeq } }", {"id": table_id}))())
    after = last["table"]["lastSeq"] - 1
    comm = WebsocketCommunicator(application, "/graphql/", subprotocols=["graphql-transport-ws"])
    await comm.connect()
    await comm.send_json_to({"type": "connection_init", "payload": {"token": bob.token}})
    assert (await comm.receive_json_from(timeout=5))["type"] == "connection_ack"
    await comm.send_json_to({"id": "1", "type": "subscribe",
                             "payload": {"query": SUBSCRIBE, "variables": {"id": table_id, "after": after}}})
    first = await comm.receive_json_from(timeout=5)
    assert first["payload"]["data"]["tableEvents"]["view"]["hand"]
    await database_sync_to_async(lambda: bob(LEAVE, {"id": table_id}))()
    later = []
    # The leave itself, then the bot's and Alice's moves, until the match moves on a bit.
    while len(later) < 4:
        msg = await comm.receive_json_from(timeout=20)
        if msg["type"] != "next":
            break
        later.append(msg["payload"]["data"]["tableEvents"])
        await database_sync_to_async(_alice_moves)(alice, table_id)
    assert later, "no update after the leave"
    for update in later:
        view = update["view"]
        assert view is None or (view["seat"] is None and view["hand"] is None
                                and view["legalActions"] == [])
        # The seat's private events (its own draws) reach no one now, the leaver included.
        assert not [e for e in update["events"] if e["type"] == "drew_cards"]
        assert "cards" not in json.dumps([e for e in update["events"] if e["type"] == "drew"])
    await comm.disconnect()
    await database_sync_to_async(scheduling.wait_idle)(timeout=10)


def _alice_moves(alice, table_id):
    scheduling.wait_idle(timeout=10)
    view = _view(alice, table_id)
    if view["status"] == "PLAYING" and view["view"]["legalActions"]:
        alice(ACT, {"id": table_id, "a": view["view"]["legalActions"][0],
                    "v": view["version"]})
