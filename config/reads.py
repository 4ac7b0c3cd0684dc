"""API reads under a statement timeout: a read that runs away is cancelled by PostgreSQL.

The cost estimate (config/cost.py) refuses queries that ask for too much; this is the
backstop for a read that is slow anyway (a cold cache, a big log, a plan gone wrong), so
one request cannot hold a pooled connection and a worker thread for minutes. The timeout
is ``SET LOCAL`` inside the read's own transaction: it ends with the read and never
reaches the writes of services or the Celery workers. SQLite has no such setting; there the
read simply runs.
"""

from __future__ import annotations

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import OperationalError, connection, transaction

from accounts.errors import DomainError


class ReadTimeout(DomainError):
    code = "query_timeout"


def timed(fn, *args, **kwargs):
    """Run the sync read ``fn`` under ``API_STATEMENT_TIMEOUT_MS``."""
    ms = settings.API_STATEMENT_TIMEOUT_MS
    if ms <= 0 or connection.vendor != "postgresql":
        return fn(*args, **kwargs)
    try:
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL statement_timeout = %s", [int(ms)])
            return fn(*args, **kwargs)
    except OperationalError as exc:
        if type(exc.__cause__).__name__ != "QueryCanceled":
            raise
        raise ReadTimeout("query_timeout",
                          "this read took too long and was cancelled: ask for less") from None


async def api_read(fn, *args, **kwargs):
    """``await api_read(selectors.lobby, game=...)``: the read in a database thread, timed."""
    return await database_sync_to_async(timed)(fn, *args, **kwargs)
