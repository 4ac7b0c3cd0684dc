"""Live table updates from the process that committed a change to every socket that watches.

Each change is rendered once per audience (each seated person, the spectators); every
audience has its own listener key, ``<prefix>live.<table>.<audience>``. On Redis a change is
ONE publish on its table's pub/sub channel, ``<prefix>live.<table>``, carrying every
audience's payload: every web process holds one subscriber connection, subscribed to the
tables its sockets watch, decodes each message once and hands each audience's payload to
the local listeners of that audience only. One publish and one read per change, not one per
audience, is what a move costs Redis and the subscriber connection (the payloads are
redacted per audience before they leave; Redis is the service's own).

The publishing process delivers to its own sockets directly (no trip through Redis and
back); other processes get it from Redis. Delivery is at most once, as with the channel
layer: a subscriber that misses a message sees a gap in ``seq`` and fills it from the log.
Without ``REDIS_URL`` (the embedded default) the same interface works inside the process.

Pub/sub channels are not scoped by Redis database number, so the prefix names this
deployment's database and Redis database: two stacks on one Redis never hear each other.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
import time
import uuid
import weakref
from collections.abc import Callable
from urllib.parse import urlsplit

import orjson
from django.conf import settings

log = logging.getLogger("stapel.fanout")

Listener = Callable[[dict], None]


def prefix() -> str:
    # Read on every change (a move names three audiences): made once per set of settings it
    # depends on (tests point the database and Redis elsewhere after start).
    global _PREFIX
    inputs = (settings.STAPEL_LIVE_PREFIX, settings.DATABASES["default"]["NAME"],
              settings.REDIS_URL)
    known = _PREFIX  # one read: another thread may replace it meanwhile
    if known[0] != inputs:
        known = _PREFIX = (inputs, _make_prefix(*inputs))
    return known[1]


_PREFIX: tuple = (None, "")


def _make_prefix(configured: str, db: str, redis_url: str) -> str:
    if configured:
        return configured
    redis_db = urlsplit(redis_url).path.strip("/") or "0" if redis_url else "-"
    return f"stapel:{redis_db}:{db}:"


def key(table_id: int, audience: str) -> str:
    """The listener key of one audience of a table."""
    return f"{prefix()}live.{table_id}.{audience}"


def redis_channel(listener_key: str) -> str:
    """The table's pub/sub channel a listener key is carried on (``<prefix>live.<table>``)."""
    head = listener_key.rindex("live.") + 5
    return listener_key[:listener_key.index(".", head)]


# Each process hands its own publications to its local listeners at once, and skips them when
# they come back from Redis (the payload starts with the publishing process's id).
NODE = uuid.uuid4().hex.encode()


def _encode(pairs: list[tuple[str, dict]]) -> bytes:
    return NODE + orjson.dumps(pairs)


# --- publishing (from any thread) ----------------------------------------------------------

def publish(messages: list[tuple[str, dict]]) -> None:
    """Publish ``(key, message)`` pairs: this process's listeners get them at once, Redis
    (other processes) one PUBLISH per table, written without waiting for any answer
    (``_Publisher``). Never raises for Redis: a change that cannot be written is dropped and
    counted (delivery is at most once; subscribers fill a gap in seq from the log)."""
    if not messages:
        return
    _LOCAL.deliver(messages)
    url = settings.REDIS_URL
    if not url:
        return
    by_table: dict[str, list] = {}
    for listener_key, message in messages:
        by_table.setdefault(redis_channel(listener_key), []).append((listener_key, message))
    _publisher(url).send([(channel, _encode(pairs)) for channel, pairs in by_table.items()])


# Tried from a move thread at most this often while Redis is away (seconds), and how long a
# connect or a write may take before the change is given up.
RETRY_SECONDS = 1.0
TIMEOUT_SECONDS = 0.25


