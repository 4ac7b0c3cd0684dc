"""Tables, their seats, and the append-only log of everything that happened at them.

A table hosts one match. Its row holds the engine state (JSON) and a version that grows by
one with every state change, so a move is one locked row update plus one appended log row.
The log (``TableLogEntry``) is at once the action record (who did what, with which
idempotency key) and the per-table event stream (numbered by ``seq``) that reconnecting
clients resume from. Its events are stored unredacted with their ``visible_to``; they are
redacted per viewer whenever they leave the server.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q


class TableStatus(models.TextChoices):
    OPEN = "open"
    PLAYING = "playing"
    FINISHED = "finished"
    ABORTED = "aborted"


class Visibility(models.TextChoices):
    PUBLIC = "public"
    PRIVATE = "private"


def new_invite_code() -> str:
    return secrets.token_urlsafe(9)


PUBLIC_ID_LENGTH = 12


def new_public_id() -> str:
    """A table's id as clients see it: 72 random bits, URL-safe. The integer key stays
    internal, so ids tried in sequence find nothing and say nothing about how many tables
    there are."""
    return secrets.token_urlsafe(9)


class Table(models.Model):
    public_id = models.CharField(max_length=PUBLIC_ID_LENGTH, unique=True, default=new_public_id,
                                 editable=False, help_text="The id clients see (the API's Table.id).")
    game = models.CharField(max_length=32, db_index=True)
    options = models.JSONField(default=dict, help_text="Every house rule, validated.")
    seat_count = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=10, choices=TableStatus.choices,
                              default=TableStatus.OPEN, db_index=True)
    visibility = models.CharField(max_length=10, choices=Visibility.choices,
                                  default=Visibility.PUBLIC)
    invite_code = models.CharField(max_length=16, default=new_invite_code, unique=True)
    creator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                related_name="created_tables")
    turn_clock_seconds = models.PositiveIntegerField(default=0, help_text="0: no clock")
    allow_spectators = models.BooleanField(default=True)
    spectators_may_chat = models.BooleanField(default=False)
    tournament_table = models.BooleanField(default=False)
    spectator_delay_seconds = models.PositiveIntegerField(
        default=0, help_text="Spectators get this table's events this many seconds late; "
                             "seated players never wait.")

    seed = models.BigIntegerField(default=0)
    state = models.JSONField(null=True, blank=True)
    version = models.PositiveIntegerField(default=0)
    last_seq = models.PositiveIntegerField(default=0)
    round_number = models.PositiveIntegerField(default=0)
    # In no index, like every column a move writes (state, version, last_seq, changed_at):
    # PostgreSQL then updates the row in place of its page (a HOT update) instead of adding
    # an entry to each of the table's indexes. The deadline sweep goes by ``status``.
    deadline = models.DateTimeField(null=True, blank=True)
    changed_at = models.DateTimeField(null=True, blank=True,
                                      help_text="Last state change; stalled tables are swept.")
    result = models.JSONField(null=True, blank=True)
    abort_reason = models.CharField(max_length=500, blank=True)

    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status", "visibility", "game"])]
        permissions = [("abort_table", "Can abort a table"),
                       ("view_table_state", "Can see the full state of a table (every hand)")]

    def __str__(self) -> str:
        return f"{self.game} table #{self.pk} {self.public_id} ({self.status})"

    @property
    def is_active(self) -> bool:
        return self.status in (TableStatus.OPEN, TableStatus.PLAYING)


class Seat(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField()
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                               related_name="seats")
    is_bot = models.BooleanField(default=False)
    bot_level = models.CharField(max_length=20, blank=True)
    taken_over_by_bot = models.BooleanField(
        default=False, help_text="A bot plays for the player (missed turns or a ban).")
    missed_turns = models.PositiveSmallIntegerField(default=0)
    joined_at = models.DateTimeField(auto_now_add=True)
    left_at = models.DateTimeField(
        null=True, blank=True, help_text="The player left during the match: a bot plays the "
                                         "seat to the end, and they only watch.")

    class Meta:
        ordering = ["table_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["table", "position"], name="one_player_per_seat"),
            models.UniqueConstraint(fields=["table", "player"], condition=Q(is_bot=False),
                                    name="one_seat_per_person"),
        ]

    def __str__(self) -> str:
        return f"seat {self.position} of table #{self.table_id}"

    @property
    def plays_as_bot(self) -> bool:
        return self.is_bot or self.taken_over_by_bot


class LogKind(models.TextChoices):
    ACTION = "action"          # a person's move
    BOT = "bot"                # a bot's move (also a bot playing for a person)
    TIMEOUT = "timeout"        # the default move at a turn deadline
    START = "start"            # the first deal
    NEXT_ROUND = "next_round"  # scoring and the next deal
    SEATS = "seats"            # join, leave, bots added or taking over
    ABORT = "abort"
    CHAT = "chat"


class TableLogEntry(models.Model):
    """Append-only: one row per change at a table, numbered by ``seq`` from 1."""

    # No index of its own: the unique (table, seq) index starts with it and serves every
    # lookup by table, and every move would otherwise write both.
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="log",
                              db_index=False)
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=12, choices=LogKind.choices)
    seat = models.SmallIntegerField(null=True, blank=True)
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL,
                               null=True, blank=True, related_name="+")
    action = models.JSONField(null=True, blank=True)
    idempotency_key = models.CharField(max_length=100, null=True, blank=True)
    events = models.JSONField(default=list)
    version = models.PositiveIntegerField(help_text="The table's version after this entry.")
    status = models.CharField(max_length=10, choices=TableStatus.choices, blank=True,
                              help_text="The table's status after this entry (replays).")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["table_id", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["table", "seq"], name="one_entry_per_seq"),
            models.UniqueConstraint(fields=["table", "idempotency_key"],
                                    condition=Q(idempotency_key__isnull=False),
                                    name="idempotent_actions"),
        ]

    def __str__(self) -> str:
        return f"#{self.table_id}/{self.seq} {self.kind}"


class RoundResult(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="round_results")
    round_number = models.PositiveIntegerField()
    placings = models.JSONField()
    scores = models.JSONField()
    detail = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["table_id", "round_number"]
        constraints = [models.UniqueConstraint(fields=["table", "round_number"],
                                               name="one_result_per_round")]


class PlayerStats(models.Model):
    """Per player and game: what the end-of-round task adds up."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                               related_name="game_stats")
    game = models.CharField(max_length=32)
    rounds_played = models.PositiveIntegerField(default=0)
    rounds_won = models.PositiveIntegerField(default=0)
    matches_played = models.PositiveIntegerField(default=0)
    matches_won = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name = "player record"
        constraints = [models.UniqueConstraint(fields=["player", "game"], name="stats_per_game")]


