"""Tournaments in the Django admin: create and edit, registrations inline, a "disqualify"
action that goes through the service (a bot finishes their running table), and the manual
control (pause, resume, re-pair the pending round; move a player, award a bye), each with a
reason that the service writes to the audit log."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages

from accounts.errors import DomainError
from games.admin_actions import FormAction, FormActionsMixin, RequiredReasonForm

from . import services, webhooks
from .models import (
    Rating,
    RatingChange,
    Registration,
    RegistrationStatus,
    Standing,
    Tournament,
    TournamentRound,
    TournamentTable,
    WebhookDelivery,
    WebhookEndpoint,
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


CONTROL = "tournaments.change_tournament"  # the service checks: the organiser, or control_tournament


class MoveForm(RequiredReasonForm):
    table_number = forms.IntegerField(min_value=1, help_text="The pending round's table, from 1.")
    swap_with = forms.IntegerField(required=False, help_text="Player id of whom to swap with "
                                                             "(needed when the table is full).")


def _live(t) -> bool:
    return t.status not in ("finished", "cancelled")


@admin.register(Tournament)
class TournamentAdmin(FormActionsMixin, admin.ModelAdmin):
    list_display = ("id", "name", "game", "format", "status", "current_round", "starts_at",
                    "rated", "organiser")
    list_filter = ("status", "game", "format", "rated")
    search_fields = ("name", "organiser__username")
    raw_id_fields = ("organiser",)
    readonly_fields = ("status", "current_round", "seed", "started_at", "finished_at",
                       "ends_at", "created_at", "paused_at", "pause_reason")
    inlines = [RegistrationInline, StandingInline]
    actions = ["start_now", "cancel"]
    form_actions = (
        FormAction("pause", "Pause", CONTROL, RequiredReasonForm,
                   lambda actor, t, data: services.tournament_pause(
                       actor=actor, tournament_id=t.pk, reason=data["reason"]),
                   "Paused {n} tournament(s).", shown=lambda t: _live(t) and not t.paused_at),
        FormAction("resume", "Resume", CONTROL, RequiredReasonForm,
                   lambda actor, t, data: services.tournament_resume(
                       actor=actor, tournament_id=t.pk, reason=data["reason"]),
                   "Resumed {n} tournament(s).", shown=lambda t: bool(t.paused_at)),
        FormAction("repair", "Re-pair the pending round", CONTROL, RequiredReasonForm,
                   lambda actor, t, data: services.round_repair(
                       actor=actor, tournament_id=t.pk, reason=data["reason"]),
                   "Paired {n} round(s) again.", shown=lambda t: bool(t.paused_at)),
    )

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
class RegistrationAdmin(FormActionsMixin, admin.ModelAdmin):
    list_display = ("id", "tournament", "player", "status", "reason", "created_at")
    list_filter = ("status",)
    search_fields = ("player__username", "player__display_name", "tournament__name")
    raw_id_fields = ("tournament", "player")
    readonly_fields = ("status", "reason", "waiting_since")
    actions = ["disqualify"]
    form_actions = (
        FormAction("bye", "Award a bye in the pending round", CONTROL, RequiredReasonForm,
                   lambda actor, reg, data: services.round_bye_award(
                       actor=actor, tournament_id=reg.tournament_id, player_id=reg.player_id,
                       reason=data["reason"]),
                   "Awarded {n} bye(s).", shown=lambda reg: bool(reg.tournament.paused_at)),
        FormAction("move", "Move to another table in the pending round", CONTROL, MoveForm,
                   lambda actor, reg, data: services.round_player_move(
                       actor=actor, tournament_id=reg.tournament_id, player_id=reg.player_id,
                       table_number=data["table_number"], swap_with_id=data["swap_with"],
                       reason=data["reason"]),
                   "Moved {n} player(s).", shown=lambda reg: bool(reg.tournament.paused_at)),
    )

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
    readonly_fields = ("tournament", "number", "status", "byes", "planned", "started_at", "finished_at")
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


# --- webhooks -----------------------------------------------------------------------------------

class WebhookEndpointForm(forms.ModelForm):
    events = forms.MultipleChoiceField(
        choices=[(e, e) for e in webhooks.EVENTS], required=False,
        widget=forms.CheckboxSelectMultiple, help_text="None ticked: every event.")

    class Meta:
        model = WebhookEndpoint
        fields = ("owner", "tournament", "url", "description", "events")

    def clean_url(self):
        try:
            return webhooks.check_url(self.cleaned_data["url"])
        except DomainError as exc:
            raise forms.ValidationError(exc.message) from None


class WebhookDeliveryInline(admin.TabularInline):
    model = WebhookDelivery
    extra = 0
    fields = ("created_at", "event_type", "message_id", "status", "attempts",
              "last_status_code", "last_error", "next_attempt_at", "delivered_at")
    readonly_fields = fields
    can_delete = False
    ordering = ("-id",)
    max_num = 0

    def get_queryset(self, request):
        return super().get_queryset(request).order_by("-id")


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(admin.ModelAdmin):
    """The secret is shown once, in the message after adding; never in the form."""

    form = WebhookEndpointForm
    list_display = ("id", "url", "owner", "tournament", "is_active", "consecutive_failures",
                    "disabled_reason", "created_at")
    list_filter = ("is_active",)
    search_fields = ("url", "owner__username", "tournament__name")
    raw_id_fields = ("owner", "tournament")
    readonly_fields = ("is_active", "consecutive_failures", "disabled_at", "disabled_reason",
                       "created_at")
    inlines = [WebhookDeliveryInline]
    actions = ["send_test_event", "enable", "disable"]

    def save_model(self, request, obj, form, change):
        new = obj.pk is None
        if new:
            obj.secret = webhooks.new_secret()
        super().save_model(request, obj, form, change)
        if new:
            self.message_user(request, f"Signing secret (shown only now): {obj.secret}")

    @admin.action(description="Send test event")
    def send_test_event(self, request, queryset):
        for endpoint in queryset:
            d = webhooks.endpoint_send_test(actor=request.user, endpoint_id=endpoint.pk)
            self.message_user(request, f"{endpoint}: test event {d.message_id} queued")

    @admin.action(description="Enable again (failure count starts over)")
    def enable(self, request, queryset):
        for endpoint in queryset:
            webhooks.endpoint_update(actor=request.user, endpoint_id=endpoint.pk, active=True)
        self.message_user(request, f"{queryset.count()} enabled")

    @admin.action(description="Disable")
    def disable(self, request, queryset):
        for endpoint in queryset:
            webhooks.endpoint_update(actor=request.user, endpoint_id=endpoint.pk, active=False)
        self.message_user(request, f"{queryset.count()} disabled")


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    """The delivery log: read-only."""

    list_display = ("id", "created_at", "endpoint", "event_type", "status", "attempts",
                    "last_status_code", "last_error", "delivered_at")
    list_filter = ("status", "event_type")
    search_fields = ("message_id", "endpoint__url")
    readonly_fields = ("endpoint", "message_id", "event_type", "payload", "status", "attempts",
                       "next_attempt_at", "last_attempt_at", "last_status_code", "last_error",
                       "created_at", "delivered_at")

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
