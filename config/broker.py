"""Celery's broker transport: kombu's Redis transport, keeping one redis client per channel.

kombu's Redis channel wraps its connection pool in a new ``redis.Redis`` client for every
publish, every ack of a task acked late and every queue-length read
(``Channel.conn_or_acquire``); redis-py fills some 160 response callbacks into each new client,
about 0.1 ms of CPU every time. Each queued follow-up (a bot's turn, a round's end) and each
task a worker took paid it, a few times over. Here a channel keeps the client it built for as
long as its pool lives. A client only wraps the pool, and every command takes a connection
from the pool and gives it back, so one client serves every caller (as redis-py intends). When
kombu drops the pool (after a fork, or when the connection is lost) the channel builds a new
client for the new pool.

Selected by ``CELERY_BROKER_TRANSPORT`` for ``redis://`` and ``rediss://`` brokers (settings).
"""

from __future__ import annotations

from contextlib import contextmanager

from kombu.transport import redis


class Channel(redis.Channel):
    _client_for: tuple | None = None  # (pool, the client built on it)

    @contextmanager
    def conn_or_acquire(self, client=None):
        if client:
            yield client
            return
        pool = self.pool
        built = self._client_for
        if built is None or built[0] is not pool:
            built = self._client_for = (pool, self._create_client())
        yield built[1]


class Transport(redis.Transport):
    Channel = Channel
