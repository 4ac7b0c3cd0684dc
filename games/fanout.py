"""Live table updates from the process that committed a change to every socket that watches.

Each change is published once per audience (each seated person, the spectators) on a Redis
pub/sub channel of its own, ``<prefix>live.<table>.<audience>``: one PUBLISH per audience,
pipelined into one round trip. Every web process holds one subscriber connection, subscribed
to the channels its sockets watch, and hands each message, decoded once, to every local
listener of that channel. Compared with a channel-layer group per socket, a message crosses
Redis once per node instead of once per socket, and nothing is queued per consumer.

The publishing process delivers to its own sockets directly (no trip through Redis and
back); other processes get it from Redis. Delivery is at most once, as with the channel layer: a subscriber that misses a message sees
a gap in ``seq`` and fills it from the log. Without ``REDIS_URL`` (the embedded default) the
same interface works inside the process.

Pub/sub channels are not scoped by Redis database number, so the prefix names this
deployment's database and Redis database: two stacks on one Redis never hear each other.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import uuid
import weakref
from collections.abc import Callable
from urllib.parse import urlsplit

import orjson
from django.conf import settings

log = logging.getLogger("stapel.fanout")

Listener = Callable[[dict], None]


def prefix() -> str:
    configured = getattr(settings, "STAPEL_LIVE_PREFIX", "")
    if configured:
        return configured
    db = settings.DATABASES["default"]["NAME"]
    redis_db = urlsplit(settings.REDIS_URL).path.strip("/") or "0" if settings.REDIS_URL else "-"
    return f"stapel:{redis_db}:{db}:"


def key(table_id: int, audience: str) -> str:
    return f"{prefix()}live.{table_id}.{audience}"


# Each process hands its own publications to its local listeners at once, and skips them when
# they come back from Redis (the payload starts with the publishing process's id).
NODE = uuid.uuid4().hex.encode()


def _encode(message: dict) -> bytes:
    return NODE + orjson.dumps(message)


# --- publishing (from any thread) ----------------------------------------------------------

_sync_client = None
_sync_lock = threading.Lock()


def _redis():
    global _sync_client
    if _sync_client is None:
        with _sync_lock:
            if _sync_client is None:
                import redis

                _sync_client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2,
                                                    socket_connect_timeout=2)
    return _sync_client


def publish(messages: list[tuple[str, dict]]) -> None:
    """Publish ``(key, message)`` pairs. Raises when Redis is away (the caller logs it; the
    change is committed and clients fill the gap from the log)."""
    if not messages:
        return
    _LOCAL.deliver(messages)
    if not settings.REDIS_URL:
        return
    pipe = _redis().pipeline(transaction=False)
    for channel, message in messages:
        pipe.publish(channel, _encode(message))
    pipe.execute()


# --- listening (in each web process) ---------------------------------------------------------

class _Hub:
    """One event loop's listeners, and its Redis subscriber connection."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.listeners: dict[str, set[Listener]] = {}
        self.pubsub = None
        self.reader: asyncio.Task | None = None

    async def add(self, channel: str, listener: Listener) -> None:
        first = channel not in self.listeners
        self.listeners.setdefault(channel, set()).add(listener)
        if first and settings.REDIS_URL:
            await self._pubsub().subscribe(channel)
            if self.reader is None or self.reader.done():
                self.reader = self.loop.create_task(self._read())

    async def remove(self, channel: str, listener: Listener) -> None:
        listeners = self.listeners.get(channel)
        if listeners is None:
            return
        listeners.discard(listener)
        if not listeners:
            del self.listeners[channel]
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
        while self.listeners:
            try:
                message = await self.pubsub.get_message(timeout=1.0)
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
            channel = message["channel"]
            if isinstance(channel, bytes):
                channel = channel.decode()
            listeners = self.listeners.get(channel)
            payload = message["data"]
            if not listeners or payload.startswith(NODE):
                continue  # nobody here, or our own (already delivered by publish)
            data = orjson.loads(payload[len(NODE):])
            for listener in tuple(listeners):
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
