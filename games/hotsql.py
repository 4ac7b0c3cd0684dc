"""The statements of a move's two round trips (``selectors.move_snapshot``,
``journal.record_move``), sent on psycopg's own cursor.

Django's cursor binds parameters on the client: it quotes every value into the query text,
the table's whole state (a few KB of JSON) included, and builds a fresh cursor with its own
adapters for every statement. Django's psycopg connection does the same (its
``cursor_factory`` is ``ClientCursor``), so the hot statements go on a plain
``psycopg.Cursor``: it sends the values beside the query, and from the fifth use on a
connection psycopg prepares the statement, so PostgreSQL parses and plans it once per
connection, not once per move. What Django's cursor would have done around it is kept:
database errors come as Django's (``IntegrityError``, ``OperationalError``: the callers
judge busy and races by them), the statement is counted (``config.metrics``) and logged where Django logs
queries (``CaptureQueriesContext``, ``DEBUG``).
"""

from __future__ import annotations

import time

import psycopg
from django.db import connection

from config import metrics


def fetch_one(sql: str, params: list) -> tuple | None:
    """Run one statement outside a transaction (autocommit) and return its first row."""
    assert not connection.in_atomic_block, "hot statements run in autocommit"
    started = time.monotonic()
    connection.ensure_connection()
    with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    metrics.sql_statements(1)
    if connection.queries_logged:
        connection.queries_log.append({"sql": sql, "time": f"{time.monotonic() - started:.3f}"})
    return row