class _Publisher:
    """One connection per process that only writes: after its handshake it asks Redis for no
    replies (``CLIENT REPLY OFF``), so a publish is one write to a socket (~8 us of CPU here)
    and nothing waits for Redis. redis-py's PUBLISH with its reply cost ~70 us of CPU and a
    round trip, which is why a thread of its own used to send them; the reply only said how
    many subscribers heard it. Writes of all threads go through one lock, in order.

    While Redis is away a change is dropped and counted, and the connection is tried again
    at most every RETRY_SECONDS, each try and each write bounded by TIMEOUT_SECONDS."""

    def __init__(self, url: str) -> None:
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        # No retries inside redis-py: a try that fails gives up at once (the lock is held),
        # and the next is RETRY_SECONDS later.
        self.pool = redis.ConnectionPool.from_url(
            url, socket_timeout=TIMEOUT_SECONDS, socket_connect_timeout=TIMEOUT_SECONDS,
            client_name="stapel-publish", retry=Retry(NoBackoff(), 0))
        self.lock = threading.Lock()
        self.conn = None
        self.retry_at = 0.0
        self.dropped = 0  # changes not written, since the process started
        self.down = False

    def send(self, payloads: list[tuple[str, bytes]]) -> None:
        with self.lock:
            conn = self.conn or self._connect()
            if conn is None:
                self._drop(len(payloads))
                return
            try:
                conn.send_packed_command(
                    conn.pack_commands([("PUBLISH", channel, payload)
                                        for channel, payload in payloads]),
                    check_health=False)
            except Exception as exc:  # noqa: BLE001 - redis-py raises several kinds
                self._lost(conn, exc)
                self._drop(len(payloads))

    def _connect(self):
        now = time.monotonic()
        if now < self.retry_at:
            return None
        conn = self.pool.make_connection()
        try:
            conn.connect()
            conn.send_command("CLIENT", "REPLY", "OFF")
        except Exception as exc:  # noqa: BLE001
            self._lost(conn, exc)
            return None
        self.conn = conn
        if self.down:
            self.down = False
            log.warning("publishing table updates to Redis again (%d dropped so far)",
                        self.dropped)
        return conn

    def _lost(self, conn, exc: Exception) -> None:
        self.conn = None
        self.retry_at = time.monotonic() + RETRY_SECONDS
        with contextlib.suppress(Exception):
            conn.disconnect()
        if not self.down:  # once per outage, not per try
            self.down = True
            log.warning("cannot publish table updates to Redis (%s); dropping them and trying "
                        "again every %.0f s (clients fill the gaps from the log)",
                        type(exc).__name__, RETRY_SECONDS)

    def _drop(self, count: int) -> None:
        self.dropped += count


_PUBLISHERS: dict[str, _Publisher] = {}
_publishers_lock = threading.Lock()


def _forget_after_fork() -> None:
    """A forked child (a Celery prefork worker) starts without its parent's publishers: two
    processes writing on one socket would interleave their commands."""
    global _publishers_lock
    _PUBLISHERS.clear()
    _publishers_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_after_fork)


def _publisher(url: str) -> _Publisher:
    found = _PUBLISHERS.get(url)
    if found is None:
        with _publishers_lock:
            found = _PUBLISHERS.get(url)
            if found is None:
                found = _PUBLISHERS[url] = _Publisher(url)
    return found


# --- listening (in each web process) ---------------------------------------------------------

