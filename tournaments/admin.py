"""Tournaments in the Django admin: create and edit, registrations inline, and a
"disqualify" action that goes through the service (a bot finishes their running table)."""

from __future__ import annotations

from django.contrib import admin, messages

from accounts.errors import DomainError

from . import services
from .models import (
    Rating,
    RatingChange,
    Registration,
    RegistrationStatus,
    Standing,
    Tournament,
    TournamentRound,
    TournamentTable,
)


class RegistrationInline(admin.TabularInline):
    model = Registration
    extra = 0
    fields = ("player", "status", "reason", "created_at")
    readonly_fields = ("status", "reason", "created_at")
    raw_id_fields = ("player",)


class StandingInline(admin.TabularInline):
    model = Standing
    extra = 0
    can_delete = False
    fields = ("rank", "player", "points", "buchholz", "wins", "matches", "byes",
              "eliminated_in_round")
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "game", "format", "status", "current_round", "starts_at",
                    "rated", "organiser")
    list_filter = ("status", "game", "format", "rated")
    search_fields = ("name", "organiser__username")
    raw_id_fields = ("organiser",)
    readonly_fields = ("status", "current_round", "seed", "started_at", "finished_at",
                       "ends_at", "created_at")
    inlines = [RegistrationInline, StandingInline]
    actions = ["start_now", "cancel"]

    @admin.action(description="Start now")
    def start_now(self, request, queryset):
        for t in queryset:
            try:
                services.tournament_start(actor=None, tournament_id=t.pk)
                self.message_user(request, f"{t}: started")
            except DomainError as exc:
                self.message_user(request, f"{t}: {exc.message}", level=messages.WARNING)

    @admin.action(description="Cancel")
    def cancel(self, request, queryset):
        for t in queryset:
            services.tournament_cancel(tournament_id=t.pk, reason=f"by {request.user}")
        self.message_user(request, f"{queryset.count()} cancelled")


@admin.register(Registration)
class RegistrationAdmin(admin.ModelAdmin):
    list_display = ("id", "tournament", "player", "status", "reason", "created_at")
    list_filter = ("status",)
    search_fields = ("player__username", "player__display_name", "tournament__name")
    raw_id_fields = ("tournament", "player")
    readonly_fields = ("status", "reason", "waiting_since")
    actions = ["disqualify"]

    @admin.action(description="Disqualify (a bot finishes their running table)")
    def disqualify(self, request, queryset):
        done = 0
        for reg in queryset.exclude(status=RegistrationStatus.DISQUALIFIED):
            try:
                services.registration_disqualify(actor=request.user,
                                                 tournament_id=reg.tournament_id,
                                                 player_id=reg.player_id,
                                                 reason=f"disqualified by {request.user}")
                done += 1
            except DomainError as exc:
                self.message_user(request, f"{reg}: {exc.message}", level=messages.WARNING)
        self.message_user(request, f"{done} disqualified")


class TournamentTableInline(admin.TabularInline):
    model = TournamentTable
    extra = 0
    fields = ("number", "table", "players", "placings", "finished_at")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(TournamentRound)
class TournamentRoundAdmin(admin.ModelAdmin):
    list_display = ("id", "tournament", "number", "status", "started_at", "finished_at")
    list_filter = ("status",)
    readonly_fields = ("tournament", "number", "status", "byes", "started_at", "finished_at")
    inlines = [TournamentTableInline]

    def has_add_permission(self, request):
        return False


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ("player", "game", "ordinal", "mu", "sigma", "matches", "updated_at")
    list_filter = ("game",)
    search_fields = ("player__username", "player__display_name")
    readonly_fields = ("player", "game", "mu", "sigma", "ordinal", "matches", "updated_at")

    def has_add_permission(self, request):
        return False


@admin.register(RatingChange)
class RatingChangeAdmin(admin.ModelAdmin):
    list_display = ("player", "game", "placing", "mu_before", "mu_after", "ordinal_after",
                    "created_at")
    list_filter = ("game",)
    search_fields = ("player__username",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
