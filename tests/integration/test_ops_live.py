"""Readiness and worker metrics with real processes on a Redis of the test's own: a uvicorn
node and a Celery worker are ready together, the worker's /metrics counts the bot turns it
played, and stopping that Redis (never the shared one) turns readiness to 503."""

from __future__ import annotations

import asyncio
import socket
import time

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from .conftest import service_env, start_server, start_worker
from .play import ADD_BOT, CREATE, START, new_guest

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _samples(text: str) -> dict:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


async def _poll(fetch, predicate, timeout: float = 30):
    end = time.monotonic() + timeout
    while True:
        value = await fetch()
        if predicate(value) or time.monotonic() > end:
            return value
        await asyncio.sleep(0.3)


async def test_ready_with_a_worker_then_503_when_redis_stops(django_db_setup, own_redis,
                                                            artifacts_dir, tmp_path):
    metrics_port = _free_port()
    (tmp_path / "web").mkdir()
    (tmp_path / "worker").mkdir()
    env = service_env(REDIS_URL=own_redis.url(1), CELERY_BROKER_URL=own_redis.url(1),
                      RATE_LIMIT_STORAGE=own_redis.url(1), HEALTH_WORKER_MAX_AGE="10")
    server, url = start_server(artifacts_dir, {**env, "PROMETHEUS_MULTIPROC_DIR":
                                               str(tmp_path / "web")})
    worker = start_worker(artifacts_dir, {**env, "WORKER_METRICS_PORT": str(metrics_port),
                                          "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "worker")},
                          name="ops")
    try:
        async with httpx.AsyncClient(timeout=10) as client:
            async def ready():
                return await client.get(url + "/health/ready")

            answer = await _poll(ready, lambda r: r.status_code == 200)
            assert answer.status_code == 200, answer.text
            checks = answer.json()["checks"]
            assert {name: c["status"] for name, c in checks.items()} == {
                "database": "ok", "redis": "ok", "worker": "ok"}
            assert checks["database"]["vendor"] == "postgresql"

            # Bots play on the worker; its own /metrics counts their turns.
            http = await new_guest(url, "Ops")
            table = await http(CREATE, {"input": {"game": "kato", "options": {"rounds": 1},
                                                  "seatCount": 2, "join": False}})
            table_id = table["createTable"]["table"]["id"]
            for _ in range(2):
                await http(ADD_BOT, {"id": table_id, "level": "heuristic"})
            assert (await http(START, {"id": table_id}))["startTable"]["errors"] == []
            await http.close()
            key = ("stapel_celery_task_seconds_count", (("task", "games.bot_turn"),))

            async def worker_metrics():
                # Until the worker's exporter listens, its port may answer with something
                # else (or nothing): that is "not yet", not a failure.
                try:
                    return _samples((await client.get(f"http://127.0.0.1:{metrics_port}/")).text)
                except (httpx.HTTPError, ValueError):
                    return {}

            samples = await _poll(worker_metrics, lambda s: s.get(key, 0) >= 3)
            assert samples[key] >= 3
            assert samples[("stapel_bot_turn_seconds_count", ())] >= 3

            own_redis.stop()
            answer = await client.get(url + "/health/ready")
            assert answer.status_code == 503
            checks = answer.json()["checks"]
            assert checks["redis"]["status"] == "down" and checks["redis"]["error"]
            assert checks["database"]["status"] == "ok"
            assert (await client.get(url + "/health/live")).status_code == 200
    finally:
        worker.stop(timeout=5)
        server.stop()
