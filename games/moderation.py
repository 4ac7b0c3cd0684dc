"""Moderation: the only code that bans, mutes, hides chat, handles reports and aborts tables
on a moderator's behalf. Every service checks the actor's Django permission and writes one
``AuditLog`` row in the same transaction, so the log holds exactly what took effect.
Reports are filed by players (``report_create``) and are not moderator actions.

Other apps (the tournaments admin) record their moderator actions with ``audit_record``.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from accounts import services as account_services
from accounts.errors import DomainError
from accounts.models import Player

from . import journal, realtime, reports, selectors, services
from .chat import chat_message_visibility_set
from .models import AuditLog, ChatMessage, Report, ReportStatus, Seat, Table, TableStatus

MAX_REASON = 1000


class ModerationError(DomainError):
    """Codes: ``forbidden``, ``not_found``, ``reason_required``, ``invalid_until``,
    ``cannot_report_self``, ``invalid_reason``, ``already_handled``, ``invalid_status``."""

    code = "moderation_error"


class Action:
    """What the audit log calls each moderator action."""

    BAN = "player_ban"
    UNBAN = "player_unban"
    MUTE = "player_mute"
    UNMUTE = "player_unmute"
    REVOKE_TOKENS = "player_tokens_revoke"
    HIDE_CHAT = "chat_hide"
    UNHIDE_CHAT = "chat_unhide"
    RESOLVE_REPORT = "report_resolve"
    ABORT_TABLE = "table_abort"
    VIEW_REPLAY = "table_replay_view"

    LABELS = {BAN: "ban", UNBAN: "unban", MUTE: "mute", UNMUTE: "unmute",
              REVOKE_TOKENS: "tokens revoked", HIDE_CHAT: "chat hidden",
              UNHIDE_CHAT: "chat shown again", RESOLVE_REPORT: "report handled",
              ABORT_TABLE: "table aborted", VIEW_REPLAY: "full replay viewed"}
    COLORS = {BAN: "red", REVOKE_TOKENS: "red", ABORT_TABLE: "red", MUTE: "orange",
              HIDE_CHAT: "orange", RESOLVE_REPORT: "green", UNBAN: "blue", UNMUTE: "blue",
              UNHIDE_CHAT: "blue", VIEW_REPLAY: "grey"}


def _require(actor: Player, perm: str) -> None:
    if actor is None or not actor.is_active or not actor.is_staff or not actor.has_perm(perm):
        raise ModerationError("forbidden", "you may not do that")


def _reason(reason: str, *, required: bool = True) -> str:
    reason = " ".join((reason or "").split())[:MAX_REASON]
    if required and not reason:
        raise ModerationError("reason_required", "give a reason", field="reason")
    return reason


def _player(player_id) -> Player:
    try:
        return Player.objects.select_for_update().get(pk=int(player_id))
    except (Player.DoesNotExist, ValueError, TypeError):
        raise ModerationError("not_found", "no such player", field="playerId") from None


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def audit_record(*, actor: Player | None, action: str, reason: str = "",
                 player: Player | None = None, table: Table | None = None,
                 message: ChatMessage | None = None, report: Report | None = None,
                 extra: dict | None = None) -> AuditLog:
    """Append one row to the audit log (call it inside the action's transaction)."""
    return AuditLog.objects.create(actor=actor, action=action, reason=(reason or "")[:MAX_REASON],
                                   target_player=player, target_table=table,
                                   target_message=message, target_report=report,
                                   extra=extra or {})


# --- players ----------------------------------------------------------------------------------

@transaction.atomic
def player_ban(*, actor: Player, player_id, reason: str,
               until: datetime | None = None) -> Player:
    """Banned at once: their tokens are refused from the next request, every open websocket
    of theirs is closed, and a bot plays their seats in running matches. ``until`` None: for
    good."""
    _require(actor, "accounts.ban_player")
    reason = _reason(reason)
    player = _player(player_id)
    now = timezone.now()
    if until is not None and until <= now:
        raise ModerationError("invalid_until", "a ban ends in the future", field="until")
    if player.pk == actor.pk or player.is_superuser:
        raise ModerationError("forbidden", "you cannot ban that account")
    player.banned_at, player.banned_until, player.ban_reason = now, until, reason
    player.save(update_fields=["banned_at", "banned_until", "ban_reason"])
    seats = services.seats_hand_to_bots(player=player, reason="banned")
    # Tables that have not started yet simply lose them.
    left = [table_id for table_id in Seat.objects.filter(
        player=player, is_bot=False, table__status=TableStatus.OPEN).values_list(
        "table_id", flat=True)]
    for table_id in left:
        services.table_leave(player=player, table_id=table_id)
    audit_record(actor=actor, action=Action.BAN, reason=reason, player=player,
                 extra={"until": _iso(until), "seats_handed_to_bots": seats,
                        "open_tables_left": left})
    journal.broadcast([(realtime.player_group(player.pk),
                       {"type": realtime.PLAYER_CLOSE_TYPE})])
    return player


@transaction.atomic
def player_unban(*, actor: Player, player_id, reason: str = "") -> Player:
    _require(actor, "accounts.ban_player")
    player = _player(player_id)
    previous = {"banned_at": _iso(player.banned_at), "banned_until": _iso(player.banned_until),
                "ban_reason": player.ban_reason}
    player.banned_at, player.banned_until, player.ban_reason = None, None, ""
    player.save(update_fields=["banned_at", "banned_until", "ban_reason"])
    audit_record(actor=actor, action=Action.UNBAN, reason=_reason(reason, required=False),
                 player=player, extra={"previous": previous})
    return player


@transaction.atomic
def player_mute(*, actor: Player, player_id, reason: str, until: datetime) -> Player:
    """Muted players may play but not chat until ``until``."""
    _require(actor, "accounts.mute_player")
    reason = _reason(reason)
    if until is None or until <= timezone.now():
        raise ModerationError("invalid_until", "a mute ends in the future", field="until")
    player = _player(player_id)
    player.muted_until, player.mute_reason = until, reason
    player.save(update_fields=["muted_until", "mute_reason"])
    audit_record(actor=actor, action=Action.MUTE, reason=reason, player=player,
                 extra={"until": _iso(until)})
    return player


@transaction.atomic
def player_unmute(*, actor: Player, player_id, reason: str = "") -> Player:
    _require(actor, "accounts.mute_player")
    player = _player(player_id)
    previous = _iso(player.muted_until)
    player.muted_until, player.mute_reason = None, ""
    player.save(update_fields=["muted_until", "mute_reason"])
    audit_record(actor=actor, action=Action.UNMUTE, reason=_reason(reason, required=False),
                 player=player, extra={"previous_until": previous})
    return player


@transaction.atomic
def player_tokens_revoke(*, actor: Player, player_id, reason: str) -> int:
    """Every API token of the player stops working; they sign in again (unless banned)."""
    _require(actor, "accounts.revoke_player_tokens")
    reason = _reason(reason)
    player = _player(player_id)
    count = account_services.api_tokens_revoke_all(player=player)
    audit_record(actor=actor, action=Action.REVOKE_TOKENS, reason=reason, player=player,
                 extra={"revoked": count})
    journal.broadcast([(realtime.player_group(player.pk),
                       {"type": realtime.PLAYER_CLOSE_TYPE})])
    return count


# --- chat ---------------------------------------------------------------------------------------

@transaction.atomic
def chat_message_hide(*, actor: Player, message_id, reason: str) -> ChatMessage:
    _require(actor, "games.hide_chatmessage")
    reason = _reason(reason)
    message = chat_message_visibility_set(message_id=_int(message_id, "messageId"), hidden=True,
                                          reason=reason)
    audit_record(actor=actor, action=Action.HIDE_CHAT, reason=reason, message=message,
                 player=message.author, table=message.table)
    return message


@transaction.atomic
def chat_message_unhide(*, actor: Player, message_id, reason: str = "") -> ChatMessage:
    _require(actor, "games.hide_chatmessage")
    message = chat_message_visibility_set(message_id=_int(message_id, "messageId"),
                                          hidden=False)
    audit_record(actor=actor, action=Action.UNHIDE_CHAT, reason=_reason(reason, required=False),
                 message=message, player=message.author, table=message.table)
    return message


def _int(value, field: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ModerationError("not_found", "no such object", field=field) from None


# --- reports ------------------------------------------------------------------------------------

@transaction.atomic
def report_create(*, reporter: Player, player_id, reason: str, table_id=None,
                  message_id=None) -> Report:
    """A player reports another, optionally pointing at a table and a chat message there."""
    reason = " ".join((reason or "").split())
    if not 1 <= len(reason) <= MAX_REASON:
        raise ModerationError("invalid_reason", f"a reason is 1 to {MAX_REASON} characters",
                              field="reason")
    reported = Player.objects.filter(pk=_int(player_id, "playerId")).first()
    if reported is None:
        raise ModerationError("not_found", "no such player", field="playerId")
    if reported.pk == reporter.pk:
        raise ModerationError("cannot_report_self", "you cannot report yourself",
                              field="playerId")
    table = message = None
    if message_id is not None:
        message = ChatMessage.objects.filter(pk=_int(message_id, "messageId"),
                                             author=reported).select_related("table").first()
        if message is None:
            raise ModerationError("not_found", "no such message by that player",
                                  field="messageId")
        table = message.table
    if table_id is not None:
        table = Table.objects.filter(**selectors.table_key(table_id)).first()
        if table is None or (message is not None and message.table_id != table.pk) or (
                not selectors.may_see(table, reporter)):
            raise ModerationError("not_found", "no such table", field="tableId")
    # Open reports on one person fold into one case (the first of them), which is scored.
    case = reports.open_case_of(reported.pk)
    report = Report.objects.create(reporter=reporter, reported=reported, table=table,
                                   message=message, reason=reason, case=case)
    reports.case_rescore(case or report)
    return report


@transaction.atomic
def report_resolve(*, actor: Player, report_id, note: str,
                   status: str = ReportStatus.RESOLVED) -> Report:
    """Close a report as resolved (something was done) or dismissed (nothing to do)."""
    _require(actor, "games.resolve_report")
    if status not in (ReportStatus.RESOLVED, ReportStatus.DISMISSED):
        raise ModerationError("invalid_status", "resolved or dismissed", field="status")
    note = _reason(note)
    report = Report.objects.select_for_update().filter(pk=_int(report_id, "reportId")).first()
    if report is None:
        raise ModerationError("not_found", "no such report", field="reportId")
    if report.case_id is not None:  # a folded report is handled with its whole case
        report = Report.objects.select_for_update().get(pk=report.case_id)
    if report.status != ReportStatus.OPEN:
        raise ModerationError("already_handled", f"this report is {report.status} already")
    now = timezone.now()
    folded = list(Report.objects.select_for_update().filter(case=report,
                                                            status=ReportStatus.OPEN))
    for row in (report, *folded):
        row.status, row.resolution_note = status, note
        row.handled_by, row.handled_at = actor, now
        row.save(update_fields=["status", "resolution_note", "handled_by", "handled_at"])
    audit_record(actor=actor, action=Action.RESOLVE_REPORT, reason=note, report=report,
                 player=report.reported, table=report.table, message=report.message,
                 extra={"status": status, "folded": [r.pk for r in folded]})
    return report


# --- tables -------------------------------------------------------------------------------------

@transaction.atomic
def table_abort(*, actor: Player, table_id, reason: str) -> Table:
    _require(actor, "games.abort_table")
    reason = _reason(reason)
    table = services.table_abort(actor=actor, table_id=table_id, reason=reason, moderated=True)
    audit_record(actor=actor, action=Action.ABORT_TABLE, reason=reason, table=table,
                 extra={"game": table.game, "round": table.round_number})
    return table


def table_abort_by(*, actor: Player, table_id, reason: str = "") -> Table:
    """``abortTable``: the creator ends a table that has not started; anything else (another
    player's table, or one that is playing) is a moderator's action, with the permission and
    an audit row. Other players get ``not_creator``, staff without the permission
    ``forbidden``."""
    table = selectors.table_for(table_id, actor)
    if (table.creator_id == actor.pk and table.status == TableStatus.OPEN) or not actor.is_staff:
        return services.table_abort(actor=actor, table_id=table.pk, reason=reason)
    return table_abort(actor=actor, table_id=table.pk, reason=reason)


@transaction.atomic
def report_replay_view(*, actor: Player, report_id) -> tuple[Report, dict | None, list]:
    """A moderator opens a reported table: the full-information replay (every hand, even
    while the match runs) and the table's chat, hidden messages included. Each opening is
    written to the audit log."""
    from . import replays

    _require(actor, "games.view_table_state")
    report = (Report.objects.select_related("reported", "table").filter(
        pk=_int(report_id, "reportId")).first())
    if report is None:
        raise ModerationError("not_found", "no such report", field="reportId")
    table = report.table
    document = None
    messages: list = []
    if table is not None:
        table = selectors.table_get(table.pk)
        if table.started_at is not None:
            document = replays.replay_document(table)
        messages = list(ChatMessage.objects.filter(table=table).select_related("author")
                        .order_by("seq"))
    audit_record(actor=actor, action=Action.VIEW_REPLAY, report=report,
                 player=report.reported, table=table,
                 extra={"table_status": table.status if table else None})
    return report, document, messages
