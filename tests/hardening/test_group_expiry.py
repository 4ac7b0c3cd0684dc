"""Finding 12 (second half): channels of a killed web node stayed in Redis groups for a day
(`group_expiry`), filling the logs with "over capacity". The expiry is now short
(WS_GROUP_EXPIRY), and every live websocket re-joins its groups well within it, so a
socket that lives longer than the expiry still receives everything."""

import asyncio
import os

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from accounts.models import Player
from config.asgi import application
from games import services
from tests.api.test_tables import guest

pytestmark = [pytest.mark.django_db(transaction=True),
              pytest.mark.skipif(not os.environ.get("REDIS_URL"),
                                 reason="group expiry is the Redis channel layer's")]


def test_the_group_expiry_is_short_and_below_a_day():
    from django.conf import settings

    assert settings.CHANNEL_LAYERS["default"]["CONFIG"]["group_expiry"] <= 600


async def test_a_socket_older_than_the_group_expiry_still_receives(gql, settings):
    settings.WS_GROUP_EXPIRY = 2
    settings.CHANNEL_LAYERS = {"default": {**settings.CHANNEL_LAYERS["default"], "CONFIG": {
        **settings.CHANNEL_LAYERS["default"]["CONFIG"], "group_expiry": 2}}}
    alice = await database_sync_to_async(guest)(gql, "Alice")
    comm = WebsocketCommunicator(application, "/graphql/", subprotocols=["graphql-transport-ws"])
    await comm.connect()
    await comm.send_json_to({"type": "connection_init", "payload": {"token": alice.token}})
    assert (await comm.receive_json_from(timeout=5))["type"] == "connection_ack"
    await comm.send_json_to({"id": "1", "type": "subscribe",
                             "payload": {"query": "subscription { lobbyEvents { tableId } }"}})
    await asyncio.sleep(3.5)  # past the expiry of the first join
    player = await database_sync_to_async(Player.objects.get)()
    table = await database_sync_to_async(services.table_create)(creator=player, game="kato")
    msg = await comm.receive_json_from(timeout=5)
    assert msg["payload"]["data"]["lobbyEvents"]["tableId"] == table.public_id
    await comm.disconnect()
