"""Table chat, player reports and (for staff) the moderation log over GraphQL.

Chat messages arrive in ``tableEvents`` as ``kind: "chat"`` updates with a ``chat`` event
(``message_id``, ``seat``, ``player_id``, ``display_name``, ``text``); a moderator hiding one
sends ``chat_hidden`` with its ``message_id``, and replays carry ``hidden: true`` and no text.
"""

from __future__ import annotations

from datetime import datetime
from enum import Enum

import strawberry
from channels.db import database_sync_to_async
from django.db.models import F
from strawberry.scalars import JSON
from strawberry.types import Info

from accounts.api.types import PlayerType
from config import ratelimit
from config.api import UserError, payload, require_viewer
from games import chat, moderation, selectors
from games.models import AuditLog, ChatMessage, Report

MAX_PAGE = 100


@strawberry.type(name="ChatMessage")
class ChatMessageType:
    id: strawberry.ID
    table_id: strawberry.ID
    seq: int
    author: PlayerType
    text: str
    created_at: datetime

    @classmethod
    def of(cls, message: ChatMessage) -> ChatMessageType:
        return cls(id=strawberry.ID(str(message.pk)),
                   table_id=strawberry.ID(message.table.public_id),
                   seq=message.seq, author=PlayerType.of(message.author), text=message.text,
                   created_at=message.created_at)


@strawberry.type
class SendChatMessagePayload:
    message: ChatMessageType | None = None
    errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.enum
class ReportStatusEnum(Enum):
    OPEN = "open"
    RESOLVED = "resolved"
    DISMISSED = "dismissed"


@strawberry.type(name="Report", description="Your report, as the moderators received it.")
class ReportType:
    id: strawberry.ID
    status: ReportStatusEnum
    created_at: datetime

    @classmethod
    def of(cls, report: Report) -> ReportType:
        return cls(id=strawberry.ID(str(report.pk)), status=ReportStatusEnum(report.status),
                   created_at=report.created_at)


@strawberry.type
class ReportPlayerPayload:
    report: ReportType | None = None
    errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type(name="AuditLogEntry", description="One moderator action.")
class AuditLogEntryType:
    id: strawberry.ID
    action: str
    actor: PlayerType | None
    target_player: PlayerType | None
    table_id: strawberry.ID | None
    message_id: strawberry.ID | None
    report_id: strawberry.ID | None
    reason: str
    extra: JSON
    created_at: datetime

    @classmethod
    def of(cls, row: AuditLog) -> AuditLogEntryType:
        def sid(value):
            return strawberry.ID(str(value)) if value is not None else None

        return cls(id=sid(row.pk), action=row.action,
                   actor=PlayerType.of(row.actor) if row.actor else None,
                   target_player=PlayerType.of(row.target_player) if row.target_player else None,
                   table_id=(strawberry.ID(row.target_table_public_id)
                             if row.target_table_id is not None else None),
                   message_id=sid(row.target_message_id),
                   report_id=sid(row.target_report_id), reason=row.reason, extra=row.extra,
                   created_at=row.created_at)


@strawberry.type
class AuditLogPage:
    items: list[AuditLogEntryType]
    next_cursor: str | None


def _moderation_log(player, first: int, after: str | None) -> AuditLogPage:
    if not (player.is_staff and player.has_perm("games.view_auditlog")):
        raise moderation.ModerationError("forbidden", "only moderators may read this")
    try:
        after_id = int(after) if after else None
    except ValueError:
        raise moderation.ModerationError("invalid_cursor", "unknown cursor",
                                         field="after") from None
    qs = (AuditLog.objects.select_related("actor", "target_player")
          .annotate(target_table_public_id=F("target_table__public_id")).order_by("-id"))
    if after_id is not None:
        qs = qs.filter(id__lt=after_id)
    rows = list(qs[:first + 1])
    return AuditLogPage(items=[AuditLogEntryType.of(r) for r in rows[:first]],
                        next_cursor=str(rows[first - 1].pk) if len(rows) > first else None)


@strawberry.type
class Query:
    @strawberry.field(description=(
        "Moderator actions, newest first. Staff with the audit log permission only; others "
        "get the error code `forbidden`."))
    async def moderation_log(self, info: Info, first: int = 50,
                             after: str | None = None) -> AuditLogPage | None:
        player = require_viewer(info)
        return await database_sync_to_async(_moderation_log)(
            player, max(1, min(first, MAX_PAGE)), after)


@strawberry.type
class Mutation:
    @strawberry.mutation(description=(
        "Say something at a table: seated players, and spectators where the table allows it. "
        "1 to 500 characters; rate-limited (`rate_limited`); refused while you are muted "
        "(`muted`, the message says until when; see `me.mutedUntil`). Event data keys: `message_id`, `seat`, `player_id`, `display_name`, `text`."))
    @payload
    async def send_chat_message(self, info: Info, table_id: strawberry.ID,
                                text: str) -> SendChatMessagePayload:
        player = require_viewer(info)

        def run():
            message = chat.chat_message_send(
                player=player, table_id=selectors.public_table_id(table_id), text=text)
            return ChatMessageType.of(message)

        return SendChatMessagePayload(message=await database_sync_to_async(run)())

    @strawberry.mutation(description=(
        "Report a player to the moderators, optionally at a table or for a chat message "
        "of theirs."))
    @payload
    async def report_player(self, info: Info, player_id: strawberry.ID, reason: str,
                            table_id: strawberry.ID | None = None,
                            message_id: strawberry.ID | None = None) -> ReportPlayerPayload:
        player = require_viewer(info)
        report = await database_sync_to_async(ratelimit.counted)(
            "report", player.pk, call=lambda: moderation.report_create(
                reporter=player, player_id=player_id, reason=reason,
                table_id=(selectors.public_table_id(table_id) if table_id is not None
                          else None),
                message_id=message_id))
        return ReportPlayerPayload(report=ReportType.of(report))
