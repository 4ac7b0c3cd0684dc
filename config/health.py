"""Liveness and readiness for load balancers and orchestrators.

``/health/live``: the process answers (no dependency checked: restarting a node does not
fix the database). ``/health/ready``: what this node needs to serve, each with its status
and latency, and 503 when one is down: PostgreSQL (or the SQLite file), Redis (channel
layer, broker and rate limits) and a Celery worker heartbeat younger than
``HEALTH_WORKER_MAX_AGE`` seconds. Workers write that heartbeat to Redis every few seconds
(``worker_heartbeat_start``, run by config/celery_signals.py); on the embedded default tasks
run in-process and there is nothing to wait for. ``/health/`` stays the old short answer.

django-health-check was considered; it checks the cache and storage but not the channel
layer or a worker heartbeat in Redis, and three checks are a page of code.
"""

from __future__ import annotations

import socket
import threading
import time

from django.conf import settings
from django.db import connection
from django.http import JsonResponse

HEARTBEAT_PREFIX = "stapel:health:worker:"
HEARTBEAT_EVERY = 5.0


def _redis():
    import redis

    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=1, socket_connect_timeout=1)


def _timed(check) -> dict:
    started = time.perf_counter()
    try:
        result = {"status": "ok", **(check() or {})}
    except Exception as exc:  # noqa: BLE001 - any failure means "down"; the kind is shown
        result = {"status": "down", "error": type(exc).__name__}
    result["latency_ms"] = round((time.perf_counter() - started) * 1000, 2)
    return result


def _database() -> dict:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return {"vendor": connection.vendor}


def _redis_check() -> dict:
    if not settings.REDIS_URL:
        return {"status": "ok", "note": "in-memory channel layer"}
    _redis().ping()
    return {}


def _worker() -> dict:
    if getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False):
        return {"note": "tasks run in-process"}
    client = _redis()
    newest = 0.0
    for key in client.scan_iter(match=HEARTBEAT_PREFIX + "*", count=100):
        value = client.get(key)
        if value:
            newest = max(newest, float(value))
    age = time.time() - newest if newest else None
    if age is None or age > settings.STAPEL_HEALTH_WORKER_MAX_AGE:
        raise WorkerSilent
    return {"age_s": round(age, 1)}


class WorkerSilent(Exception):
    """No worker heartbeat within the allowed age."""


def live(request):
    return JsonResponse({"status": "ok"})


def ready(request):
    checks = {"database": _timed(_database), "redis": _timed(_redis_check),
              "worker": _timed(_worker)}
    down = [name for name, check in checks.items() if check["status"] != "ok"]
    return JsonResponse({"status": "down" if down else "ok", "checks": checks},
                        status=503 if down else 200)


# --- worker side ----------------------------------------------------------------------------
_stop = threading.Event()


def worker_heartbeat_start(hostname: str | None = None) -> threading.Thread | None:
    """In a Celery worker: write this worker's heartbeat to Redis until it stops."""
    if not settings.REDIS_URL:
        return None
    key = HEARTBEAT_PREFIX + (hostname or socket.gethostname())
    ttl = max(int(settings.STAPEL_HEALTH_WORKER_MAX_AGE) * 2, 10)
    _stop.clear()

    def beat():
        client = _redis()
        while not _stop.is_set():
            try:
                client.set(key, str(time.time()), ex=ttl)
            except Exception:  # noqa: BLE001, S110 - Redis away: readiness shows it
                pass
            _stop.wait(HEARTBEAT_EVERY)
        try:
            client.delete(key)
        except Exception:  # noqa: BLE001, S110
            pass

    thread = threading.Thread(target=beat, name="stapel-heartbeat", daemon=True)
    thread.start()
    return thread


def worker_heartbeat_stop() -> None:
    _stop.set()
