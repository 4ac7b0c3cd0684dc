"""Moderation views of tables, their logs, chat, reports and the audit log.

Everything here is read-only; what a moderator does (abort a table, hide a message, resolve
a report) goes through ``games.moderation``, which checks the permission and writes the
audit log. Admins with ``view_table_state`` see the full state of a match, every hand
included, and can step through its log with the state after each step.
"""

from __future__ import annotations

import json

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.text import Truncator

from . import moderation, selectors
from .admin_actions import (
    FormAction,
    FormActionsMixin,
    NoteForm,
    ReadOnlyAdmin,
    ReasonForm,
    RequiredReasonForm,
    admin_link,
    badge,
)
from .engine import GAMES
from .models import (
    AuditLog,
    ChatMessage,
    LogKind,
    PlayerStats,
    Report,
    ReportStatus,
    Seat,
    Table,
    TableStatus,
)

STATUS_COLORS = {TableStatus.OPEN: "blue", TableStatus.PLAYING: "green",
                 TableStatus.FINISHED: "grey", TableStatus.ABORTED: "red",
                 ReportStatus.OPEN: "orange", ReportStatus.RESOLVED: "green",
                 ReportStatus.DISMISSED: "grey"}
LOG_PAGE = 100


def pretty(value) -> str:
    return format_html('<pre class="stapel-json">{}</pre>',
                       json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True))


def hands_html(game: str, state: dict | None, seats: dict[int, Seat]) -> str:
    """Every hand, one box per seat, whoever is to act marked: what only admins may see."""
    if not state or not isinstance(state.get("hands"), list):
        return ""
    try:
        actors = set(GAMES[game].actors(state))
    except Exception:  # noqa: BLE001 - a view for people; never fail the page over it
        actors = set()
    boxes = []
    for position, hand in enumerate(state["hands"]):
        seat = seats.get(position)
        name = admin_link(seat.player, seat.player.display_name) if seat else f"seat {position}"
        marks = format_html("{}{}", badge("bot", "blue") if seat and seat.plays_as_bot else "",
                            badge("to act", "orange") if position in actors else "")
        cards = format_html_join("", '<span class="stapel-card">{}</span>',
                                 ((c,) for c in (hand or [])))
        boxes.append(format_html(
            '<div class="stapel-hand"><h4>Seat {} · {} · {} cards {}</h4>{}</div>',
            position, name, len(hand or []), marks,
            cards or format_html('<span class="stapel-muted">empty</span>')))
    return format_html('<div class="stapel-hands">{}</div>',
                       format_html_join("", "{}", ((b,) for b in boxes)))


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    can_delete = False
    fields = ("position", "player_link", "is_bot", "bot_level", "taken_over_by_bot",
              "missed_turns", "joined_at")
    readonly_fields = fields

    @admin.display(description="player")
    def player_link(self, obj):
        return admin_link(obj.player)

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


def _abort(actor, table, data):
    moderation.table_abort(actor=actor, table_id=table.pk, reason=data["reason"])


