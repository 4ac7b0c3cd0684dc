"""Accounts over GraphQL: guests, registration, login, the viewer and API tokens."""

from __future__ import annotations

import strawberry
from channels.db import database_sync_to_async as sync_to_async
from strawberry.types import Info

from accounts import services
from accounts.errors import DomainError
from config import ratelimit
from config.api import UserError, payload, require_viewer, viewer

from .types import ApiTokenType, MeType


@strawberry.type
class AuthPayload:
    token: str | None = strawberry.field(
        default=None, description="The new bearer token. Shown once: store it.")
    me: MeType | None = None
    errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class CreateApiTokenPayload:
    token: str | None = strawberry.field(default=None, description="Shown once: store it.")
    api_token: ApiTokenType | None = None
    errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class RevokeApiTokenPayload:
    api_token: ApiTokenType | None = None
    errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class Query:
    @strawberry.field(description="The signed-in player; null without a token.")
    def me(self, info: Info) -> MeType | None:
        player = viewer(info)
        return MeType.of(player) if player else None

    @strawberry.field(description="The signed-in player's API tokens (metadata only).")
    async def api_tokens(self, info: Info) -> list[ApiTokenType]:
        player = require_viewer(info)
        tokens = await sync_to_async(lambda: list(player.api_tokens.all()))()
        return [ApiTokenType.of(t) for t in tokens]


@strawberry.type
class Mutation:
    @strawberry.mutation(description="A guest player and its token; no password needed.")
    @payload
    async def create_guest(self, info: Info, display_name: str) -> AuthPayload:
        address = ratelimit.info_address(info)

        def run():
            ratelimit.hit("create_guest", address)
            return services.guest_create(display_name=display_name)

        player, raw = await sync_to_async(run)()
        return AuthPayload(token=raw, me=MeType.of(player))

    @strawberry.mutation(description=(
        "Register with a password. Called with a guest's token, the guest becomes this "
        "registered player and keeps its history."))
    @payload
    async def register(self, info: Info, username: str, password: str,
                       display_name: str) -> AuthPayload:
        address = ratelimit.info_address(info)

        def run():
            ratelimit.hit("register", address)
            return services.player_register(username=username, password=password,
                                            display_name=display_name, guest=viewer(info))

        player, raw = await sync_to_async(run)()
        return AuthPayload(token=raw, me=MeType.of(player))

    @strawberry.mutation(description="A new token for a registered player.")
    @payload
    async def login(self, info: Info, username: str, password: str) -> AuthPayload:
        address = ratelimit.info_address(info)

        def run():
            return ratelimit.login_guarded(
                lambda: services.player_login(username=username, password=password),
                username=username, address=address)

        player, raw = await sync_to_async(run)()
        return AuthPayload(token=raw, me=MeType.of(player))

    @strawberry.mutation(description="A further named token, e.g. one per device or bot script.")
    @payload
    async def create_api_token(self, info: Info, name: str) -> CreateApiTokenPayload:
        player = require_viewer(info)
        token, raw = await sync_to_async(services.api_token_create)(player=player, name=name)
        return CreateApiTokenPayload(token=raw, api_token=ApiTokenType.of(token))

    @strawberry.mutation(description=(
        "Change your password. Every other token of yours is revoked and its websockets are "
        "closed; the token of this request goes on working."))
    @payload
    async def change_password(self, info: Info, current_password: str,
                              new_password: str) -> AuthPayload:
        player = require_viewer(info)
        await sync_to_async(services.player_password_change)(
            player=player, current_password=current_password, new_password=new_password,
            keep=getattr(player, "auth_token", None))
        return AuthPayload(me=MeType.of(player))

    @strawberry.mutation(description="Revoke one of your tokens; it is refused from then on.")
    @payload
    async def revoke_api_token(self, info: Info, id: strawberry.ID) -> RevokeApiTokenPayload:
        player = require_viewer(info)
        try:
            token_id = int(id)
        except ValueError:
            raise DomainError("not_found", "no such token", field="id") from None
        token = await sync_to_async(services.api_token_revoke)(player=player,
                                                              token_id=token_id)
        return RevokeApiTokenPayload(api_token=ApiTokenType.of(token))
