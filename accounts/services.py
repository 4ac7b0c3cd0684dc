"""The only code that writes players and tokens."""

import secrets
from datetime import timedelta

from django.contrib.auth import password_validation
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from .errors import AuthError, DomainError
from .models import ApiToken, Player, hash_token

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
    token = ApiToken.objects.create(player=player, name=name, prefix=raw[:12],
                                    key_hash=hash_token(raw))
    return token, raw


@transaction.atomic
def guest_create(*, display_name: str) -> tuple[Player, str]:
    name = _clean_display_name(display_name)
    player = Player(username=f"guest-{secrets.token_hex(8)}", display_name=name, is_guest=True)
    player.set_unusable_password()
    player.save()
    _, raw = _new_token(player, "guest")
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
    _, raw = _new_token(player, "login")
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
    _, raw = _new_token(player, token_name)
    return player, raw


def api_token_create(*, player: Player, name: str) -> tuple[ApiToken, str]:
    return _new_token(player, name)


def api_token_revoke(*, player: Player, token_id: int) -> ApiToken:
    token = ApiToken.objects.filter(pk=token_id, player=player).first()
    if token is None:
        raise DomainError("not_found", "no such token", field="id")
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


def api_tokens_revoke_all(*, player: Player) -> int:
    return ApiToken.objects.filter(player=player, revoked_at=None).update(revoked_at=timezone.now())


def player_for_token(raw: str) -> Player:
    """The player a bearer token belongs to; raises ``AuthError`` with a precise code."""
    if not raw or not raw.startswith(TOKEN_PREFIX) or len(raw) > 200:
        raise AuthError("invalid_token", "invalid or revoked token")
    token = (ApiToken.objects.select_related("player")
             .filter(key_hash=hash_token(raw)).first())
    if token is None or token.revoked_at is not None:
        raise AuthError("invalid_token", "invalid or revoked token")
    player = token.player
    now = timezone.now()
    if player.is_banned(now):
        raise AuthError("banned", "this account is banned")
    if not player.is_active:
        raise AuthError("inactive", "this account is disabled")
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_PRECISION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return player


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