@admin.register(Table)
class TableAdmin(FormActionsMixin, ReadOnlyAdmin):
    list_display = ("id", "game", "status_badge", "players", "round", "created_at")
    list_display_links = ("id", "game")
    list_filter = ("status", "game", "visibility", "tournament_table")
    search_fields = ("=id", "seats__player__username", "seats__player__display_name",
                     "=invite_code", "=public_id")  # public_id: the id players see
    date_hierarchy = "created_at"
    list_per_page = 50
    inlines = (SeatInline,)
    fieldsets = (
        (None, {"fields": (("game", "status_badge", "round_number"), "public_id", "creator_link",
                           ("visibility", "tournament_table"), "abort_reason", "log_link")}),
        ("Hands (only staff see these)", {"fields": ("hands",)}),
        ("Match", {"fields": (("version", "last_seq"), "deadline",
                              ("created_at", "started_at", "finished_at"), "result_pretty")}),
        ("House rules", {"classes": ("collapse",), "fields": ("options_pretty",)}),
        ("Full state as JSON", {"classes": ("collapse",), "fields": ("state_pretty",)}),
    )
    STATE_FIELDSETS = ("Hands (only staff see these)", "Full state as JSON")
    form_actions = (
        FormAction("abort", "Abort table", "games.abort_table", RequiredReasonForm, _abort,
                   "Aborted {n} table(s).", danger=True, shown=lambda t: t.is_active),
    )

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("seats__player")

    def get_readonly_fields(self, request, obj=None):
        return [f for fs in self.get_fieldsets(request, obj) for row in fs[1]["fields"]
                for f in (row if isinstance(row, tuple) else (row,))]

    def get_fieldsets(self, request, obj=None):
        if request.user.has_perm("games.view_table_state"):
            return self.fieldsets
        return [fs for fs in self.fieldsets if fs[0] not in self.STATE_FIELDSETS]

    @admin.display(description="status", ordering="status")
    def status_badge(self, obj):
        return badge(obj.status, STATUS_COLORS.get(obj.status, "grey"))

    @admin.display(description="round", ordering="round_number")
    def round(self, obj):
        return obj.round_number

    @admin.display(description="players")
    def players(self, obj):
        return ", ".join(s.player.display_name + (" (bot)" if s.plays_as_bot else "")
                         for s in obj.seats.all()) or "—"

    @admin.display(description="creator")
    def creator_link(self, obj):
        return admin_link(obj.creator)

    @admin.display(description="options")
    def options_pretty(self, obj):
        return pretty(obj.options)

    @admin.display(description="result")
    def result_pretty(self, obj):
        return pretty(obj.result) if obj.result else "—"

    @admin.display(description="state")
    def state_pretty(self, obj):
        return pretty(obj.state) if obj.state is not None else "— (not started)"

    @admin.display(description="hands")
    def hands(self, obj):
        return hands_html(obj.game, obj.state, {s.position: s for s in obj.seats.all()}) or "—"

    @admin.display(description="log")
    def log_link(self, obj):
        return format_html('<a class="button" href="{}">Step through the log ({} entries)</a>',
                           reverse("admin:games_table_log", args=[obj.pk]), obj.last_seq)

    def get_urls(self):
        return [path("<int:table_id>/log/", self.admin_site.admin_view(self.log_view),
                     name="games_table_log"), *super().get_urls()]

    def log_view(self, request, table_id):
        if not self.has_view_permission(request):
            raise PermissionDenied
        table = Table.objects.filter(pk=table_id).prefetch_related("seats__player").first()
        if table is None:
            raise Http404("no such table")
        entries = table.log.select_related("player").order_by("seq")
        page = Paginator(entries, LOG_PAGE).get_page(request.GET.get("page"))
        selectors.chat_events_resolve(list(page.object_list))
        rows = [{"entry": e, "action": json.dumps(e.action, ensure_ascii=False)
                 if e.action is not None else "",
                 "events": [json.dumps(ev, ensure_ascii=False) for ev in e.events]}
                for e in page.object_list]
        step = request.GET.get("step")
        state = None
        full = request.user.has_perm("games.view_table_state")
        if step and full:
            try:
                step = int(step)
            except ValueError:
                raise Http404("no such step") from None
            state = selectors.table_state_at(table, step)
        seats = {s.position: s for s in table.seats.all()}
        start_seq = (table.log.filter(kind=LogKind.START).values_list("seq", flat=True)
                     .first())
        context = {
            **self.admin_site.each_context(request), "opts": self.model._meta,
            "title": f"Log of {table}", "table": table, "page": page, "rows": rows,
            "step": step, "full_state": full, "start_seq": start_seq,
            "state_html": pretty(state) if state is not None else None,
            "hands_html": hands_html(table.game, state, seats) if state is not None else None,
            "media": self.media,
        }
        return TemplateResponse(request, "admin/games/table/log.html", context)


def _hide(actor, message, data):
    moderation.chat_message_hide(actor=actor, message_id=message.pk, reason=data["reason"])


def _unhide(actor, message, data):
    moderation.chat_message_unhide(actor=actor, message_id=message.pk, reason=data["reason"])


@admin.register(ChatMessage)
class ChatMessageAdmin(FormActionsMixin, ReadOnlyAdmin):
    list_display = ("created_at", "table_link", "author_link", "text_short", "visibility")
    list_filter = ("hidden", "created_at")
    search_fields = ("text", "author__username", "author__display_name", "=table__id")
    list_select_related = ("table", "author")
    list_per_page = 100
    fields = ("table_link", "author_link", "seq", "created_at", "text", "visibility",
              "hidden_reason")
    readonly_fields = fields
    form_actions = (
        FormAction("hide", "Hide message", "games.hide_chatmessage", RequiredReasonForm, _hide,
                   "Hid {n} message(s).", danger=True, shown=lambda m: not m.hidden),
        FormAction("unhide", "Show message again", "games.hide_chatmessage", ReasonForm,
                   _unhide, "Showed {n} message(s) again.", shown=lambda m: m.hidden),
    )

    @admin.display(description="table", ordering="table")
    def table_link(self, obj):
        return admin_link(obj.table, f"#{obj.table_id} {obj.table.game}")

    @admin.display(description="author", ordering="author")
    def author_link(self, obj):
        return admin_link(obj.author, obj.author.display_name)

    @admin.display(description="text")
    def text_short(self, obj):
        return Truncator(obj.text).chars(80)

    @admin.display(description="visibility", ordering="hidden")
    def visibility(self, obj):
        return badge("hidden", "red") if obj.hidden else badge("visible", "green")


