"""What every GraphQL module shares: the typed error, the viewer, and auth guards.

Expected failures are returned in each mutation payload as ``errors { code message field }``;
exceptions are for bugs and are masked (see config/schema.py).
"""

from __future__ import annotations

from typing import Any

import strawberry
from strawberry.types import Info

from accounts.errors import DomainError


@strawberry.type(description="An expected failure: switch on `code`; `message` is for people.")
class UserError:
    code: str
    message: str
    field: str | None = None
    retry_after: int | None = strawberry.field(
        default=None, description="With `rate_limited`: seconds to wait before trying again.")

    @classmethod
    def of(cls, exc: Exception) -> UserError:
        return cls(code=getattr(exc, "code", "error"), message=getattr(exc, "message", str(exc)),
                   field=getattr(exc, "field", None),
                   retry_after=getattr(exc, "retry_after", None))


def viewer(info: Info) -> Any | None:
    """The authenticated player of this request or websocket, or None."""
    ctx = info.context
    return ctx.get("player") if isinstance(ctx, dict) else getattr(ctx, "player", None)


def require_viewer(info: Info):
    player = viewer(info)
    if player is None:
        raise DomainError("unauthenticated", "sign in first: send 'Authorization: Bearer <token>'")
    return player
