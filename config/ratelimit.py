"""Rate limits on what a stranger can call, with the `limits` library.

Each limit has a name, a rate from settings (``STAPEL_RATE_LIMITS``, e.g. ``"10 per 5
minutes"``; ``"off"`` switches one off) and the identifiers it counts per (an address, a
player, a username, a websocket connection). Counters live in Redis with ``REDIS_URL``, so
every web node shares them, and in this process's memory on the embedded default. Windows are
moving windows, so ``retryAfter`` is exact: the seconds until the oldest counted hit leaves.

A refused call raises ``RateLimited`` (a ``DomainError`` with code ``rate_limited`` and
``retry_after``): mutations return it in their payload ``errors`` with ``retryAfter``; over
HTTP the view then answers 429 with ``Retry-After`` and the IETF ``RateLimit``/
``RateLimit-Policy`` headers (``http_limits`` / ``http_response_mark``). A seated player's
``act`` is never counted: operations made only of ``act`` fields pass every ceiling.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import json
import logging
import math
import time

# redis is imported whole before `limits` reads redis.__version__: several first requests at
# once in a new process otherwise found it half-imported ("0.0.0") and failed.
import redis  # noqa: F401
from django.conf import settings
from graphql import GraphQLError, OperationDefinitionNode, parse
from graphql.error import GraphQLSyntaxError
from limits import RateLimitItem, parse_many, storage, strategies

from accounts.errors import DomainError

from . import logs

log = logging.getLogger("stapel.ratelimit")

# Operations made only of these root fields are never limited: a seated player's move.
UNLIMITED_FIELDS = frozenset({"act"})


class RateLimited(DomainError):
    code = "rate_limited"

    def __init__(self, name: str, item: RateLimitItem, retry_after: int) -> None:
        self.limit_name = name
        self.item = item
        self.retry_after = retry_after
        super().__init__("rate_limited", f"too many requests; try again in {retry_after} s")


@functools.cache
def _limiter(uri: str, key_prefix: str) -> strategies.MovingWindowRateLimiter:
    return strategies.MovingWindowRateLimiter(
        storage.storage_from_string(uri, key_prefix=key_prefix)
        if uri.startswith(("redis", "rediss")) else storage.storage_from_string(uri))


def limiter() -> strategies.MovingWindowRateLimiter:
    return _limiter(settings.STAPEL_RATE_LIMIT_STORAGE, settings.STAPEL_RATE_LIMIT_KEY_PREFIX)


@functools.cache
def _items(rate: str) -> tuple[RateLimitItem, ...]:
    return tuple(parse_many(rate)) if rate and rate.strip().lower() != "off" else ()


def items(name: str) -> tuple[RateLimitItem, ...]:
    return _items(settings.STAPEL_RATE_LIMITS.get(name, ""))


def _retry_after(item: RateLimitItem, *identifiers) -> int:
    reset_at = limiter().get_window_stats(item, name_key(*identifiers)).reset_time
    return max(1, math.ceil(reset_at - time.time()))


def name_key(*identifiers) -> str:
    # Usernames and addresses may hold the separator; keys stay unambiguous as JSON.
    return json.dumps([str(i) for i in identifiers])


def _refuse(name: str, item: RateLimitItem, *identifiers) -> RateLimited:
    exc = RateLimited(name, item, _retry_after(item, name, *identifiers))
    box = _REQUEST.get()
    if box is not None:
        box.append(exc)
    if not logs.note(rate_limited=name):  # on the request's or websocket's own line
        log.info("rate limited: %s", name)
    return exc


def hit(name: str, *identifiers) -> None:
    """Count one call against limit ``name``; raise ``RateLimited`` if it is over."""
    for item in items(name):
        if not limiter().hit(item, name_key(name, *identifiers)):
            raise _refuse(name, item, *identifiers)


def spend(name: str, *identifiers, amount: int) -> None:
    """Count ``amount`` units (a query's cost) against budget ``name``; raise
    ``RateLimited`` if they do not fit in what is left of it (nothing is then spent)."""
    for item in items(name):
        if not limiter().hit(item, name_key(name, *identifiers), cost=amount):
            raise _refuse(name, item, *identifiers)


def check(name: str, *identifiers) -> None:
    """Raise ``RateLimited`` if limit ``name`` is spent, without counting (count failures
    with ``hit``: e.g. wrong passwords, not logins)."""
    for item in items(name):
        if not limiter().test(item, name_key(name, *identifiers)):
            raise _refuse(name, item, *identifiers)


def reset() -> None:
    """Forget every counter (tests)."""
    with contextlib.suppress(Exception):
        limiter().storage.reset()


def request_address(request) -> str:
    """The client address (uvicorn puts the proxy's forwarded one there, see deploy/)."""
    meta = getattr(request, "META", None)
    if meta is not None:
        return meta.get("REMOTE_ADDR") or "unknown"
    scope = getattr(request, "scope", None) or {}
    client = scope.get("client")
    return client[0] if client else "unknown"


# --- which operations count --------------------------------------------------------------
@functools.lru_cache(maxsize=1024)
def _root_fields(query: str, operation_name: str | None) -> frozenset[str] | None:
    try:
        document = parse(query, no_location=True)
    except (GraphQLSyntaxError, RecursionError, TypeError):
        return None  # the executor answers a bad document itself
    for op in document.definitions:
        if isinstance(op, OperationDefinitionNode) and (
                operation_name is None or (op.name and op.name.value == operation_name)):
            return frozenset(getattr(s, "name", None) and s.name.value
                             for s in op.selection_set.selections)
    return None


def counts_against_ceiling(query: str | None, operation_name: str | None = None) -> bool:
    fields = _root_fields(query or "", operation_name)
    return not (fields and fields <= UNLIMITED_FIELDS)


def ceiling_hit(*, player, address: str, query: str | None,
                operation_name: str | None = None) -> None:
    """The generous per-token (per-player) ceiling on every operation, and one per address
    for anonymous calls; a move is never counted."""
    if not counts_against_ceiling(query, operation_name):
        return
    if player is not None:
        hit("token", player.pk)
    else:
        hit("address", address)


def ceiling_error(exc: RateLimited) -> GraphQLError:
    return GraphQLError(exc.message, extensions={"code": exc.code,
                                                 "retryAfter": exc.retry_after})


# --- HTTP: 429 and headers ---------------------------------------------------------------
_REQUEST: contextvars.ContextVar[list | None] = contextvars.ContextVar("stapel_rate_limited",
                                                                      default=None)


@contextlib.contextmanager
def http_limits():
    """Collect the limits a request ran into (in every thread it hops to)."""
    box: list[RateLimited] = []
    token = _REQUEST.set(box)
    try:
        yield box
    finally:
        _REQUEST.reset(token)


def http_response_mark(response, box: list[RateLimited]):
    """A request refused by a limit answers 429 with ``Retry-After`` and the IETF
    ``RateLimit-Policy``/``RateLimit`` fields (draft-ietf-httpapi-ratelimit-headers)."""
    if not box:
        return response
    exc = max(box, key=lambda e: e.retry_after)
    window = exc.item.get_expiry()
    response.status_code = 429
    response["Retry-After"] = str(exc.retry_after)
    response["RateLimit-Policy"] = f'"{exc.limit_name}";q={exc.item.amount};w={window}'
    response["RateLimit"] = f'"{exc.limit_name}";r=0;t={exc.retry_after}'
    return response


# --- websockets ----------------------------------------------------------------------------
class WebsocketLimits:
    """Mixin for the GraphQL websocket consumer: connects per address, operations per
    connection and the per-player ceiling. A refused connect is accepted and closed with
    4429 (the reason says when to retry); a refused operation gets an ``error`` message with
    ``extensions.code = "rate_limited"`` and ``retryAfter``, and the connection stays."""

    async def connect(self) -> None:
        from channels.db import database_sync_to_async

        try:
            await database_sync_to_async(hit)("ws_connect", request_address(self))
        except RateLimited as exc:
            offered = self.scope.get("subprotocols") or []
            await self.accept("graphql-transport-ws" if "graphql-transport-ws" in offered
                              else None)
            await self.close(code=4429, reason=f"rate_limited; retry after {exc.retry_after} s")
            return
        await super().connect()

    async def receive(self, text_data=None, bytes_data=None) -> None:
        if text_data and '"subscribe"' in text_data:
            refused = await self._operation_refused(text_data)
            if refused is not None:
                self.__dict__.get("decoded_frames", {}).pop(id(text_data), None)
                await self.send(json.dumps(refused))
                return
        await super().receive(text_data=text_data, bytes_data=bytes_data)

    async def _operation_refused(self, text: str) -> dict | None:
        from channels.db import database_sync_to_async

        from .validation import BadRequest, decode_body

        try:
            message = decode_body(text)
        except BadRequest:
            return None  # the protocol handler answers malformed frames itself
        if not isinstance(message, dict):
            return None
        # Decoded once: the protocol handler takes this copy (GraphQLWebsocketConsumer).
        self.__dict__.setdefault("decoded_frames", {})[id(text)] = (text, message)
        payload = message.get("payload") or {}
        if message.get("type") != "subscribe" or not isinstance(payload, dict):
            return None
        query, operation_name = payload.get("query"), payload.get("operationName")
        if not isinstance(query, str) or not isinstance(operation_name, str | None):
            return None  # likewise: the protocol handler closes the socket with 4400
        if not counts_against_ceiling(query, operation_name):
            return None

        def count():
            hit("ws_operation", self.channel_name)
            ceiling_hit(player=getattr(self, "player", None), address=request_address(self),
                        query=query, operation_name=operation_name)

        try:
            await database_sync_to_async(count)()
        except RateLimited as exc:
            return {"id": message.get("id"), "type": "error",
                    "payload": [ceiling_error(exc).formatted]}
        return None


async def ceiling_refusal(request, request_data):
    """For the HTTP view: the ceiling over each operation of a request (batches count each);
    an ``ExecutionResult`` with a ``rate_limited`` error when it is spent, else None."""
    from channels.db import database_sync_to_async
    from graphql import ExecutionResult

    batch = request_data if isinstance(request_data, list) else [request_data]
    player, address = getattr(request, "player", None), request_address(request)

    def count():
        for data in batch:
            ceiling_hit(player=player, address=address, query=data.query,
                        operation_name=data.operation_name)

    try:
        await database_sync_to_async(count)()
    except RateLimited as exc:
        result = ExecutionResult(data=None, errors=[ceiling_error(exc)])
        return [result] * len(batch) if isinstance(request_data, list) else result
    return None


def info_address(info) -> str:
    """The client address of a resolver's request (HTTP request or websocket consumer)."""
    ctx = info.context
    request = ctx.get("request") if isinstance(ctx, dict) else getattr(ctx, "request", None)
    return request_address(request)


def counted(name: str, *identifiers, call):
    """``call()`` after counting it against limit ``name``."""
    hit(name, *identifiers)
    return call()


def failures_counted(name: str, *identifiers, codes: set[str], call):
    """``call()`` while limit ``name`` is not spent; only failures with one of ``codes``
    count (wrong passwords, wrong invite codes), so guessing stops and honest use does not."""
    check(name, *identifiers)
    try:
        return call()
    except DomainError as exc:
        if exc.code in codes:
            hit(name, *identifiers)
        raise


def login_guarded(login, *, username: str, address: str):
    """Run ``login()`` under the login limits: every attempt counts per address, and wrong
    passwords count per username, so a guessed account is shut for the window while its
    owner gets in again after it."""
    hit("login_address", address)
    return failures_counted("login_username", (username or "").strip().lower(),
                            codes={"invalid_credentials"}, call=login)
