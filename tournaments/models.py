"""Tournaments, their registrations, rounds, tables and standings; ratings per player and game.

A tournament's tables are ordinary ``games.Table`` rows (created through ``games.services``);
``TournamentTable`` links them to a round and keeps the placings once the match is over, so
standings are a pure function of the rows here (see ``formats.standings``).
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models


class Format(models.TextChoices):
    ROUND_ROBIN = "round_robin"
    SWISS = "swiss"
    SINGLE_ELIMINATION = "single_elimination"
    ARENA = "arena"


class TournamentStatus(models.TextChoices):
    SCHEDULED = "scheduled"          # registration not open yet
    REGISTRATION = "registration"    # taking players
    CLOSED = "closed"                # registration over, waiting for the start
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"


def new_seed() -> int:
    return secrets.randbits(62)


class Tournament(models.Model):
    name = models.CharField(max_length=100)
    game = models.CharField(max_length=32, db_index=True)
    options = models.JSONField(default=dict, blank=True, help_text="House rules, validated.")
    format = models.CharField(max_length=20, choices=Format.choices)
    table_size = models.PositiveSmallIntegerField()
    rounds = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Swiss and round robin; empty: chosen from the field.")
    advance = models.PositiveSmallIntegerField(
        default=0, help_text="Elimination: how many of each table go on (0: half the table).")
    duration_minutes = models.PositiveIntegerField(null=True, blank=True,
                                                   help_text="Arena: how long it runs.")
    max_players = models.PositiveIntegerField(null=True, blank=True)
    min_players = models.PositiveIntegerField(default=2)
    registration_opens_at = models.DateTimeField(null=True, blank=True)
    registration_closes_at = models.DateTimeField(null=True, blank=True)
    starts_at = models.DateTimeField(null=True, blank=True, db_index=True)
    ends_at = models.DateTimeField(null=True, blank=True, help_text="Arena: no new tables after.")
    rated = models.BooleanField(default=True)
    allow_bots = models.BooleanField(default=False, help_text="Bots fill the seats of byes.")
    bot_level = models.CharField(max_length=20, default="heuristic")
    turn_clock_seconds = models.PositiveIntegerField(
        default=30, help_text="Turn clock of every table; no-shows are played by bots.")
    status = models.CharField(max_length=14, choices=TournamentStatus.choices,
                              default=TournamentStatus.SCHEDULED, db_index=True)
    organiser = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                  related_name="organised_tournaments")
    seed = models.BigIntegerField(default=new_seed)
    current_round = models.PositiveSmallIntegerField(default=0)
    paused_at = models.DateTimeField(
        null=True, blank=True, help_text="Paused: running tables finish, nothing new starts; "
                                         "the next round waits, paired, for the resume.")
    pause_reason = models.CharField(max_length=300, blank=True)
    spectator_delay_seconds = models.PositiveIntegerField(
        default=0, help_text="Default delay of spectators' events at this tournament's tables.")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        permissions = [("control_tournament", "Can pause, resume and re-pair any tournament")]

    def __str__(self) -> str:
        return f"{self.name} ({self.game}, {self.format})"


class RegistrationStatus(models.TextChoices):
    REGISTERED = "registered"
    WITHDRAWN = "withdrawn"        # left, or a no-show after a round
    DISQUALIFIED = "disqualified"


class Registration(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE,
                                   related_name="registrations")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                               related_name="tournament_registrations")
    status = models.CharField(max_length=14, choices=RegistrationStatus.choices,
                              default=RegistrationStatus.REGISTERED)
    reason = models.CharField(max_length=300, blank=True)
    seed = models.PositiveIntegerField(null=True, blank=True,
                                       help_text="1 = best; fixed at the start.")
    waiting_since = models.DateTimeField(null=True, blank=True,
                                         help_text="Arena: waiting for a table since.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament_id", "created_at", "id"]
        constraints = [models.UniqueConstraint(fields=["tournament", "player"],
                                               name="one_registration_per_player")]

    def __str__(self) -> str:
        return f"{self.player} in {self.tournament_id} ({self.status})"


class RoundStatus(models.TextChoices):
    PENDING = "pending"     # paired while the tournament is paused: no tables yet
    PLAYING = "playing"
    FINISHED = "finished"


class TournamentRound(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="rounds_set")
    number = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=10, choices=RoundStatus.choices,
                              default=RoundStatus.PLAYING)
    byes = models.JSONField(default=list, blank=True, help_text="Player ids sitting out.")
    planned = models.JSONField(
        default=list, blank=True,
        help_text="Pending rounds: each table's player ids in seat order, until it starts.")
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament_id", "number"]
        constraints = [models.UniqueConstraint(fields=["tournament", "number"],
                                               name="one_round_per_number")]

    def __str__(self) -> str:
        return f"round {self.number} of {self.tournament_id}"


class TournamentTable(models.Model):
    round = models.ForeignKey(TournamentRound, on_delete=models.CASCADE, related_name="tables")
    table = models.OneToOneField("games.Table", on_delete=models.PROTECT,
                                 related_name="tournament_link")
    number = models.PositiveSmallIntegerField()
    players = models.JSONField(default=list, help_text="Registered players' ids in seat order.")
    placings = models.JSONField(null=True, blank=True,
                                help_text="Player id (str) -> placing, once finished.")
    seats = models.PositiveSmallIntegerField(default=0, help_text="Seats, filler bots included.")
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["round_id", "number"]

    def __str__(self) -> str:
        return f"table {self.number} of {self.round}"


class Standing(models.Model):
    """Rank by points, then Buchholz, wins, lower placing sum, seed (see ``formats``);
    elimination ranks by the round reached first."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="standings")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                               related_name="tournament_standings")
    rank = models.PositiveIntegerField(default=0)
    points = models.IntegerField(default=0)
    buchholz = models.IntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    placing_sum = models.PositiveIntegerField(default=0)
    matches = models.PositiveIntegerField(default=0)
    byes = models.PositiveIntegerField(default=0)
    eliminated_in_round = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["tournament_id", "rank"]
        constraints = [models.UniqueConstraint(fields=["tournament", "player"],
                                               name="one_standing_per_player")]


