from __future__ import annotations

from datetime import datetime

import strawberry

from accounts.models import ApiToken, Player


@strawberry.type(name="Player", description="A person, a guest or a bot, as others see them.")
class PlayerType:
    id: strawberry.ID
    display_name: str
    is_guest: bool
    is_bot: bool

    @classmethod
    def of(cls, player: Player) -> PlayerType:
        return cls(id=strawberry.ID(str(player.pk)), display_name=player.display_name,
                   is_guest=player.is_guest, is_bot=player.is_bot)


@strawberry.type(name="Me", description="The signed-in player, with what only they may see.")
class MeType(PlayerType):
    username: str
    is_staff: bool
    muted_until: datetime | None
    token_expires_at: datetime | None = strawberry.field(description=(
        "When the token of this request stops working (null: no end). A guest's token ends "
        "after a time unused, so for guests this moves on with every use."))

    @classmethod
    def of(cls, player: Player, token: ApiToken | None = None) -> MeType:
        from accounts.services import token_expires_at

        token = token or getattr(player, "auth_token", None)
        return cls(id=strawberry.ID(str(player.pk)), display_name=player.display_name,
                   is_guest=player.is_guest, is_bot=player.is_bot, username=player.username,
                   is_staff=player.is_staff,
                   muted_until=player.muted_until if player.is_muted() else None,
                   token_expires_at=token_expires_at(token, player) if token else None)


@strawberry.type(name="ApiToken", description="A token's metadata; the secret is never shown again.")
class ApiTokenType:
    id: strawberry.ID
    name: str
    prefix: str
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None
    expires_at: datetime | None

    @classmethod
    def of(cls, token: ApiToken) -> ApiTokenType:
        return cls(id=strawberry.ID(str(token.pk)), name=token.name, prefix=token.prefix,
                   created_at=token.created_at, last_used_at=token.last_used_at,
                   revoked_at=token.revoked_at, expires_at=token.expires_at)
