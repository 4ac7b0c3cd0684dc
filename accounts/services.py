"""The only code that writes players and tokens.

Tokens may expire: ``API_TOKEN_LIFETIME_DAYS`` gives new tokens of registered players an
end date (0: none); a guest's token ends after ``GUEST_TOKEN_IDLE_DAYS`` without use (a
guest has nothing else to sign in with, so it lives as long as it is used). Revoking a token,
revoking all of a player's, and a password change close the websockets of those tokens.
"""

import functools
import secrets
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import password_validation
from django.core.exceptions import ValidationError
from django.db import DEFAULT_DB_ALIAS, IntegrityError, connection, transaction
from django.utils import timezone

from config import hotsql

from .errors import AuthError, DomainError
from .models import ApiToken, Player, hash_token
from .realtime import close_token_sockets_on_commit

TOKEN_PREFIX = "stp_"
# Writing last_used_at on every request would turn each read into a write; a minute is
# precise enough to tell a moderator which tokens are alive.
LAST_USED_PRECISION = timedelta(minutes=1)


def _clean_display_name(display_name: str) -> str:
    name = " ".join((display_name or "").split())
    if not 1 <= len(name) <= 40:
        raise DomainError("invalid_display_name", "display name must be 1 to 40 characters",
                          field="displayName")
    return name


def _new_token(player: Player, name: str) -> tuple[ApiToken, str]:
    name = (name or "").strip()
    if not 1 <= len(name) <= 100:
        raise DomainError("invalid_token_name", "token name must be 1 to 100 characters",
                          field="name")
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    lifetime = settings.API_TOKEN_LIFETIME_DAYS
    expires_at = (timezone.now() + timedelta(days=lifetime)
                  if lifetime > 0 and not player.is_guest else None)
    token = ApiToken.objects.create(player=player, name=name, prefix=raw[:12],
                                    key_hash=hash_token(raw), expires_at=expires_at)
    return token, raw


def token_expires_at(token: ApiToken, player: Player):
    """When ``token`` stops working if nothing changes: its end date, or for a guest the end
    of its idle window (it moves on with every use)."""
    idle = settings.GUEST_TOKEN_IDLE_DAYS
    if player.is_guest and idle > 0:
        idle_end = (token.last_used_at or token.created_at) + timedelta(days=idle)
        return min(idle_end, token.expires_at) if token.expires_at else idle_end
    return token.expires_at


@transaction.atomic
def guest_create(*, display_name: str) -> tuple[Player, str]:
    name = _clean_display_name(display_name)
    player = Player(username=f"guest-{secrets.token_hex(8)}", display_name=name, is_guest=True)
    player.set_unusable_password()
    player.save()
    player.auth_token, raw = _new_token(player, "guest")
    return player, raw


@transaction.atomic
def player_register(*, username: str, password: str, display_name: str,
                    guest: Player | None = None) -> tuple[Player, str]:
    """Register a player; a guest passing itself keeps its history and becomes registered."""
    username = (username or "").strip()
    if not (3 <= len(username) <= 150) or not all(c.isalnum() or c in "._-" for c in username):
        raise DomainError("invalid_username",
                          "username must be 3 to 150 letters, digits or . _ -", field="username")
    if username.lower().startswith("guest-") or username.lower().startswith("bot-"):
        raise DomainError("invalid_username", "that username is reserved", field="username")
    name = _clean_display_name(display_name)
    if Player.objects.filter(username__iexact=username).exists():
        raise DomainError("username_taken", "that username is taken", field="username")
    player = guest if guest is not None and guest.is_guest else Player()
    player.username, player.display_name, player.is_guest = username, name, False
    try:
        password_validation.validate_password(password or "", player)
    except ValidationError as exc:
        raise DomainError("invalid_password", " ".join(exc.messages), field="password") from None
    player.set_password(password)
    try:
        player.save()
    except IntegrityError:
        raise DomainError("username_taken", "that username is taken", field="username") from None
    player.auth_token, raw = _new_token(player, "login")
    return player, raw


def player_login(*, username: str, password: str, token_name: str = "login") -> tuple[Player, str]:
    player = Player.objects.filter(username__iexact=(username or "").strip(), is_bot=False).first()
    # Same answer for an unknown user and a wrong password: no account enumeration.
    if player is None or not player.check_password(password or ""):
        raise AuthError("invalid_credentials", "wrong username or password")
    if player.is_banned():
        raise AuthError("banned", "this account is banned")
    if not player.is_active:
        raise AuthError("inactive", "this account is disabled")
    player.auth_token, raw = _new_token(player, token_name)
    return player, raw


