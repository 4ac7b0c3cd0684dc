"""Structured logs across real processes: the request line of a uvicorn node, and the request
id it carried into the bot tasks that request set off on a real Celery worker."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
import websockets
from channels.db import database_sync_to_async

from games.models import Table

from .play import ADD_BOT, CREATE, START, new_guest, open_table

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _json_lines(path: Path) -> list[dict]:
    """The log's JSON lines (a worker also prints Celery's banner, which is not a log line)."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.startswith("{")]


async def _wait_for(path: Path, match, timeout: float = 30) -> list[dict]:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        found = [line for line in _json_lines(path) if match(line)]
        if found:
            return found
        await asyncio.sleep(0.2)
    raise AssertionError(f"no matching line in {path.name}")


async def _finished(table_id: str, timeout: float = 120) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        table = await database_sync_to_async(Table.objects.get)(public_id=table_id)
        if table.status == "finished":
            return
        await asyncio.sleep(0.3)
    raise AssertionError(f"the bots' match at table {table_id} did not finish")


async def test_the_request_id_reaches_the_bot_tasks_the_request_set_off(
        live_server_url, celery_worker_proc, artifacts_dir):
    server_log = artifacts_dir / f"server-{urlsplit(live_server_url).port}.log"
    worker_log = Path(celery_worker_proc.log.name)
    http = await new_guest(live_server_url, "Operator")
    table = await http(CREATE, {"input": {"game": "kato", "options": {"rounds": 1},
                                          "seatCount": 4, "join": False}})
    table_id = table["createTable"]["table"]["id"]
    for _ in range(4):
        assert (await http(ADD_BOT, {"id": table_id, "level": "heuristic"}))["addBot"][
            "errors"] == []
    request_id = f"start-{table_id}-{time.time_ns()}"
    async with httpx.AsyncClient(timeout=30) as client:
        response = await client.post(live_server_url + "/graphql/", json={
            "query": START, "variables": {"id": table_id}}, headers={
            "Authorization": f"Bearer {http.token}", "X-Request-ID": request_id})
    assert response.json()["data"]["startTable"]["errors"] == []
    assert response.headers["X-Request-ID"] == request_id

    [line] = await _wait_for(server_log, lambda li: li.get("request_id") == request_id)
    assert line == {**line, "event": "request", "operation": "startTable", "outcome": "ok",
                    "status": 200, "path": "/graphql/", "method": "POST"}
    # The first bot's turn was queued by that request; each bot's move queues the next
    # turn from inside its task, which carries the same id on.
    tasks = await _wait_for(worker_log, lambda li: li.get("request_id") == request_id
                            and li.get("event") == "task" and li.get("task") == "games.bot_turn"
                            and li.get("state") == "SUCCESS")
    assert tasks[0]["task_id"] and tasks[0]["duration_ms"] >= 0 and tasks[0]["level"] == "info"

    # A websocket session: one line when it ends, with its own request id.
    ws_id = f"ws-{time.time_ns()}"
    url = live_server_url.replace("http", "ws", 1) + "/graphql/"
    async with websockets.connect(url, subprotocols=["graphql-transport-ws"],
                                  additional_headers={"X-Request-ID": ws_id}) as ws:
        await ws.send(json.dumps({"type": "connection_init",
                                  "payload": {"authorization": f"Bearer {http.token}"}}))
        assert json.loads(await ws.recv())["type"] == "connection_ack"
    [session] = await _wait_for(server_log, lambda li: li.get("request_id") == ws_id)
    # (uvicorn's own "accepted" / "connection open" lines are not written: this one is all)
    assert session == {**session, "event": "websocket", "accepted": True, "close_code": 1000,
                       "frames_in": 1, "path": "/graphql/"}
    await http.close()
    await _finished(table_id)  # the bots' match ends before the test's data is flushed

    for path in (server_log, worker_log):
        assert http.token not in path.read_text()
        assert http.token[4:] not in path.read_text()


VIEW = """query($id: ID!) { table(id: $id) { status version mySeat
  view { ... on KatoView { actors legalActions } } } }"""
ACT = """mutation($id: ID!, $a: ActionInput!, $v: Int!) {
  act(tableId: $id, action: $a, expectedVersion: $v) { version errors { code } } }"""


async def test_a_move_carries_its_request_id_to_the_bot_turn_it_makes_due(
        live_server_url, celery_worker_proc):
    """``act`` runs on the live path's own database threads: the id still reaches the task
    the move queued on commit."""
    worker_log = Path(celery_worker_proc.log.name)
    http = await new_guest(live_server_url, "Mover")
    table_id = await open_table(http, [], "kato", {"rounds": 1}, bots=1)
    assert (await http(START, {"id": table_id}))["startTable"]["errors"] == []
    seen = []
    carried = None
    async with httpx.AsyncClient(timeout=30) as client:
        for n in range(60):
            table = (await http(VIEW, {"id": table_id}))["table"]
            seen.append((table["status"], table["view"] and table["view"]["actors"]))
            if table["status"].lower() == "finished":
                break
            if table["status"].lower() != "playing" or table["mySeat"] not in table["view"]["actors"]:
                await asyncio.sleep(0.2)  # the bot's turn, or between rounds
                continue
            request_id = f"move-{table_id}-{n}-{time.time_ns()}"
            moved = await client.post(live_server_url + "/graphql/", json={
                "query": ACT, "variables": {"id": table_id, "v": table["version"],
                                            "a": table["view"]["legalActions"][0]}},
                headers={"Authorization": f"Bearer {http.token}", "X-Request-ID": request_id})
            assert moved.json()["data"]["act"]["errors"] == []
            after = (await http(VIEW, {"id": table_id}))["table"]
            if after["status"].lower() == "playing" and after["mySeat"] not in after["view"]["actors"]:
                carried = await _wait_for(worker_log, lambda li, rid=request_id: (
                    li.get("request_id") == rid and li.get("task") == "games.bot_turn"
                    and li.get("event") == "task"))
                break
        assert carried, f"the bot never got a turn after a move: {seen}"
        # Let the bot's turn end before the test's data goes.
        for _ in range(100):
            table = (await http(VIEW, {"id": table_id}))["table"]
            if table["status"].lower() != "playing" or table["mySeat"] in table["view"]["actors"]:
                break
            await asyncio.sleep(0.2)
    await http.close()
