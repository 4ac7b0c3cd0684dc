"""Players (the custom user model) and their API tokens.

A player is a person with a password, a guest with only a token, or a bot. Tokens are stored
as SHA-256 hashes: they are long random strings, so a fast hash is as safe as a slow one and
lets every request find its token with one indexed lookup.
"""

import hashlib

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils import timezone


class Player(AbstractUser):
    display_name = models.CharField(max_length=40)
    is_guest = models.BooleanField(default=False)
    is_bot = models.BooleanField(default=False)
    bot_level = models.CharField(max_length=20, blank=True)

    banned_at = models.DateTimeField(null=True, blank=True)
    banned_until = models.DateTimeField(null=True, blank=True,
                                        help_text="Empty with a ban date: banned for good.")
    ban_reason = models.CharField(max_length=500, blank=True)
    muted_until = models.DateTimeField(null=True, blank=True)
    mute_reason = models.CharField(max_length=500, blank=True)

    REQUIRED_FIELDS = ["display_name"]

    class Meta:
        ordering = ["id"]
        permissions = [("ban_player", "Can ban and unban players"),
                       ("mute_player", "Can mute and unmute players"),
                       ("revoke_player_tokens", "Can revoke all API tokens of a player")]

    def __str__(self) -> str:
        return f"{self.display_name} ({self.username})"

    def is_banned(self, now=None) -> bool:
        if self.banned_at is None:
            return False
        return self.banned_until is None or self.banned_until > (now or timezone.now())

    def is_muted(self, now=None) -> bool:
        return self.muted_until is not None and self.muted_until > (now or timezone.now())


def hash_token(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


class ApiToken(models.Model):
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=12, help_text="The first characters, to tell tokens apart.")
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True,
                                      help_text="Empty: no end date (a guest's token still "
                                                "ends after GUEST_TOKEN_IDLE_DAYS unused).")

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None
