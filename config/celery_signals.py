"""Celery signal receivers of the ops side: worker heartbeat (readiness), task metrics and
bot turn latency, and the request id carried from a request into the tasks it enqueued
(see config/logging.py). Connected on import by config/celery.py; no task code changes.
"""

from __future__ import annotations

import time
from datetime import datetime

from celery.signals import (
    before_task_publish,
    task_failure,
    task_postrun,
    task_prerun,
    worker_ready,
    worker_shutdown,
)

PUBLISHED_AT = "stapel_published_at"
_started: dict[str, float] = {}


def _header(request, name: str):
    value = getattr(request, name, None)
    if value is None:
        value = (getattr(request, "headers", None) or {}).get(name)
    return value


@before_task_publish.connect
def _stamp(headers=None, **_):
    if headers is not None:
        headers.setdefault(PUBLISHED_AT, time.time())


@worker_ready.connect
def _worker_ready(sender=None, **_):
    from django.conf import settings

    from . import health

    health.worker_heartbeat_start(getattr(sender, "hostname", None))
    port = getattr(settings, "STAPEL_WORKER_METRICS_PORT", 0)
    if port:
        from prometheus_client import start_http_server

        from . import metrics

        start_http_server(port, addr=settings.STAPEL_WORKER_METRICS_ADDR,
                          registry=metrics.registry())


@worker_shutdown.connect
def _worker_shutdown(**_):
    from . import health

    health.worker_heartbeat_stop()


@task_prerun.connect
def _task_start(task_id=None, task=None, **_):
    _started[task_id] = time.monotonic()


@task_failure.connect
def _task_failed(task_id=None, sender=None, **_):
    if sender is not None:
        sender.request.stapel_failed = True


@task_postrun.connect
def _task_done(task_id=None, task=None, state=None, **_):
    from . import metrics

    started = _started.pop(task_id, None)
    if task is None or started is None:
        return
    metrics.task_observe(task.name, time.monotonic() - started,
                         failed=state == "FAILURE" or getattr(task.request, "stapel_failed",
                                                              False))
    if task.name == "games.bot_turn":
        metrics.bot_turn_observe(time.time() - _due_at(task.request))


def _due_at(request) -> float:
    """When the task was meant to run: its ETA (countdown), else when it was published."""
    eta = getattr(request, "eta", None)
    if eta:
        try:
            return datetime.fromisoformat(str(eta)).timestamp()
        except ValueError:
            pass
    published = _header(request, PUBLISHED_AT)
    return float(published) if published else time.time()
