"""Prometheus metrics: their definitions, the small functions the code calls to record them,
and the ``/metrics`` view.

Several uvicorn workers (or Celery worker processes on the same host) share their figures
when ``PROMETHEUS_MULTIPROC_DIR`` names a writable, emptied-at-start directory: each process
writes its own files there and ``/metrics`` adds them up (prometheus-client's multiprocess
mode). Without it, ``/metrics`` shows this process alone. Tables by status are counted in
the database at scrape time, so every node reports the same truth.

``/metrics`` answers only loopback addresses unless ``METRICS_ALLOWED_ADDRESSES`` (addresses
or networks) or a ``METRICS_TOKEN`` (sent as ``Authorization: Bearer <token>``) says more.

Labels stay bounded: a GraphQL operation is named by its root fields (the schema's, not the
client's operation name), an outcome by a fixed set of words, a task by its registered name.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import time

from django.conf import settings
from django.http import HttpResponse
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily

from . import logs

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)

REQUESTS = Counter("stapel_graphql_requests", "GraphQL operations over HTTP",
                   ["operation", "outcome"])
MOVES = Counter("stapel_moves_applied", "Moves applied, people's and bots'", ["game", "kind"])
FANOUT = Histogram("stapel_move_fanout_seconds",
                   "From a move's write to its events handed to the channel layer",
                   ["game"], buckets=LATENCY_BUCKETS)
WEBSOCKETS = Gauge("stapel_websockets_open", "Open GraphQL websockets",
                   multiprocess_mode="livesum")
SUBSCRIPTIONS = Gauge("stapel_subscriptions_open",
                      "Subscriptions listening to the channel layer",
                      multiprocess_mode="livesum")
TASK_SECONDS = Histogram("stapel_celery_task_seconds", "Celery task run time", ["task"],
                         buckets=LATENCY_BUCKETS)
TASK_FAILURES = Counter("stapel_celery_task_failures", "Celery tasks that raised", ["task"])
BOT_TURN = Histogram("stapel_bot_turn_seconds",
                     "From a bot's turn being due to its move applied (worker tasks)",
                     buckets=LATENCY_BUCKETS)
TURN_CLOCK_LATE = Histogram("stapel_turn_clock_late_seconds",
                            "From a turn clock's deadline to its default move applied",
                            buckets=LATENCY_BUCKETS)
SQL_STATEMENTS = Counter(
    "stapel_sql_statements",
    "SQL round trips sent to the database: every statement through Django's cursor, the "
    "BEGIN and COMMIT/ROLLBACK psycopg sends around a transaction, and what other code "
    "reports through sql_statements()")


# --- recording ---------------------------------------------------------------------------
def request_observe(operation: str, outcome: str) -> None:
    REQUESTS.labels(operation=operation, outcome=outcome).inc()
    logs.note(operation=operation, outcome=outcome)  # the same labels on the request's line


_MOVE_CHILDREN: dict[tuple[str, str], tuple] = {}


def move_applied_on_commit(game: str, kind: str) -> None:
    """Call right after the move's events were queued for publishing on commit: counts the
    move and times its fan-out once the publish callback before this one has run."""
    from django.db import transaction

    started = time.monotonic()
    children = _MOVE_CHILDREN.get((game, kind))
    if children is None:  # labels() takes a lock and builds its key: ~3 us a move, once here
        children = _MOVE_CHILDREN[game, kind] = (MOVES.labels(game=game, kind=kind),
                                                 FANOUT.labels(game=game))

    def done():
        children[0].inc()
        children[1].observe(time.monotonic() - started)

    transaction.on_commit(done)


def task_observe(task: str, seconds: float, failed: bool) -> None:
    TASK_SECONDS.labels(task=task).observe(seconds)
    if failed:
        TASK_FAILURES.labels(task=task).inc()


def bot_turn_observe(seconds: float) -> None:
    BOT_TURN.observe(max(0.0, seconds))


def turn_clock_late_on_commit(seconds: float) -> None:
    """Observe how late a turn clock's default move was, once the move is committed."""
    from django.db import transaction

    transaction.on_commit(lambda: TURN_CLOCK_LATE.observe(max(0.0, seconds)))


# --- SQL round trips ---------------------------------------------------------------------------
def sql_statements(n: int = 1) -> None:
    """Count ``n`` round trips to the database sent without Django's cursor (a raw psycopg
    connection, an async driver): each statement, and each BEGIN and COMMIT sent on its own."""
    SQL_STATEMENTS.inc(n)


