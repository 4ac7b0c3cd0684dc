"""Finding 4 (expiry): a websocket outlived its token. A request with an expired token is
refused (`token_expired`); a socket opened with it is now closed when the token expires
(4401, reason `token_expired`; a revocation closes with 4403), and nothing a client sends on
it after that is applied. An end moved later meanwhile keeps the socket open."""

import asyncio
import json
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from accounts.models import ApiToken
from config.graphql import GraphQLWebsocketConsumer
from tests.hardening.test_token_revocation import REGISTER, _http, _me, _socket

pytestmark = pytest.mark.django_db(transaction=True)

NEW_TOKEN = 'mutation { createApiToken(name: "more") { token } }'


@pytest.fixture
def rita(client):
    return _http(client)(REGISTER, {"u": "rita", "p": "a long and fine password"})[
        "register"]["token"]


def _ends_in(seconds: float) -> None:
    ApiToken.objects.update(expires_at=timezone.now() + timedelta(seconds=seconds))


async def test_a_socket_is_closed_when_its_token_expires(client, rita):
    await database_sync_to_async(_ends_in)(1.5)
    comm = await _socket(rita)
    assert json.loads((await _me(comm))["text"])["payload"]["data"]["me"]["id"]
    await comm.receive_json_from(timeout=5)  # complete
    out = await comm.receive_output(timeout=5)
    assert out["type"] == "websocket.close" and out["code"] == 4401
    assert out.get("reason") == "token_expired"
    # A client that goes on: nothing it sends is applied, nothing comes back.
    await comm.send_json_to({"id": "2", "type": "subscribe", "payload": {"query": NEW_TOKEN}})
    assert await comm.receive_nothing(timeout=0.5)
    assert await database_sync_to_async(ApiToken.objects.count)() == 1
    await comm.disconnect()


async def test_a_frame_sent_past_the_expiry_is_not_applied_even_before_the_timer(
        client, rita, monkeypatch):
    async def late_timer(self):  # a busy loop: the timer has not run yet
        await asyncio.sleep(3600)

    monkeypatch.setattr(GraphQLWebsocketConsumer, "watch_expiry", late_timer)
    await database_sync_to_async(_ends_in)(1)
    comm = await _socket(rita)
    await asyncio.sleep(1.2)
    # The frame finds the token over: it closes the socket instead of being applied.
    await comm.send_json_to({"id": "1", "type": "subscribe", "payload": {"query": NEW_TOKEN}})
    out = await comm.receive_output(timeout=5)
    assert out["type"] == "websocket.close" and out["code"] == 4401
    assert await database_sync_to_async(ApiToken.objects.count)() == 1
    await comm.disconnect()


async def test_an_end_moved_later_keeps_the_socket_open(client, rita):
    await database_sync_to_async(_ends_in)(1)
    comm = await _socket(rita)
    await database_sync_to_async(_ends_in)(3600)
    await asyncio.sleep(1.5)
    assert json.loads((await _me(comm, "5"))["text"])["payload"]["data"]["me"]["id"]
    await comm.disconnect()


