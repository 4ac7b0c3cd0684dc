"""The embedded default as `make run` serves it: no DATABASE_URL, no REDIS_URL. A real
uvicorn process on a fresh SQLite file answers GraphQL, bots play in-process, rounds are
scored and subscriptions push — with nothing else installed."""

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.conftest import Proc, _free_port
from tests.integration.play import Seat, assert_gapless, new_guest, open_table

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def embedded_server(tmp_path):
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "REDIS_URL", "CELERY_TASK_ALWAYS_EAGER",
                        "DJANGO_SETTINGS_MODULE")}
    env.update(STAPEL_DATA_DIR=str(tmp_path), BOT_PAUSE_SECONDS="0", ROUND_PAUSE_SECONDS="0")
    subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env,
                   check=True)
    port = _free_port()
    proc = Proc([sys.executable, "-m", "uvicorn", "config.asgi:application", "--host",
                 "127.0.0.1", "--port", str(port), "--log-level", "warning"],
                env, tmp_path / "server.log")
    import time

    import httpx

    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            if httpx.post(url + "/graphql/", json={"query": "{ __typename }"},
                          timeout=1).json() == {"data": {"__typename": "Query"}}:
                break
        except httpx.HTTPError:
            time.sleep(0.1)
    else:
        proc.stop()
        raise RuntimeError((tmp_path / "server.log").read_text())
    yield url
    proc.stop()


def test_embedded_default_serves_a_match_against_a_bot(embedded_server):
    async def scenario():
        person = await new_guest(embedded_server, "Solo")
        table_id = await open_table(person, [], "kato", {"rounds": 1}, bots=1)
        seat = Seat(embedded_server, person, table_id, 1)
        await seat.connect()
        await person('mutation($id: ID!) { startTable(tableId: $id) { errors { code } } }',
                     {"id": table_id})
        await seat.play(timeout=30)
        await seat.disconnect()
        return seat

    seat = asyncio.run(scenario())
    assert_gapless(seat.updates)
    kinds = {u["kind"] for u in seat.updates}
    assert {"bot", "next_round"} <= kinds  # the bot played and the round was scored
    assert seat.updates[-1]["status"] == "FINISHED"