def _resolve(actor, report, data):
    moderation.report_resolve(actor=actor, report_id=report.pk, note=data["note"],
                              status=ReportStatus.RESOLVED)


def _dismiss(actor, report, data):
    moderation.report_resolve(actor=actor, report_id=report.pk, note=data["note"],
                              status=ReportStatus.DISMISSED)


class ReportStatusFilter(admin.SimpleListFilter):
    """Open reports first: the queue is what a moderator comes for."""

    title = "status"
    parameter_name = "status"

    def lookups(self, request, model_admin):
        return [*ReportStatus.choices, ("all", "All")]

    def choices(self, changelist):
        value = self.value() or ReportStatus.OPEN
        for lookup, title in self.lookup_choices:
            yield {"selected": value == lookup, "display": title,
                   "query_string": changelist.get_query_string({self.parameter_name: lookup})}

    def queryset(self, request, queryset):
        value = self.value() or ReportStatus.OPEN
        if value == ReportStatus.OPEN:
            # The queue: one row per case (duplicates on one player are folded into it).
            return queryset.filter(status=value, case__isnull=True)
        return queryset if value == "all" else queryset.filter(status=value)


@admin.register(Report)
class ReportAdmin(FormActionsMixin, ReadOnlyAdmin):
    """The report queue: open cases, highest score first (see ``games.reports``)."""

    list_display = ("id", "score", "reporters", "created_at", "status_badge", "reported_link",
                    "reporter_link", "reason_short", "table_link", "message_text")
    list_display_links = ("id", "created_at")
    list_filter = (ReportStatusFilter, "created_at")
    ordering = ("-score", "-created_at", "-id")
    search_fields = ("reason", "reported__username", "reported__display_name",
                     "reporter__username")
    list_select_related = ("reported", "reporter", "table", "message")
    fields = ("status_badge", "score", "reporters", "created_at", "reported_link",
              "reporter_link", "reason", "table_link", "replay_link", "message_text",
              "folded_reports", "case_link", "resolution_note", "handled_by", "handled_at")
    readonly_fields = fields
    form_actions = (
        FormAction("resolve", "Resolve", "games.resolve_report", NoteForm, _resolve,
                   "Resolved {n} report(s).", shown=lambda r: r.status == ReportStatus.OPEN),
        FormAction("dismiss", "Dismiss", "games.resolve_report", NoteForm, _dismiss,
                   "Dismissed {n} report(s).", shown=lambda r: r.status == ReportStatus.OPEN),
    )

    @admin.display(description="status", ordering="status")
    def status_badge(self, obj):
        return badge(obj.status, STATUS_COLORS.get(obj.status, "grey"))

    @admin.display(description="reported player", ordering="reported")
    def reported_link(self, obj):
        return admin_link(obj.reported, obj.reported.display_name)

    @admin.display(description="by", ordering="reporter")
    def reporter_link(self, obj):
        return admin_link(obj.reporter, obj.reporter.display_name)

    @admin.display(description="reason")
    def reason_short(self, obj):
        return Truncator(obj.reason).chars(80)

    @admin.display(description="table")
    def table_link(self, obj):
        return admin_link(obj.table, f"#{obj.table_id} {obj.table.game}") if obj.table else "—"

    @admin.display(description="reporters", ordering="reporter_count")
    def reporters(self, obj):
        return obj.reporter_count

    @admin.display(description="folded into this case")
    def folded_reports(self, obj):
        rows = list(obj.folded.select_related("reporter").order_by("created_at"))
        if not rows:
            return "—"
        return format_html_join(mark_safe("<br>"), "{} by {}: {}", (
            (admin_link(r, f"#{r.pk}"), r.reporter.display_name, Truncator(r.reason).chars(80))
            for r in rows))

    @admin.display(description="case")
    def case_link(self, obj):
        return admin_link(obj.case, f"report #{obj.case_id}") if obj.case_id else "its own"

    @admin.display(description="replay")
    def replay_link(self, obj):
        if obj.table_id is None:
            return "—"
        return format_html('<a class="button" href="{}">Full replay and chat (logged)</a>',
                           reverse("admin:games_report_replay", args=[obj.pk]))

    def get_urls(self):
        return [path("<int:report_id>/replay/", self.admin_site.admin_view(self.replay_view),
                     name="games_report_replay"), *super().get_urls()]

    def replay_view(self, request, report_id):
        if not (self.has_view_permission(request)
                and request.user.has_perm("games.view_table_state")):
            raise PermissionDenied
        try:
            report, document, chat = moderation.report_replay_view(actor=request.user,
                                                                   report_id=report_id)
        except moderation.ModerationError:
            raise Http404("no such report") from None
        steps = []
        for step in (document or {}).get("steps", []):
            steps.append({**step, "action_json": json.dumps(step["action"], ensure_ascii=False)
                          if step["action"] is not None else "",
                          "event_lines": [json.dumps(e, ensure_ascii=False)
                                          for e in step["events"] + step["hidden_events"]]})
        table = report.table
        seats = {s.position: s for s in table.seats.all()} if table else {}
        context = {
            **self.admin_site.each_context(request), "opts": self.model._meta,
            "title": f"Replay of table #{report.table_id} for report #{report.pk}",
            "report": report, "table": table, "document": document, "steps": steps,
            "chat": chat,
            "hands_html": hands_html(table.game, document["final_state"], seats)
            if document else None,
            "media": self.media,
        }
        return TemplateResponse(request, "admin/games/report/replay.html", context)

    @admin.display(description="message")
    def message_text(self, obj):
        if obj.message is None:
            return "—"
        label = Truncator(obj.message.text).chars(60)
        return format_html("{} {}", admin_link(obj.message, label),
                           badge("hidden", "red") if obj.message.hidden else "")


