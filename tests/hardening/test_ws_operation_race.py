"""Found by the fuzz run: an operation that was still running when its socket closed logged
``KeyError`` with a traceback from strawberry's handler. The close de-registers each
operation and cancels its task; an operation waiting in an await that does not honour the
cancellation (asgiref's wait on a thread in some paths; any library's) runs on to its end
and de-registered its id a second time. Worse, when the client had completed it and reused
its id meanwhile, the old operation's end de-registered the new one. An operation now
de-registers only itself (config/ws_protocol.py)."""

import asyncio
import logging

import pytest
from channels.testing import WebsocketCommunicator

from config import cost
from config.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def stubborn_await(monkeypatch):
    """Every operation waits 0.4 s in an await that ignores cancellation (where its query
    budget is spent)."""
    async def stubborn(*args, **kwargs):
        waiting = asyncio.ensure_future(asyncio.sleep(0.4))
        while not waiting.done():
            try:
                await asyncio.shield(waiting)
            except asyncio.CancelledError:
                continue
        return None

    monkeypatch.setattr(cost, "_budget_spend", stubborn)


async def _socket(token):
    comm = WebsocketCommunicator(application, "/graphql/", subprotocols=["graphql-transport-ws"])
    await comm.connect()
    await comm.send_json_to({"type": "connection_init", "payload": {"token": token}})
    assert (await comm.receive_json_from(timeout=5))["type"] == "connection_ack"
    return comm


def _faults(caplog):
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


async def test_an_operation_that_outlives_its_socket_logs_no_fault(guest_token, caplog,
                                                                   stubborn_await):
    comm = await _socket(guest_token)
    await comm.send_json_to({"id": "1", "type": "subscribe",
                             "payload": {"query": "{ me { id } }"}})
    await asyncio.sleep(0.1)  # the operation is in its await now
    await comm.disconnect(timeout=3)
    await asyncio.sleep(0.6)  # and ends after the socket
    assert not _faults(caplog)


async def test_an_id_reused_after_complete_keeps_its_new_operation(guest_token, caplog,
                                                                   stubborn_await):
    comm = await _socket(guest_token)
    lobby = "subscription { lobbyEvents { tableId } }"
    await comm.send_json_to({"id": "1", "type": "subscribe", "payload": {"query": "{ me { id } }"}})
    await asyncio.sleep(0.1)
    await comm.send_json_to({"id": "1", "type": "complete"})
    await comm.send_json_to({"id": "1", "type": "subscribe", "payload": {"query": lobby}})
    await asyncio.sleep(1)  # the first operation ended meanwhile
    # The lobby subscription still holds id 1: another subscribe with it is refused (4409).
    await comm.send_json_to({"id": "1", "type": "subscribe", "payload": {"query": lobby}})
    while (out := await comm.receive_output(timeout=5))["type"] != "websocket.close":
        pass
    assert out["code"] == 4409
    assert not _faults(caplog)
    await comm.disconnect()
