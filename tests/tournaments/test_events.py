"""tournamentEvents over a websocket in one process: each subscription sees only its own
tournament, though every subscription of a socket shares one consumer."""

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from accounts import services as account_services
from config.asgi import application
from tournaments import services

from .helpers import bots, organiser

pytestmark = pytest.mark.django_db(transaction=True)

EVENTS = """subscription($id: ID!) { tournamentEvents(tournamentId: $id) {
  tournamentId kind status round } }"""


def _setup():
    org = organiser()
    a, b = (services.tournament_create(organiser=org, name=n, game="kato", format="swiss",
                                       table_size=2) for n in ("A", "B"))
    _, token = account_services.api_token_create(player=org, name="ws")
    return a.pk, b.pk, token


async def test_each_subscription_gets_only_its_tournaments_events():
    a, b, token = await database_sync_to_async(_setup)()
    ws = WebsocketCommunicator(application, "/graphql/", subprotocols=["graphql-transport-ws"])
    assert (await ws.connect())[0]
    await ws.send_json_to({"type": "connection_init", "payload": {"token": token}})
    assert (await ws.receive_json_from(timeout=5))["type"] == "connection_ack"
    for op, tid in (("a", a), ("b", b)):
        await ws.send_json_to({"id": op, "type": "subscribe",
                               "payload": {"query": EVENTS, "variables": {"id": str(tid)}}})
        first = await ws.receive_json_from(timeout=5)
        assert first["id"] == op
        assert first["payload"]["data"]["tournamentEvents"]["kind"] == "subscribed"
    bot = (await database_sync_to_async(bots)(1))[0]
    await database_sync_to_async(services.tournament_register)(player=bot, tournament_id=b)
    got = await ws.receive_json_from(timeout=5)
    assert got["id"] == "b"
    assert got["payload"]["data"]["tournamentEvents"] == {
        "tournamentId": str(b), "kind": "registrations_changed", "status": "REGISTRATION",
        "round": 0}
    assert await ws.receive_nothing(0.3)  # nothing for subscription "a"
    await ws.disconnect()