def _count_sql(execute, sql, params, many, context):
    """Django ``execute_wrapper``: one round trip per ``execute``/``executemany`` call, plus two
    when psycopg is about to open a transaction for it (psycopg 3 sends ``BEGIN`` as its own
    round trip before the first statement of an ``atomic`` block and ``COMMIT`` or ``ROLLBACK``
    as another at its end; both are counted here, when the transaction opens, since every
    BEGIN it sends is closed by exactly one of them). Statements Django sends on a raw
    connection (the time zone set once per new pooled connection) are not seen; neither are
    psycopg's one-off server-side PREPAREs."""
    n = 1
    raw = getattr(context.get("connection"), "connection", None)
    info = getattr(raw, "info", None)
    if info is not None and not raw.autocommit:
        from psycopg.pq import TransactionStatus

        if info.transaction_status == TransactionStatus.IDLE:
            n = 3
    SQL_STATEMENTS.inc(n)
    return execute(sql, params, many, context)


def install_sql_counter(sender=None, connection=None, **kwargs) -> None:
    """``connection_created`` receiver: count the statements of this connection (once per
    connection wrapper, however often the pool hands it a new database connection)."""
    if connection is not None and _count_sql not in connection.execute_wrappers:
        connection.execute_wrappers.append(_count_sql)


# --- which operation, which outcome --------------------------------------------------------
def operation_label(request_data) -> str:
    from .ratelimit import _root_fields

    data = request_data[0] if isinstance(request_data, list) and request_data else request_data
    fields = _root_fields(getattr(data, "query", None) or "",
                          getattr(data, "operation_name", None))
    if not fields:
        return "invalid"
    return ",".join(sorted(f for f in fields if f)[:3])


def outcome_label(result) -> str:
    results = result if isinstance(result, list) else [result]
    for res in results:
        for error in getattr(res, "errors", None) or ():
            code = (getattr(error, "extensions", None) or {}).get("code")
            return code if code in {"rate_limited", "internal_error"} else "graphql_error"
    codes = set()
    for res in results:
        data = getattr(res, "data", None) or {}
        for value in data.values() if isinstance(data, dict) else ():
            if isinstance(value, dict) and value.get("errors"):
                codes.update(e.get("code") for e in value["errors"] if isinstance(e, dict))
    if "rate_limited" in codes:
        return "rate_limited"
    return "user_error" if codes else "ok"


# --- websockets ------------------------------------------------------------------------------
class WebsocketMetrics:
    """Mixin for the GraphQL websocket consumer: open sockets and subscriptions."""

    async def websocket_connect(self, message) -> None:
        WEBSOCKETS.inc()
        self._stapel_counted = True
        await super().websocket_connect(message)

    async def websocket_disconnect(self, message) -> None:
        if getattr(self, "_stapel_counted", False):
            self._stapel_counted = False
            WEBSOCKETS.dec()
        await super().websocket_disconnect(message)

    def listen_to_channel(self, *args, **kwargs):
        import contextlib

        inner = super().listen_to_channel(*args, **kwargs)

        @contextlib.asynccontextmanager
        async def counted():
            async with inner as messages:
                SUBSCRIPTIONS.inc()
                try:
                    yield messages
                finally:
                    SUBSCRIPTIONS.dec()

        return counted()


# --- the view --------------------------------------------------------------------------------
class TablesByStatus:
    """Counted in the database at scrape time (the same on every node)."""

    def collect(self):
        from django.db.models import Count

        from games.models import Table

        family = GaugeMetricFamily("stapel_tables", "Tables by status", labels=["status"])
        rows = Table.objects.values_list("status").annotate(n=Count("id")).order_by()
        for status, count in rows:
            family.add_metric([status], count)
        yield family


def registry() -> CollectorRegistry:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        reg = CollectorRegistry()
        multiprocess.MultiProcessCollector(reg)
    else:
        from prometheus_client import REGISTRY as reg  # noqa: N811
    return reg


def _allowed(request) -> bool:
    token = settings.STAPEL_METRICS_TOKEN
    header = request.headers.get("Authorization", "")
    if token and header.startswith("Bearer ") and hmac.compare_digest(
            header[7:].encode(), token.encode()):
        return True
    try:
        address = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    if address.is_loopback:
        return True
    return any(address in ipaddress.ip_network(net, strict=False)
               for net in settings.STAPEL_METRICS_ALLOWED_ADDRESSES)


def metrics_view(request):
    if not _allowed(request):
        return HttpResponse("metrics are served to loopback, allowed addresses or the metrics "
                            "token only\n", status=403, content_type="text/plain")
    output = generate_latest(registry())
    tables = CollectorRegistry()
    tables.register(TablesByStatus())
    output += generate_latest(tables)
    return HttpResponse(output, content_type=CONTENT_TYPE_LATEST)
