"""Statements on the hot paths, sent on psycopg's own cursor: a move's read and write
(``games.selectors.move_snapshot``, ``games.journal.write_move``) and the bearer token's
read of every authenticated request (``accounts.services.player_for_token``).

Django's cursor binds parameters on the client: it quotes every value into the query text,
the table's whole state (a few KB of JSON) included, and builds a fresh cursor with its own
adapters for every statement. Django's psycopg connection does the same (its
``cursor_factory`` is ``ClientCursor``), so the hot statements go on a plain
``psycopg.Cursor``: it sends the values beside the query, and from the fifth use on a
connection psycopg prepares the statement, so PostgreSQL parses and plans it once per
connection, not once per move. What Django's cursor would have done around it is kept:
database errors come as Django's (``IntegrityError``, ``OperationalError``: the callers
judge busy and races by them), the statement is counted (``config.metrics``) and logged
where Django logs queries (``CaptureQueriesContext``, ``DEBUG``).
"""

from __future__ import annotations

import time

import psycopg
from django.db import DEFAULT_DB_ALIAS, connections

from config import metrics


def fetch_one(sql: str, params: list, *, autocommit: bool = True) -> tuple | None:
    """Run one statement and return its first row: outside a transaction (a write is then
    committed by itself), or, ``autocommit=False``, wherever the caller is (a read)."""
    connection = connections[DEFAULT_DB_ALIAS]  # once: each use of the proxy looks it up
    assert not (autocommit and connection.in_atomic_block), "a hot write runs in autocommit"
    started = time.monotonic()
    connection.ensure_connection()
    with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    metrics.sql_statements(1)
    if connection.queries_logged:
        connection.queries_log.append({"sql": sql, "time": f"{time.monotonic() - started:.3f}"})
    return row