@admin.register(PlayerStats)
class PlayerStatsAdmin(ReadOnlyAdmin):
    """Each person's record per game, as the end of each round adds it up (read-only: a
    record is changed by playing, never by hand)."""

    list_display = ("player_link", "game", "rounds", "matches")
    list_filter = ("game",)
    search_fields = ("player__username", "player__display_name")
    list_select_related = ("player",)
    ordering = ("game", "-matches_won", "-rounds_won")
    list_per_page = 100
    fields = ("player_link", "game", "rounds", "matches")
    readonly_fields = fields

    @admin.display(description="player", ordering="player__display_name")
    def player_link(self, obj):
        return admin_link(obj.player, obj.player.display_name)

    @admin.display(description="rounds won", ordering="rounds_won")
    def rounds(self, obj):
        return _record(obj.rounds_won, obj.rounds_played)

    @admin.display(description="matches won", ordering="matches_won")
    def matches(self, obj):
        return _record(obj.matches_won, obj.matches_played)


def _record(won: int, played: int) -> str:
    return f"{won} of {played} ({100 * won / played:.0f} %)" if played else "none played"


@admin.register(AuditLog)
class AuditLogAdmin(ReadOnlyAdmin):
    """Never editable: no add, change or delete for anyone, superusers included."""

    list_display = ("created_at", "actor_link", "action_badge", "target", "reason_short")
    list_filter = ("action", "created_at")
    search_fields = ("reason", "actor__username", "target_player__username",
                     "target_player__display_name", "action")
    list_select_related = ("actor", "target_player", "target_table", "target_message",
                           "target_report")
    date_hierarchy = "created_at"
    list_per_page = 100
    fields = ("created_at", "actor_link", "action_badge", "target", "reason", "extra_pretty")
    readonly_fields = fields

    @admin.display(description="what", ordering="action")
    def action_badge(self, obj):
        return badge(moderation.Action.LABELS.get(obj.action, obj.action),
                     moderation.Action.COLORS.get(obj.action, "grey"))

    def get_actions(self, request, action_location=admin.ActionLocation.CHANGE_LIST):
        return {}  # not even "delete selected"

    @admin.display(description="who", ordering="actor")
    def actor_link(self, obj):
        return admin_link(obj.actor, obj.actor.username) if obj.actor else "system"

    @admin.display(description="whom / what")
    def target(self, obj):
        parts = [admin_link(o, label) for o, label in (
            (obj.target_player, obj.target_player and obj.target_player.display_name),
            (obj.target_table, obj.target_table_id and f"table #{obj.target_table_id}"),
            (obj.target_message, obj.target_message_id and f"message #{obj.target_message_id}"),
            (obj.target_report, obj.target_report_id and f"report #{obj.target_report_id}"),
        ) if o is not None]
        return format_html_join(" · ", "{}", ((p,) for p in parts)) if parts else "—"

    @admin.display(description="why")
    def reason_short(self, obj):
        return Truncator(obj.reason).chars(100)

    @admin.display(description="details")
    def extra_pretty(self, obj):
        return pretty(obj.extra)
