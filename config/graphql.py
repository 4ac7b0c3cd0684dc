"""The /graphql/ endpoint: HTTP through Django, websockets through Channels, both with
bearer tokens.

HTTP: ``Authorization: Bearer <token>``. A request without the header is anonymous; a
malformed header, an unknown or revoked token, or a banned player gets a 401/403 with a
GraphQL-shaped error body and a code, before any resolver runs.

Websockets: ``graphql-transport-ws`` only (the legacy ``graphql-ws`` protocol had an auth
bypass and is not offered). The token goes in the ``connection_init`` payload as
``{"authorization": "Bearer <token>"}`` (or ``{"token": "<token>"}``); without a valid one the
connection is closed with 4403. Each connection joins its player's group and its token's
group, so a ban closes every socket of that player and a revoked token (or a password change)
every socket opened with that token, at once, on every node; nothing is sent after it.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import logging

import orjson
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async as sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from cross_web import HTTPException
from django.conf import settings
from django.http import HttpResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from graphql import ExecutionResult, GraphQLError, OperationDefinitionNode, OperationType, parse
from strawberry.channels import GraphQLWSConsumer
from strawberry.django.views import AsyncGraphQLView
from strawberry.exceptions import ConnectionRejectionError
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL

from accounts import services as account_services
from accounts.errors import AuthError
from accounts.models import ApiToken
from accounts.realtime import TOKEN_CLOSE_TYPE, token_group
from games.api import live
from games.realtime import PLAYER_CLOSE_TYPE, player_group

from . import ide, metrics, ratelimit
from .schema import schema
from .validation import BadRequest, decode_body, decode_request
from .ws_protocol import CheckedTransportWSHandler

log = logging.getLogger("stapel.graphql")

__all__ = ["GraphQLWebsocketConsumer", "RefuseWebsocket", "graphql_view", "player_group"]


def _error_response(exc: AuthError) -> HttpResponse:
    status = 403 if exc.code in {"banned", "inactive"} else 401
    body = {"data": None, "errors": [{"message": exc.message, "extensions": {"code": exc.code}}]}
    response = HttpResponse(json.dumps(body), status=status, content_type="application/json")
    if status == 401:
        response["WWW-Authenticate"] = 'Bearer realm="stapel"'
    return response


def _capped(encoded: str | bytes, refuse) -> str | bytes:
    """A response over GRAPHQL_MAX_RESPONSE_BYTES is replaced by a typed refusal: the cost
    estimate bounds the work, this bounds what one answer may put on the wire."""
    if len(encoded) <= settings.GRAPHQL_MAX_RESPONSE_BYTES:
        return encoded
    error = {"message": f"the answer is over {settings.GRAPHQL_MAX_RESPONSE_BYTES} bytes: ask "
                        "for fewer items", "extensions": {"code": "response_too_large"}}
    return json.dumps(refuse(error))


def _is_subscription(query, operation_name) -> bool:
    if not isinstance(query, str) or "subscription" not in query:
        return False  # cheap: no parse for the queries and mutations of real clients
    try:
        document = parse(query)
    except GraphQLError:
        return False  # the schema answers the syntax error
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    if operation_name:
        operations = [d for d in operations if d.name and d.name.value == operation_name]
    return len(operations) == 1 and operations[0].operation == OperationType.SUBSCRIPTION


def _token_live(token_id: int) -> bool:
    return ApiToken.objects.filter(pk=token_id, revoked_at=None).exists()


def _token_end(token_id: int):
    """When the token stops working as things stand (None: never), or False: revoked."""
    token = ApiToken.objects.select_related("player").filter(pk=token_id, revoked_at=None).first()
    return False if token is None else account_services.token_expires_at(token, token.player)


def _authenticate(header: str | None):
    raw = account_services.bearer_token(header)
    return account_services.player_for_token(raw) if raw is not None else None


def _bad_request(message: str, code: str = "bad_request", status: int = 400) -> HttpResponse:
    body = {"data": None, "errors": [{"message": message, "extensions": {"code": code}}]}
    return HttpResponse(json.dumps(body), status=status, content_type="application/json")


class GraphQLView(AsyncGraphQLView):
    async def dispatch(self, request, *args, **kwargs):
        header = request.headers.get("Authorization")
        try:
            # No header: anonymous, without a trip to a database thread. With one: on a
            # thread that keeps its connection (the moves' threads, games/api/live.py), not
            # on the request's own thread-sensitive executor, which starts a thread and
            # checks a connection out of the pool for every request.
            request.player = (await live.in_db_thread(_authenticate, header=header)
                              if header else None)
        except AuthError as exc:
            return _error_response(exc)
        # Every refusal of the request itself is JSON with a code, never a text or HTML page.
        with ratelimit.http_limits() as limited:
            try:
                response = await self.run(request=request)
            except BadRequest as exc:
                response = _bad_request(exc.message, exc.code)
            except HTTPException as exc:
                code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code,
                                                                        "bad_request")
                response = _bad_request(exc.reason, code, exc.status_code)
        return ratelimit.http_response_mark(response, limited)

    async def execute_operation(self, request, request_adapter, request_data, context,
                                root_value, sub_response):
        plan = None if isinstance(request_data, list) or request.player is None else (
            live.http_act_plan(request_data.query, request_data.operation_name))
        args = plan.arguments(request_data.variables) if plan is not None else None
        if args is not None:
            # A move (never counted against the ceiling), compiled: games/api/live.py.
            result = ExecutionResult(data=orjson.loads(
                await live.compiled_act(plan, args, request.player)))
            metrics.request_observe("act", metrics.outcome_label(result))
            return result
        result = await ratelimit.ceiling_refusal(request, request_data)
        if result is None:
            result = await super().execute_operation(request, request_adapter, request_data,
                                                     context, root_value, sub_response)
        metrics.request_observe(metrics.operation_label(request_data),
                                metrics.outcome_label(result))
        return result

    def decode_json(self, data):
        return decode_request(data)

    async def render_graphql_ide(self, request):
        return ide.page(request)  # GraphiQL with DEBUG, else where the API and docs are

    def _get_stream_transport(self, protocol):
        return None  # no multipart or SSE subscriptions over HTTP: see execute_single

    async def execute_single(self, request, request_adapter, sub_response, context,
                             root_value, request_data):
        # Subscriptions run over the websocket only: over HTTP their resolvers have no
        # socket to listen on.
        if _is_subscription(request_data.query, request_data.operation_name):
            raise BadRequest("subscriptions need the websocket (graphql-transport-ws)",
                             "subscription_over_http")
        return await super().execute_single(request, request_adapter, sub_response, context,
                                            root_value, request_data)

    async def get_context(self, request, response):
        return {"request": request, "response": response,
                "player": getattr(request, "player", None)}

    def encode_json(self, data):
        return _capped(super().encode_json(data), lambda error: {"data": None,
                                                                 "errors": [error]})


graphql_view = csrf_exempt(GraphQLView.as_view(schema=schema, graphql_ide="graphiql"))


class RefuseWebsocket(AsyncWebsocketConsumer):
    """Websockets are served on /graphql/ only; closing before accepting answers 403."""

    async def connect(self):
        await self.close()


class GraphQLWebsocketConsumer(metrics.WebsocketMetrics, ratelimit.WebsocketLimits,
                               GraphQLWSConsumer):
    graphql_transport_ws_handler_class = CheckedTransportWSHandler

    def __init__(self, **kwargs):
        kwargs.setdefault("subscription_protocols", (GRAPHQL_TRANSPORT_WS_PROTOCOL,))
        kwargs.setdefault("connection_init_wait_timeout", dt.timedelta(seconds=10))
        kwargs.setdefault("max_subscriptions_per_connection", settings.WS_MAX_SUBSCRIPTIONS)
        kwargs.setdefault("allowed_origins", settings.WS_ALLOWED_ORIGINS)
        kwargs.setdefault("keep_alive", True)
        kwargs.setdefault("keep_alive_interval", 15)
        super().__init__(schema=schema, **kwargs)
        self.player = None

    async def get_context(self, request, response):
        return {"request": request, "ws": request, "player": self.player}

    def decode_json(self, data):
        decoded = getattr(self, "decoded_frames", None)
        if decoded:  # decoded already by the rate limit's look at a subscribe (ratelimit.py)
            known = decoded.pop(id(data), None)
            if known is not None and known[0] is data:
                return known[1]
        try:
            return decode_body(data)
        except BadRequest as exc:  # strawberry closes the socket with 4400 for this
            raise json.JSONDecodeError(exc.message, "", 0) from None

    async def receive(self, text_data=None, bytes_data=None):
        # Closed for a revocation or an expiry: a client that goes on sending gets nothing
        # applied. Past the token's end (the timer may not have fired yet): look again.
        if getattr(self, "revoked", False) or (
                getattr(self, "expires_at", None) is not None
                and timezone.now() >= self.expires_at and await self.expiry_reached()):
            return
        # Frames are capped like HTTP bodies (the server's own cap is 16 MiB by default).
        if len(text_data or bytes_data or "") > settings.DATA_UPLOAD_MAX_MEMORY_SIZE:
            await self.close(code=1009, reason="message too big")
            return
        await super().receive(text_data=text_data, bytes_data=bytes_data)

    def encode_json(self, data):
        encoded = super().encode_json(data)
        if not (isinstance(data, dict) and data.get("type") == "next"):
            return encoded
        return _capped(encoded, lambda error: {"id": data.get("id"), "type": "next",
                                               "payload": {"data": None, "errors": [error]}})

    async def on_ws_connect(self, context):
        params = context.get("connection_params") or {}
        if not isinstance(params, dict):
            raise ConnectionRejectionError({"code": "invalid_token",
                                            "message": "connection_init payload must be an object"})
        header = params.get("authorization") or params.get("Authorization")
        if header is None and isinstance(params.get("token"), str):
            header = f"Bearer {params['token']}"
        if not isinstance(header, str) or not header:
            raise ConnectionRejectionError({"code": "unauthenticated",
                                            "message": "send your token in connection_init"})
        try:
            player = await sync_to_async(_authenticate)(header)
        except AuthError as exc:
            raise ConnectionRejectionError({"code": exc.code, "message": exc.message}) from None
        self.player = player
        context["player"] = player
        self.groups_joined = [player_group(player.pk)]
        token = getattr(player, "auth_token", None)
        if token is not None:
            self.groups_joined.append(token_group(token.pk))
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
        # A revocation that committed between the check above and joining its group sent
        # its close before we listened: look once more, now that we do.
        if token is not None and not await sync_to_async(_token_live)(token.pk):
            raise ConnectionRejectionError({"code": "invalid_token",
                                            "message": "invalid or revoked token"})
        self.refresher = asyncio.create_task(self.refresh_groups())
        if token is not None:
            self.token_id = token.pk
            self.expires_at = account_services.token_expires_at(token, player)
            if self.expires_at is not None:
                self.expiry_watch = asyncio.create_task(self.watch_expiry())
        return {"player": {"id": str(player.pk), "displayName": player.display_name}}

    async def refresh_groups(self):
        """Re-join every group of this socket (its player's, its token's, its subscriptions')
        well within WS_GROUP_EXPIRY, after which the channel layer forgets a membership."""
        interval = max(1.0, settings.WS_GROUP_EXPIRY / 3)
        while True:
            await asyncio.sleep(interval)
            try:
                for group in {*self.groups_joined, *getattr(self, "_group_refs", {})}:
                    await self.channel_layer.group_add(group, self.channel_name)
            except Exception:  # noqa: BLE001 - Redis away for a moment: try again next time
                log.warning("could not refresh the groups of a websocket", exc_info=True)

    async def watch_expiry(self):
        """Close the socket when its token expires (4401, ``token_expired``), as a request
        with that token would be refused then. An end that moved on meanwhile (a guest's
        idle window renewed over HTTP) keeps it open until the new end."""
        while self.expires_at is not None:
            await asyncio.sleep(max(0.0, (self.expires_at - timezone.now()).total_seconds()))
            if await self.expiry_reached():
                return

    async def expiry_reached(self) -> bool:
        """Past the end known: read the token again, and close when it is over."""
        end = await sync_to_async(_token_end)(self.token_id)
        if end is False:  # revoked meanwhile (its close may still be on its way)
            await self.revoked_close({})
            return True
        if end is None or end > timezone.now():
            self.expires_at = end
            return False
        self.revoked = True
        await self.close(code=4401, reason="token_expired")
        return True

    async def disconnect(self, code):
        for task in (getattr(self, "refresher", None), getattr(self, "expiry_watch", None)):
            if task is not None and task is not asyncio.current_task():
                task.cancel()
        for group in getattr(self, "groups_joined", ()):
            await self.channel_layer.group_discard(group, self.channel_name)
        await super().disconnect(code)

    async def dispatch(self, message):
        # Strawberry hands every channel-layer message to its subscription queues and never
        # to a handler method; the close of a banned player's or a revoked token's sockets
        # must reach ours.
        kind = message.get("type", "")
        if kind in (PLAYER_CLOSE_TYPE, TOKEN_CLOSE_TYPE):
            await self.revoked_close(message)
            return
        if kind.startswith("websocket."):
            # Channels hops to a thread to close stale database connections before every
            # frame; this consumer touches the database only through database_sync_to_async,
            # which does that in its own thread, so each frame is spared a thread hop.
            await getattr(self, get_handler_name(message))(message)
            return
        await super().dispatch(message)

    async def revoked_close(self, message):
        """A ban (the player's group) or a revoked token (its group): close at once, and say
        nothing more on this socket, not even the answer of an operation still running."""
        self.revoked = True
        await self.close(code=4403)

    async def send(self, text_data=None, bytes_data=None, close=False):
        if getattr(self, "revoked", False):
            return
        await super().send(text_data=text_data, bytes_data=bytes_data, close=close)