def api_token_create(*, player: Player, name: str) -> tuple[ApiToken, str]:
    return _new_token(player, name)


@transaction.atomic
def api_token_revoke(*, player: Player, token_id: int) -> ApiToken:
    token = ApiToken.objects.select_for_update().filter(pk=token_id, player=player).first()
    if token is None:
        raise DomainError("not_found", "no such token", field="id")
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
        close_token_sockets_on_commit([token.pk])
    return token


@transaction.atomic
def api_tokens_revoke_all(*, player: Player, keep: ApiToken | None = None) -> int:
    live = ApiToken.objects.filter(player=player, revoked_at=None)
    if keep is not None:
        live = live.exclude(pk=keep.pk)
    ids = list(live.select_for_update().values_list("pk", flat=True))
    ApiToken.objects.filter(pk__in=ids).update(revoked_at=timezone.now())
    close_token_sockets_on_commit(ids)
    return len(ids)


@transaction.atomic
def player_password_change(*, player: Player, current_password: str | None, new_password: str,
                           keep: ApiToken | None = None) -> int:
    """A new password; every token but ``keep`` (the one this change was made with) is
    revoked and its sockets closed. ``current_password=None``: an admin sets it."""
    if current_password is not None and not player.check_password(current_password or ""):
        raise DomainError("invalid_credentials", "the current password is wrong",
                          field="currentPassword")
    try:
        password_validation.validate_password(new_password or "", player)
    except ValidationError as exc:
        raise DomainError("invalid_password", " ".join(exc.messages),
                          field="newPassword") from None
    player.set_password(new_password)
    player.save(update_fields=["password"])
    return api_tokens_revoke_all(player=player, keep=keep)


def player_for_token(raw: str) -> Player:
    """The player a bearer token belongs to; raises ``AuthError`` with a precise code."""
    if not raw or not raw.startswith(TOKEN_PREFIX) or len(raw) > 200:
        raise AuthError("invalid_token", "invalid or revoked token")
    token = _token_with_player(hash_token(raw))
    if token is None or token.revoked_at is not None:
        raise AuthError("invalid_token", "invalid or revoked token")
    player = token.player
    now = timezone.now()
    expires_at = token_expires_at(token, player)
    if expires_at is not None and expires_at <= now:
        raise AuthError("token_expired", "this token has expired: sign in again")
    if player.is_banned(now):
        raise AuthError("banned", "this account is banned")
    if not player.is_active:
        raise AuthError("inactive", "this account is disabled")
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_PRECISION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    # The token this request came with: websockets join its group, `me` shows its expiry.
    player.auth_token = token
    return player


def _token_with_player(key_hash: str) -> ApiToken | None:
    """The token of ``key_hash`` with its player loaded. Every authenticated request reads
    it: on PostgreSQL as one prepared statement (``config.hotsql``), where the ORM spent
    about 0.8 ms of CPU compiling the same query for each request (a fifth of an HTTP move)."""
    sql = _token_sql()
    if sql is None:
        return ApiToken.objects.select_related("player").filter(key_hash=key_hash).first()
    row = hotsql.fetch_one(sql, [key_hash], autocommit=False)
    if row is None:
        return None
    split = len(ApiToken._meta.concrete_fields)
    token = ApiToken.from_db(DEFAULT_DB_ALIAS, None, row[:split])
    token._state.fields_cache["player"] = Player.from_db(DEFAULT_DB_ALIAS, None, row[split:])
    return token


@functools.cache
def _token_columns() -> str | None:
    """The columns of a token and its player, in field order; None where a field needs a
    conversion from what the database sends (then the ORM reads them)."""
    fields = [*ApiToken._meta.concrete_fields, *Player._meta.concrete_fields]
    if any(f.get_db_converters(connection) or connection.ops.get_db_converters(f)
           for f in fields):
        return None
    return ", ".join([*(f't."{f.column}"' for f in ApiToken._meta.concrete_fields),
                      *(f'p."{f.column}"' for f in Player._meta.concrete_fields)])


def _token_sql() -> str | None:
    if connection.vendor != "postgresql" or (columns := _token_columns()) is None:
        return None
    return (f"SELECT {columns} FROM {ApiToken._meta.db_table} t "
            f"JOIN {Player._meta.db_table} p ON p.id = t.player_id WHERE t.key_hash = %s")


def bearer_token(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header; None when there is no header.

    A header that is present but not of that form raises ``AuthError("malformed_authorization")``.
    """
    if header is None or header == "":
        return None
    parts = header.split()
    if len(parts) != 2 or parts[0].lower() != "bearer":
        raise AuthError("malformed_authorization",
                        "the Authorization header must be 'Bearer <token>'")
    return parts[1]
