"""What every GraphQL module shares: the typed error and its code enum, the payload helper,
the viewer, and auth guards.

Expected failures are returned in each mutation payload as ``errors { code message field }``;
exceptions are for bugs and are masked (see config/schema.py). ``code`` is the ``ErrorCode``
enum, built from the codes each domain owns (``accounts.errors.CODES``,
``games.errors.codes()`` with every registered game's own, ``tournaments.errors.CODES``, and
the request limits below), so a generated client can switch on it; its values are the codes
themselves (``not_found``), so JSON clients compare the same strings as before.
"""

from __future__ import annotations

import functools
from enum import Enum
from typing import Any

import strawberry
from strawberry.types import Info

from accounts import errors as account_errors
from accounts.errors import DomainError
from games import errors as game_errors
from tournaments import errors as tournament_errors

# The API's own: request limits (config/ratelimit.py, config/reads.py).
CODES = ("rate_limited", "query_timeout")


def all_codes() -> list[str]:
    out = dict.fromkeys(account_errors.CODES)
    out.update(dict.fromkeys(game_errors.codes()))
    out.update(dict.fromkeys(tournament_errors.CODES))
    out.update(dict.fromkeys(CODES))
    return list(out)


# A str mixin: a payload may carry the code as a plain string, and it compares equal.
ErrorCode = strawberry.enum(Enum("ErrorCode", {code: code for code in all_codes()}, type=str),
                            description="Why an expected failure happened; the values are "
                                        "stable (docs/api.md, docs/games/).")


@strawberry.type(description="An expected failure: switch on `code`; `message` is for people.")
class UserError:
    code: ErrorCode
    message: str
    field: str | None = None
    retry_after: int | None = strawberry.field(
        default=None, description="With `rate_limited`: seconds to wait before trying again.")

    @classmethod
    def of(cls, exc: Exception) -> UserError:
        return cls(code=ErrorCode(getattr(exc, "code", "error")),
                   message=getattr(exc, "message", str(exc)),
                   field=getattr(exc, "field", None),
                   retry_after=getattr(exc, "retry_after", None))


def payload(resolver):
    """A mutation resolver that answers a ``DomainError`` with its payload type's ``errors``
    instead of raising: the one place that turns expected failures into typed errors. The
    payload type is the resolver's return annotation and must have an ``errors`` field."""

    @functools.wraps(resolver)
    async def wrapper(*args, **kwargs):
        try:
            return await resolver(*args, **kwargs)
        except DomainError as exc:
            return _payload_type(resolver)(errors=[UserError.of(exc)])

    return wrapper


@functools.cache
def _payload_type(resolver) -> type:
    import typing

    return typing.get_type_hints(resolver)["return"]


def viewer(info: Info) -> Any | None:
    """The authenticated player of this request or websocket, or None."""
    ctx = info.context
    return ctx.get("player") if isinstance(ctx, dict) else getattr(ctx, "player", None)


def require_viewer(info: Info):
    player = viewer(info)
    if player is None:
        raise DomainError("unauthenticated", "sign in first: send 'Authorization: Bearer <token>'")
    return player
