"""Webhook endpoints and their delivery log over GraphQL (organisers and staff).

The secret comes back once, in the payload of ``createWebhookEndpoint`` (and
``rotateWebhookSecret``); no query returns it. A disabled endpoint says so and why
(``isActive``, ``disabledAt``, ``disabledReason``): that is how its owner is told.
"""

from __future__ import annotations

from datetime import datetime
from enum import Enum

import strawberry
from channels.db import database_sync_to_async
from strawberry.scalars import JSON
from strawberry.types import Info

from config.api import UserError, payload, require_viewer
from tournaments import webhooks
from tournaments.models import WebhookDelivery, WebhookEndpoint

WebhookEvent = strawberry.enum(
    Enum("WebhookEvent", {e.split(".", 1)[1].upper(): e for e in webhooks.EVENTS}),
    description="Event types an endpoint can ask for (the payload's `type`).")


@strawberry.type(name="WebhookDelivery", description=(
    "One event for one endpoint; every try carries the same `webhook-id` (`messageId`)."))
class WebhookDeliveryType:
    id: strawberry.ID
    message_id: str
    event_type: str
    status: str = strawberry.field(description="pending, succeeded or failed")
    attempts: int
    last_status_code: int | None
    last_error: str
    next_attempt_at: datetime | None
    created_at: datetime
    delivered_at: datetime | None
    payload: JSON

    @classmethod
    def of(cls, d: WebhookDelivery) -> WebhookDeliveryType:
        return cls(id=strawberry.ID(str(d.pk)), message_id=d.message_id,
                   event_type=d.event_type, status=d.status, attempts=d.attempts,
                   last_status_code=d.last_status_code, last_error=d.last_error,
                   next_attempt_at=d.next_attempt_at, created_at=d.created_at,
                   delivered_at=d.delivered_at, payload=d.payload)


@strawberry.type(name="WebhookEndpoint")
class WebhookEndpointType:
    id: strawberry.ID
    url: str
    description: str
    tournament_id: strawberry.ID | None = strawberry.field(
        description="Empty: every tournament you organise.")
    events: list[str] = strawberry.field(description="Empty: every event.")
    is_active: bool
    disabled_at: datetime | None
    disabled_reason: str = strawberry.field(description=(
        "Why it was disabled (for example after repeated failed tries)."))
    consecutive_failures: int
    created_at: datetime

    @classmethod
    def of(cls, e: WebhookEndpoint) -> WebhookEndpointType:
        return cls(id=strawberry.ID(str(e.pk)), url=e.url, description=e.description,
                   tournament_id=strawberry.ID(str(e.tournament_id)) if e.tournament_id
                   else None, events=list(e.events), is_active=e.is_active,
                   disabled_at=e.disabled_at, disabled_reason=e.disabled_reason,
                   consecutive_failures=e.consecutive_failures, created_at=e.created_at)

    @strawberry.field(description="The latest deliveries, newest first.")
    async def deliveries(self, info: Info, first: int = 20) -> list[WebhookDeliveryType]:
        player = require_viewer(info)
        rows = await database_sync_to_async(webhooks.deliveries_of)(
            actor=player, endpoint_id=self.id, first=max(1, min(first, 100)))
        return [WebhookDeliveryType.of(d) for d in rows]


@strawberry.input
class CreateWebhookEndpointInput:
    url: str
    tournament_id: strawberry.ID | None = strawberry.field(
        default=None, description="Empty: every tournament you organise.")
    events: list[WebhookEvent] | None = strawberry.field(
        default=None, description="Empty: every event.")
    description: str = ""


@strawberry.input
class UpdateWebhookEndpointInput:
    id: strawberry.ID
    url: str | None = None
    events: list[WebhookEvent] | None = None
    description: str | None = None
    active: bool | None = strawberry.field(default=None, description=(
        "true enables a disabled endpoint again; false disables it."))


@strawberry.type
class WebhookEndpointPayload:
    endpoint: WebhookEndpointType | None = None
    secret: str | None = strawberry.field(default=None, description=(
        "The signing secret (`whsec_...`): shown only here, once."))
    errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class WebhookDeliveryPayload:
    delivery: WebhookDeliveryType | None = None
    errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class DeleteWebhookEndpointPayload:
    ok: bool = False
    errors: list[UserError] = strawberry.field(default_factory=list)


def _events(values) -> list[str] | None:
    return None if values is None else [v.value for v in values]


@strawberry.type
class Query:
    @strawberry.field(description="Your webhook endpoints (organisers and staff).")
    async def webhook_endpoints(self, info: Info) -> list[WebhookEndpointType]:
        player = require_viewer(info)
        rows = await database_sync_to_async(webhooks.endpoints_of)(player)
        return [WebhookEndpointType.of(e) for e in rows]


@strawberry.type
class Mutation:
    @strawberry.mutation(description=(
        "Register a URL for tournament events, signed per Standard Webhooks; the secret is "
        "in this payload only."))
    @payload
    async def create_webhook_endpoint(self, info: Info, input: CreateWebhookEndpointInput,
                                      ) -> WebhookEndpointPayload:
        player = require_viewer(info)
        endpoint, secret = await database_sync_to_async(webhooks.endpoint_create)(
            owner=player, url=input.url, tournament_id=input.tournament_id,
            events=_events(input.events), description=input.description)
        return WebhookEndpointPayload(endpoint=WebhookEndpointType.of(endpoint),
                                      secret=secret)

    @strawberry.mutation
    @payload
    async def update_webhook_endpoint(self, info: Info, input: UpdateWebhookEndpointInput,
                                      ) -> WebhookEndpointPayload:
        player = require_viewer(info)
        endpoint = await database_sync_to_async(webhooks.endpoint_update)(
            actor=player, endpoint_id=input.id, url=input.url, events=_events(input.events),
            description=input.description, active=input.active)
        return WebhookEndpointPayload(endpoint=WebhookEndpointType.of(endpoint))

    @strawberry.mutation(description="A new secret, shown once; the old one stops at once.")
    @payload
    async def rotate_webhook_secret(self, info: Info, id: strawberry.ID,
                                    ) -> WebhookEndpointPayload:
        player = require_viewer(info)
        endpoint, secret = await database_sync_to_async(webhooks.endpoint_rotate_secret)(
            actor=player, endpoint_id=id)
        return WebhookEndpointPayload(endpoint=WebhookEndpointType.of(endpoint),
                                      secret=secret)

    @strawberry.mutation
    @payload
    async def delete_webhook_endpoint(self, info: Info, id: strawberry.ID,
                                      ) -> DeleteWebhookEndpointPayload:
        player = require_viewer(info)
        await database_sync_to_async(webhooks.endpoint_delete)(actor=player, endpoint_id=id)
        return DeleteWebhookEndpointPayload(ok=True)

    @strawberry.mutation(description=(
        "Send a `webhook.test` event to this endpoint now (also when it is disabled)."))
    @payload
    async def send_test_webhook(self, info: Info, id: strawberry.ID) -> WebhookDeliveryPayload:
        player = require_viewer(info)
        delivery = await database_sync_to_async(webhooks.endpoint_send_test)(
            actor=player, endpoint_id=id)
        return WebhookDeliveryPayload(delivery=WebhookDeliveryType.of(delivery))