class Rating(models.Model):
    """OpenSkill (Plackett-Luce) rating of a player in one game; ``ordinal`` = mu - 3 sigma
    is what leaderboards sort by (a cautious estimate that grows with certainty)."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                               related_name="ratings")
    game = models.CharField(max_length=32)
    mu = models.FloatField()
    sigma = models.FloatField()
    ordinal = models.FloatField(db_index=True)
    matches = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["game", "-ordinal"]
        constraints = [models.UniqueConstraint(fields=["player", "game"],
                                               name="one_rating_per_game")]
        indexes = [models.Index(fields=["game", "-ordinal"])]


class RatedMatch(models.Model):
    """A finished table whose placings moved ratings: at most once per table."""

    table = models.OneToOneField("games.Table", on_delete=models.CASCADE,
                                 related_name="rated_match")
    game = models.CharField(max_length=32)
    created_at = models.DateTimeField(auto_now_add=True)


class RatingChange(models.Model):
    """The rating history: one row per rated player per rated match."""

    match = models.ForeignKey(RatedMatch, on_delete=models.CASCADE, related_name="changes")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                               related_name="rating_changes")
    game = models.CharField(max_length=32)
    placing = models.PositiveSmallIntegerField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    ordinal_after = models.FloatField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["match", "player"],
                                               name="one_change_per_match")]


class WebhookEndpoint(models.Model):
    """Where an organiser's site wants tournament events: one tournament's (``tournament``
    set) or every tournament its owner organises (``tournament`` empty). The secret signs each
    delivery (Standard Webhooks); the API shows it once, at creation."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                              related_name="webhook_endpoints")
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, null=True, blank=True,
                                   related_name="webhook_endpoints",
                                   help_text="Empty: every tournament the owner organises.")
    url = models.URLField(max_length=500)
    description = models.CharField(max_length=200, blank=True)
    events = models.JSONField(default=list, blank=True, help_text="Event types; empty: all.")
    secret = models.CharField(max_length=100, editable=False)
    is_active = models.BooleanField(default=True)
    consecutive_failures = models.PositiveIntegerField(default=0)
    disabled_at = models.DateTimeField(null=True, blank=True)
    disabled_reason = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"webhook {self.pk} -> {self.url}"


class DeliveryStatus(models.TextChoices):
    PENDING = "pending"        # waiting for its (next) try
    SUCCEEDED = "succeeded"
    FAILED = "failed"          # every try failed, or the endpoint was disabled


class WebhookDelivery(models.Model):
    """One event for one endpoint, tried until it succeeds or the tries run out. ``message_id``
    is the ``webhook-id`` of every try, so receivers de-duplicate on it."""

    endpoint = models.ForeignKey(WebhookEndpoint, on_delete=models.CASCADE,
                                 related_name="deliveries")
    message_id = models.CharField(max_length=40, unique=True)
    event_type = models.CharField(max_length=60)
    payload = models.JSONField()
    status = models.CharField(max_length=10, choices=DeliveryStatus.choices,
                              default=DeliveryStatus.PENDING, db_index=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True, db_index=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "webhook deliveries"

    def __str__(self) -> str:
        return f"{self.event_type} {self.message_id} ({self.status})"