class _Hub:
    """One event loop's listeners, and its Redis subscriber connection."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.listeners: dict[str, set[Listener]] = {}  # by listener key (table, audience)
        self.tables: dict[str, int] = {}  # Redis channel -> listener keys listened to on it
        self.pubsub = None
        self.reader: asyncio.Task | None = None

    async def add(self, listener_key: str, listener: Listener) -> None:
        first = listener_key not in self.listeners
        self.listeners.setdefault(listener_key, set()).add(listener)
        if not first:
            return
        channel = redis_channel(listener_key)
        self.tables[channel] = self.tables.get(channel, 0) + 1
        if self.tables[channel] == 1 and settings.REDIS_URL:
            await self._pubsub().subscribe(channel)
            if self.reader is None or self.reader.done():
                self.reader = self.loop.create_task(self._read())

    async def remove(self, listener_key: str, listener: Listener) -> None:
        listeners = self.listeners.get(listener_key)
        if listeners is None:
            return
        listeners.discard(listener)
        if listeners:
            return
        del self.listeners[listener_key]
        channel = redis_channel(listener_key)
        self.tables[channel] -= 1
        if self.tables[channel]:
            return
        del self.tables[channel]
        if not self.tables and self.reader is not None:
            self.reader.cancel()
            self.reader = None
        if settings.REDIS_URL and self.pubsub is not None:
            try:
                await self.pubsub.unsubscribe(channel)
            except Exception:  # noqa: BLE001 - a dead connection forgets it anyway
                log.debug("could not unsubscribe %s", channel, exc_info=True)

    def _pubsub(self):
        if self.pubsub is None:
            import redis.asyncio

            client = redis.asyncio.Redis.from_url(settings.REDIS_URL)
            self.pubsub = client.pubsub(ignore_subscribe_messages=True)
        return self.pubsub

    async def _read(self) -> None:
        # Blocks on the connection (no timeout: a timeout per message was half of this
        # loop's cost); ``remove`` cancels it when the last listener goes.
        while True:
            try:
                message = await self.pubsub.get_message(timeout=None)
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - Redis restarted: redis-py reconnects and
                # subscribes again on the next call; what was missed is a gap in seq
                log.warning("live fan-out lost its Redis connection; reconnecting",
                            exc_info=True)
                await asyncio.sleep(0.5)
                continue
            if message is None or message.get("type") != "message":
                continue
            payload = message["data"]
            if payload.startswith(NODE):
                continue  # our own (already delivered by publish)
            for listener_key, data in orjson.loads(payload[len(NODE):]):
                for listener in tuple(self.listeners.get(listener_key, ())):
                    listener(data)

    def deliver(self, channel: str, message: dict) -> None:
        for listener in tuple(self.listeners.get(channel, ())):
            listener(message)


class _Local:
    """Every loop's hub of this process, reached from any thread: publications of this
    process go to them directly (with or without Redis)."""

    def __init__(self) -> None:
        self.hubs: weakref.WeakValueDictionary = weakref.WeakValueDictionary()

    def deliver(self, messages: list[tuple[str, dict]]) -> None:
        for hub in list(self.hubs.values()):
            wanted = [(c, m) for c, m in messages if c in hub.listeners]
            if not wanted or hub.loop.is_closed():
                continue

            def run(hub=hub, wanted=wanted):
                for channel, message in wanted:
                    hub.deliver(channel, message)

            try:
                running = asyncio.get_running_loop()
            except RuntimeError:
                running = None
            if running is hub.loop:
                run()
            else:
                hub.loop.call_soon_threadsafe(run)


_LOCAL = _Local()
_HUBS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def hub() -> _Hub:
    loop = asyncio.get_running_loop()
    found = _HUBS.get(loop)
    if found is None:
        found = _HUBS[loop] = _Hub(loop)
        _LOCAL.hubs[id(loop)] = found
    return found


class Subscription:
    """``async with fanout.listen([key, ...]) as queue``: every message published on those
    channels from now on lands in ``queue``, in order."""

    def __init__(self, channels: list[str]) -> None:
        self.channels = channels
        self.queue: asyncio.Queue[dict] = asyncio.Queue()

    async def __aenter__(self) -> asyncio.Queue:
        self.hub = hub()
        for channel in self.channels:
            await self.hub.add(channel, self.queue.put_nowait)
        return self.queue

    async def __aexit__(self, *exc) -> None:
        for channel in self.channels:
            await self.hub.remove(channel, self.queue.put_nowait)


def listen(channels: list[str]) -> Subscription:
    return Subscription(channels)
