"""Statements on the hot paths: a move's read and write (``games.selectors.move_snapshot``,
``games.journal.write_move``) and the bearer token's read of every authenticated request
(``accounts.services.player_for_token``).

Django's cursor binds parameters on the client: it quotes every value into the query text,
the table's whole state (a few KB of JSON) included, and builds a fresh cursor with its own
adapters for every statement (its psycopg connection's ``cursor_factory`` is
``ClientCursor``). Here each hot statement is prepared by name once per connection (again if
the server forgot it: ``DISCARD ALL``, a pooler's reset) and run on libpq itself
(``PGconn.exec_prepared``) with its values as text, typed by PostgreSQL from the statement;
a row comes back through psycopg's own loaders (the connection's, as a cursor would use).
psycopg's cursor, for all it does per execute (dumpers, its own prepared-statement
bookkeeping, a generator driven by ``wait``), spent ~440 us of CPU on a move's write on this
2-core machine; libpq directly ~185 us. The GIL is released while libpq waits for the
server, as it is in psycopg's wait.

Inside a transaction psycopg must send its ``BEGIN`` first, so there the statement goes on a
plain ``psycopg.Cursor`` (server-side binding, prepared by psycopg from the fifth use).
What Django's cursor would have done around a statement is kept either way: database errors
come as Django's (``IntegrityError``, ``OperationalError``: the callers judge busy and races
by them), the statement is counted (``config.metrics``) and logged where Django logs queries
(``CaptureQueriesContext``, ``DEBUG``).
"""

from __future__ import annotations

import hashlib
import time
import weakref
from datetime import datetime

import psycopg
from django.db import DEFAULT_DB_ALIAS, connections
from psycopg import errors, pq
from psycopg.adapt import Transformer

from config import metrics


def fetch_one(sql: str, params: list, *, autocommit: bool = True) -> tuple | None:
    """Run one statement and return its first row: outside a transaction (a write is then
    committed by itself), or, ``autocommit=False``, wherever the caller is (a read)."""
    connection = connections[DEFAULT_DB_ALIAS]  # once: each use of the proxy looks it up
    assert not (autocommit and connection.in_atomic_block), "a hot write runs in autocommit"
    started = time.monotonic()
    connection.ensure_connection()
    with connection.wrap_database_errors:
        conn = connection.connection
        if connection.in_atomic_block:
            with psycopg.Cursor(conn) as cursor:
                cursor.execute(sql, params)
                row = cursor.fetchone()
        else:
            result = _exec(conn, sql, params)
            row = None
            if result.ntuples:
                loader = Transformer(conn)
                loader.set_pgresult(result)
                row = loader.load_row(0, tuple)
    _counted(connection, sql, started)
    return row


def write(sql: str, params: list) -> int | None:
    """Run one write in autocommit (committed by itself) and return the int in the first
    column of its first row, or None where it returned no row."""
    connection = connections[DEFAULT_DB_ALIAS]
    assert not connection.in_atomic_block, "a hot write runs in autocommit"
    started = time.monotonic()
    connection.ensure_connection()
    with connection.wrap_database_errors:
        result = _exec(connection.connection, sql, params)
    value = result.get_value(0, 0) if result.ntuples else None
    _counted(connection, sql, started)
    return None if value is None else int(value)


def _counted(connection, sql: str, started: float) -> None:
    metrics.sql_statements(1)
    if connection.queries_logged:
        connection.queries_log.append({"sql": sql, "time": f"{time.monotonic() - started:.3f}"})


# --- on libpq ---------------------------------------------------------------------------------

# The statements prepared on each connection, by name (a connection that is closed and
# opened again prepares them again).
_PREPARED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_NAMES: dict[str, tuple[bytes, bytes]] = {}


def _exec(conn: psycopg.Connection, sql: str, params: list):
    """The statement's result (a ``PGresult``), or psycopg's error for it."""
    name, numbered = _named(sql)
    values = [_text(value) for value in params]
    prepared = _PREPARED.get(conn)
    if prepared is None:
        prepared = _PREPARED[conn] = set()
    pgconn = conn.pgconn
    with conn.lock:  # psycopg's own: nothing else runs on this connection meanwhile
        if name not in prepared:
            _raise(pgconn.prepare(name, numbered), conn)
            prepared.add(name)
        result = pgconn.exec_prepared(name, values)
        if result.error_field(pq.DiagnosticField.SQLSTATE) == b"26000":
            # The server forgot it (DISCARD ALL, a pooler's reset): prepare it again.
            _raise(pgconn.prepare(name, numbered), conn)
            result = pgconn.exec_prepared(name, values)
    _raise(result, conn)
    return result


def _named(sql: str) -> tuple[bytes, bytes]:
    """The statement's name and its text with ``$n`` placeholders for ``%s``."""
    known = _NAMES.get(sql)
    if known is None:
        assert "%%" not in sql and "%(" not in sql, "hot statements take plain %s placeholders"
        parts = sql.split("%s")
        numbered = parts[0] + "".join(f"${i}{part}" for i, part in enumerate(parts[1:], 1))
        name = "stapel_" + hashlib.sha1(sql.encode()).hexdigest()[:16]
        known = _NAMES[sql] = (name.encode(), numbered.encode())
    return known


def _text(value) -> bytes | None:
    """A value in PostgreSQL's text form (the statement gives its type). Choices (str and
    int enums) are written as their values; a NUL is refused as psycopg refuses it."""
    if value is None:
        return None
    if isinstance(value, str):
        if "\x00" in value:  # libpq takes text values as C strings: it would cut them here
            raise psycopg.DataError("PostgreSQL text fields cannot contain NUL (0x00) bytes")
        return str.encode(value)
    if isinstance(value, bool):
        return b"t" if value else b"f"
    if isinstance(value, int):
        return b"%d" % value
    if isinstance(value, datetime):
        assert value.tzinfo is not None, "hot statements take aware datetimes"
        return value.isoformat().encode()
    raise TypeError(f"hot statements take str, int, bool, datetime or None, "
                    f"not {type(value).__name__}")


def _raise(result, conn) -> None:
    if result.status not in (pq.ExecStatus.COMMAND_OK, pq.ExecStatus.TUPLES_OK):
        raise errors.error_from_result(result, encoding=conn.info.encoding)
