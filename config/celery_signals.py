"""Celery signal receivers of the ops side: worker heartbeat (readiness), task metrics and
bot turn latency, and the request id carried from a request into the tasks it enqueued
(config/logs.py), with one log line per task run. Connected on import by config/celery.py;
no task code changes: every task published while a request id is bound (a request, a
websocket session, or a task run that itself carries one) takes it along in its headers.
"""

from __future__ import annotations

import gc
import time
from datetime import datetime

import structlog
from celery.signals import (
    before_task_publish,
    task_failure,
    task_postrun,
    task_prerun,
    worker_process_init,
    worker_ready,
    worker_shutdown,
)

PUBLISHED_AT = "stapel_published_at"
REQUEST_ID = "stapel_request_id"
_started: dict[str, float] = {}
_bound: dict[str, dict] = {}
task_log = structlog.get_logger("stapel.task")


def _header(request, name: str):
    value = getattr(request, name, None)
    if value is None:
        value = (getattr(request, "headers", None) or {}).get(name)
    return value


@worker_process_init.connect
def _freeze_what_is_loaded(**_):
    """As config/asgi.py does for a web process: what the worker loaded (Django, the engines,
    the bots) is frozen out of the collector's generations, so a bot turn's collections do
    not walk it (and forked children keep sharing its pages)."""
    gc.collect()
    gc.freeze()


# Pools a prefork child inherited from its parent: kept referenced, never used or closed
# (their sockets are the parent's; closing them would end the parent's sessions).
_INHERITED_POOLS: list = []


@worker_process_init.connect
def _one_connection_per_child(**_):
    """A prefork child keeps one plain connection for its life instead of a pool: it runs
    one task at a time on one thread, and Celery's Django fixup closes a child's pool after
    every task (see config/celery.py). Connections that went bad are closed before the next
    task (``_task_start``), as Django does before each request."""
    from django.db import connections

    for conn in connections.all():
        if conn.settings_dict.get("OPTIONS", {}).pop("pool", None) is None:
            continue
        inherited = type(conn)._connection_pools.pop(conn.alias, None)
        if inherited is not None:
            _INHERITED_POOLS.append(inherited)
        conn.settings_dict["CONN_MAX_AGE"] = None


@before_task_publish.connect
def _stamp(headers=None, **_):
    if headers is not None:
        headers.setdefault(PUBLISHED_AT, time.time())
        request_id = structlog.contextvars.get_contextvars().get("request_id")
        if request_id:
            headers.setdefault(REQUEST_ID, request_id)


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
    from django.db import close_old_connections

    _started[task_id] = time.monotonic()
    if task is not None and not getattr(task.request, "is_eager", False):
        close_old_connections()  # one that broke in the last task is not used again
    # The id of the request that queued it; a task of beat's starts a chain of its own. An
    # eager task (the embedded default) runs inside its request and keeps that request's id.
    context = structlog.contextvars.get_contextvars()
    request_id = (_header(task.request, REQUEST_ID) if task is not None else None) \
        or context.get("request_id") or f"task-{task_id}"
    _bound[task_id] = structlog.contextvars.bind_contextvars(
        request_id=request_id, task=getattr(task, "name", None), task_id=task_id)


@task_failure.connect
def _task_failed(task_id=None, sender=None, **_):
    if sender is not None:
        sender.request.stapel_failed = True


@task_postrun.connect
def _task_done(task_id=None, task=None, state=None, **_):
    from . import metrics

    started = _started.pop(task_id, None)
    bound = _bound.pop(task_id, None)
    if task is None or started is None:
        if bound:
            structlog.contextvars.reset_contextvars(**bound)
        return
    failed = state == "FAILURE" or getattr(task.request, "stapel_failed", False)
    task_log.log(40 if failed else 20, "task", state=state,
                 duration_ms=round((time.monotonic() - started) * 1000, 2),
                 retries=getattr(task.request, "retries", 0),
                 eager=bool(getattr(task.request, "is_eager", False)))
    if bound:
        structlog.contextvars.reset_contextvars(**bound)
    metrics.task_observe(task.name, time.monotonic() - started, failed=failed)
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
