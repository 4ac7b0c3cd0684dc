"""Players in the admin: search, and ban, mute and revoke tokens through the moderation
services (so every step lands in the audit log). Ban and mute fields are read-only here:
only those actions change them."""

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import (
    AdminPasswordChangeForm,
    AdminUserCreationForm,
    UserChangeForm,
)
from django.db import transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html

from games import moderation
from games.admin_actions import (
    BanForm,
    FormAction,
    FormActionsMixin,
    MuteForm,
    ReasonForm,
    RequiredReasonForm,
    badge,
)

from . import services
from .models import ApiToken, Player


class PlayerChangeForm(UserChangeForm):
    class Meta(UserChangeForm.Meta):
        model = Player
        fields = "__all__"


class PlayerCreationForm(AdminUserCreationForm):
    class Meta(AdminUserCreationForm.Meta):
        model = Player
        fields = ("username", "display_name")


class StandingFilter(admin.SimpleListFilter):
    title = "standing"
    parameter_name = "standing"

    def lookups(self, request, model_admin):
        return [("banned", "Banned now"), ("muted", "Muted now"), ("clean", "Neither")]

    def queryset(self, request, queryset):
        now = timezone.now()
        banned = (Q(banned_at__isnull=False)
                  & (Q(banned_until__isnull=True)
                     | Q(banned_until__gt=now)))
        muted = Q(muted_until__gt=now)
        if self.value() == "banned":
            return queryset.filter(banned)
        if self.value() == "muted":
            return queryset.filter(muted)
        if self.value() == "clean":
            return queryset.exclude(banned).exclude(muted)
        return queryset


class ApiTokenInline(admin.TabularInline):
    model = ApiToken
    extra = 0
    can_delete = False
    fields = ("name", "prefix", "created_at", "last_used_at", "revoked_at")
    readonly_fields = fields
    show_change_link = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


def _ban(actor, player, data):
    moderation.player_ban(actor=actor, player_id=player.pk, reason=data["reason"],
                          until=data["end"])


def _unban(actor, player, data):
    moderation.player_unban(actor=actor, player_id=player.pk, reason=data["reason"])


def _mute(actor, player, data):
    moderation.player_mute(actor=actor, player_id=player.pk, reason=data["reason"],
                           until=data["end"])


def _unmute(actor, player, data):
    moderation.player_unmute(actor=actor, player_id=player.pk, reason=data["reason"])


def _revoke(actor, player, data):
    moderation.player_tokens_revoke(actor=actor, player_id=player.pk, reason=data["reason"])


class PlayerPasswordChangeForm(AdminPasswordChangeForm):
    """A password set in the admin revokes every token of the player and closes their
    websockets: whoever had the old password may hold one of them."""

    def save(self, commit=True):
        with transaction.atomic():
            player = super().save(commit=commit)
            if commit:
                services.api_tokens_revoke_all(player=player)
        return player


@admin.register(Player)
class PlayerAdmin(FormActionsMixin, UserAdmin):
    change_password_form = PlayerPasswordChangeForm
    form = PlayerChangeForm
    add_form = PlayerCreationForm
    list_display = ("display_name", "username", "kind", "standing", "date_joined", "last_login")
    list_display_links = ("display_name", "username")
    list_filter = (StandingFilter, "is_guest", "is_bot", "is_staff", "groups")
    search_fields = ("username", "display_name", "email", "=id")
    ordering = ("-date_joined",)
    list_per_page = 50
    readonly_fields = ("standing", "banned_at", "banned_until", "ban_reason", "muted_until",
                       "mute_reason", "moderation_history", "last_login", "date_joined")
    fieldsets = (
        (None, {"fields": (("display_name", "username"), "password")}),
        ("Standing", {"fields": ("standing", ("banned_at", "banned_until"), "ban_reason",
                                 "muted_until", "mute_reason", "moderation_history")}),
        ("Kind", {"fields": (("is_guest", "is_bot", "bot_level"), "email")}),
        ("Staff", {"classes": ("collapse",),
                   "fields": ("is_active", "is_staff", "is_superuser", "groups",
                              "user_permissions")}),
        ("Dates", {"fields": ("last_login", "date_joined")}),
    )
    add_fieldsets = ((None, {"classes": ("wide",),
                             "fields": ("username", "display_name", "password1", "password2")}),)
    inlines = (ApiTokenInline,)
    form_actions = (
        FormAction("ban", "Ban", "accounts.ban_player", BanForm, _ban,
                   "Banned {n} player(s): their sockets were closed and bots took their seats.",
                   danger=True, shown=lambda p: not p.is_banned()),
        FormAction("unban", "Unban", "accounts.ban_player", ReasonForm, _unban,
                   "Unbanned {n} player(s).", shown=lambda p: p.banned_at is not None),
        FormAction("mute", "Mute", "accounts.mute_player", MuteForm, _mute,
                   "Muted {n} player(s).", shown=lambda p: not p.is_muted()),
        FormAction("unmute", "Unmute", "accounts.mute_player", ReasonForm, _unmute,
                   "Unmuted {n} player(s).", shown=lambda p: p.muted_until is not None),
        FormAction("revoke_tokens", "Revoke all tokens", "accounts.revoke_player_tokens",
                   RequiredReasonForm, _revoke, "Revoked the tokens of {n} player(s).",
                   danger=True),
    )

    @admin.display(description="kind")
    def kind(self, obj):
        if obj.is_bot:
            return badge("bot", "blue")
        if obj.is_staff:
            return badge("staff", "green")
        return badge("guest") if obj.is_guest else "registered"

    @admin.display(description="standing")
    def standing(self, obj):
        parts = []
        if obj.is_banned():
            until = f"until {obj.banned_until:%Y-%m-%d %H:%M}" if obj.banned_until else "for good"
            parts.append(badge(f"banned {until}", "red"))
        if obj.is_muted():
            parts.append(badge(f"muted until {obj.muted_until:%Y-%m-%d %H:%M}", "orange"))
        return format_html(" ".join(["{}"] * len(parts)), *parts) if parts else "—"

    @admin.display(description="history")
    def moderation_history(self, obj):
        if obj.pk is None:
            return "—"
        audit = reverse("admin:games_auditlog_changelist") + f"?target_player__id__exact={obj.pk}"
        reports = (reverse("admin:games_report_changelist")
                   + f"?reported__id__exact={obj.pk}&status=all")
        tables = reverse("admin:games_table_changelist") + f"?q={obj.username}"
        return format_html('<a href="{}">Tables</a> · <a href="{}">Reports against ({})</a> · '
                           '<a href="{}">Audit log</a>', tables, reports,
                           obj.reports_against.count(), audit)