class ChatMessage(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="chat")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                               related_name="chat_messages")
    text = models.CharField(max_length=500)
    seq = models.PositiveIntegerField()
    hidden = models.BooleanField(default=False)
    hidden_reason = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["table_id", "seq"]
        permissions = [("hide_chatmessage", "Can hide and unhide chat messages")]

    def __str__(self) -> str:
        return f"#{self.table_id}/{self.seq} {self.author.display_name}: {self.text[:40]}"


class ReportStatus(models.TextChoices):
    OPEN = "open"
    RESOLVED = "resolved"
    DISMISSED = "dismissed"


class Report(models.Model):
    """A player's complaint about another, for the moderators' queue."""

    reporter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                 related_name="reports_filed")
    reported = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                 related_name="reports_against")
    table = models.ForeignKey(Table, on_delete=models.SET_NULL, null=True, blank=True,
                              related_name="reports")
    message = models.ForeignKey(ChatMessage, on_delete=models.SET_NULL, null=True, blank=True,
                                related_name="reports")
    reason = models.CharField(max_length=1000)
    status = models.CharField(max_length=10, choices=ReportStatus.choices,
                              default=ReportStatus.OPEN, db_index=True)
    resolution_note = models.CharField(max_length=1000, blank=True)
    handled_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL,
                                   null=True, blank=True, related_name="reports_handled")
    created_at = models.DateTimeField(auto_now_add=True)
    handled_at = models.DateTimeField(null=True, blank=True)
    # The queue (games/moderation.py): open reports on one player fold into one case, the
    # first of them; the case's score orders the moderators' queue.
    case = models.ForeignKey("self", on_delete=models.SET_NULL, null=True, blank=True,
                             related_name="folded",
                             help_text="The case this report was folded into (empty: its own).")
    score = models.FloatField(default=0, db_index=True,
                              help_text="The case's priority: reporters' standing, distinct "
                                        "reporters lately, earlier moderator actions.")
    reporter_count = models.PositiveIntegerField(
        default=1, help_text="Distinct players who reported this person in the case.")

    class Meta:
        ordering = ["-created_at", "-id"]
        permissions = [("resolve_report", "Can resolve or dismiss reports")]

    def __str__(self) -> str:
        return f"report #{self.pk} on {self.reported.display_name} ({self.status})"


class AuditLog(models.Model):
    """Append-only: one row per moderator action (who, what, whom, why, when). Nothing edits
    or deletes these rows; the admin shows them read-only."""

    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                              null=True, blank=True, related_name="+",
                              help_text="Empty: the system.")
    action = models.CharField(max_length=40, db_index=True)
    target_player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL,
                                      null=True, blank=True, related_name="+")
    target_table = models.ForeignKey(Table, on_delete=models.SET_NULL, null=True, blank=True,
                                     related_name="+")
    target_message = models.ForeignKey(ChatMessage, on_delete=models.SET_NULL, null=True,
                                       blank=True, related_name="+")
    target_report = models.ForeignKey(Report, on_delete=models.SET_NULL, null=True, blank=True,
                                      related_name="+")
    reason = models.CharField(max_length=1000, blank=True)
    extra = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        default_permissions = ("view",)
        verbose_name = "audit log entry"
        verbose_name_plural = "audit log"

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.action}"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise RuntimeError("the audit log is append-only")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise RuntimeError("the audit log is append-only")
