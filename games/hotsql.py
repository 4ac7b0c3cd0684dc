"""The statements of a move's two round trips (``selectors.move_snapshot``,
``journal.record_move``), sent on psycopg's own cursor.

Django's cursor binds parameters on the client: it quotes every value into the query text,
the table's whole state (a few KB of JSON) included, and builds a fresh cursor with its own
adapters for every statement. psycopg's cursor sends the values beside the query (the
server parses them; after a few uses psycopg prepares the statement), about 30 µs of CPU
less per statement. What Django's cursor would have done around it is kept: database errors
come as Django's (``IntegrityError``, ``OperationalError``: the callers judge busy and
races by them), the statement is counted (``config.metrics``) and logged where Django logs
queries (``CaptureQueriesContext``, ``DEBUG``).
"""

from __future__ import annotations

import time

from django.db import connection

from config import metrics


def fetch_one(sql: str, params: list) -> tuple | None:
    """Run one statement outside a transaction (autocommit) and return its first row."""
    assert not connection.in_atomic_block, "hot statements run in autocommit"
    started = time.monotonic()
    connection.ensure_connection()
    with connection.wrap_database_errors, connection.connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    metrics.sql_statements(1)
    if connection.queries_logged:
        connection.queries_log.append({"sql": sql, "time": f"{time.monotonic() - started:.3f}"})
    return row
