"""The /graphql/ endpoint: HTTP through Django, websockets through Channels, both with
bearer tokens.

HTTP: ``Authorization: Bearer <token>``. A request without the header is anonymous; a
malformed header, an unknown or revoked token, or a banned player gets a 401/403 with a
GraphQL-shaped error body and a code, before any resolver runs.

Websockets: ``graphql-transport-ws`` only (the legacy ``graphql-ws`` protocol had an auth
bypass and is not offered). The token goes in the ``connection_init`` payload as
``{"authorization": "Bearer <token>"}`` (or ``{"token": "<token>"}``); without a valid one the
connection is closed with 4403. Each connection joins its player's group, so a ban can close
every socket of that player at once.
"""

from __future__ import annotations

import datetime as dt
import json

from channels.db import database_sync_to_async as sync_to_async
from django.conf import settings
from django.http import HttpResponse
from django.views.decorators.csrf import csrf_exempt
from strawberry.channels import GraphQLWSConsumer
from strawberry.django.views import AsyncGraphQLView
from strawberry.exceptions import ConnectionRejectionError
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL

from accounts import services as account_services
from accounts.errors import AuthError
from games.realtime import PLAYER_CLOSE_TYPE, player_group

from . import metrics, ratelimit
from .schema import schema

__all__ = ["GraphQLWebsocketConsumer", "graphql_view", "player_group"]


def _error_response(exc: AuthError) -> HttpResponse:
    status = 403 if exc.code in {"banned", "inactive"} else 401
    body = {"data": None, "errors": [{"message": exc.message, "extensions": {"code": exc.code}}]}
    response = HttpResponse(json.dumps(body), status=status, content_type="application/json")
    if status == 401:
        response["WWW-Authenticate"] = 'Bearer realm="stapel"'
    return response


def _authenticate(header: str | None):
    raw = account_services.bearer_token(header)
    return account_services.player_for_token(raw) if raw is not None else None


class GraphQLView(AsyncGraphQLView):
    async def dispatch(self, request, *args, **kwargs):
        header = request.headers.get("Authorization")
        try:
            # No header: anonymous, without a trip to the database thread.
            request.player = await sync_to_async(_authenticate)(header) if header else None
        except AuthError as exc:
            return _error_response(exc)
        with ratelimit.http_limits() as limited:
            response = await super().dispatch(request, *args, **kwargs)
        return ratelimit.http_response_mark(response, limited)

    async def execute_operation(self, request, request_adapter, request_data, context,
                                root_value, sub_response):
        result = await ratelimit.ceiling_refusal(request, request_data)
        if result is None:
            result = await super().execute_operation(request, request_adapter, request_data,
                                                     context, root_value, sub_response)
        metrics.request_observe(metrics.operation_label(request_data),
                                metrics.outcome_label(result))
        return result

    async def get_context(self, request, response):
        return {"request": request, "response": response,
                "player": getattr(request, "player", None)}


graphql_view = csrf_exempt(GraphQLView.as_view(
    schema=schema, graphql_ide="graphiql" if settings.DEBUG else None))


class GraphQLWebsocketConsumer(metrics.WebsocketMetrics, ratelimit.WebsocketLimits,
                               GraphQLWSConsumer):
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
        await self.channel_layer.group_add(player_group(player.pk), self.channel_name)
        return {"player": {"id": str(player.pk), "displayName": player.display_name}}

    async def disconnect(self, code):
        if self.player is not None:
            await self.channel_layer.group_discard(player_group(self.player.pk),
                                                   self.channel_name)
        await super().disconnect(code)

    async def dispatch(self, message):
        # Strawberry hands every channel-layer message to its subscription queues and never
        # to a handler method; the close of a banned player's sockets must reach ours.
        if message.get("type") == PLAYER_CLOSE_TYPE:
            await self.player_close(message)
            return
        await super().dispatch(message)

    async def player_close(self, message):
        """Sent to a player's group when they are banned: close every socket at once."""
        await self.close(code=4403)
