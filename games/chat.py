"""Table chat: the only code that writes chat messages.

A message is a ``ChatMessage`` row and a ``chat`` entry in the table's log, so it gets a
``seq`` and reaches every audience through the same per-audience publishing as moves (chat
does not bump the table version). The log stores only the message id, never the text: the
text is looked up whenever the log is read (``selectors.chat_events_resolve``), so a message a
moderator hides vanishes from every replay as well. Hiding and unhiding are log entries too
(``chat_hidden`` / ``chat_unhidden``) so live clients drop or restore the text.

Rate limit: the ``chat`` limit of config/ratelimit.py per player (``CHAT_RATE``), shared by
every web node through Redis. It is checked here, in the service, because chat arrives over
websockets as well as HTTP.
"""

from __future__ import annotations

import unicodedata

from django.db import transaction
from django.utils import timezone

from accounts.models import Player
from config import ratelimit

from . import journal, selectors
from .errors import GameError
from .models import ChatMessage, LogKind, Seat, Table, TableStatus
from .services import _lock

MAX_CHAT_LENGTH = 500


class ChatError(GameError):
    """Codes: ``muted``, ``chat_not_allowed``, ``invalid_text``, ``rate_limited``,
    ``table_closed``, ``not_found``."""

    code = "chat_error"


def chat_text_clean(text: str) -> str:
    """Control characters go (line breaks become spaces); runs of blanks shrink to one."""
    text = "".join(" " if unicodedata.category(c) == "Cc" else c for c in (text or ""))
    text = " ".join(text.split())
    if not 1 <= len(text) <= MAX_CHAT_LENGTH:
        raise ChatError("invalid_text", f"a chat message is 1 to {MAX_CHAT_LENGTH} characters",
                        field="text")
    return text


def _rate_check(player: Player) -> None:
    ratelimit.hit("chat", player.pk)


def _speaker_seat(table: Table, player: Player) -> int | None:
    """The player's seat; a spectator may speak where the table lets spectators chat."""
    seat = (Seat.objects.filter(table=table, player=player, is_bot=False, left_at=None)
            .values_list("position", flat=True).first())
    if seat is not None:
        return seat
    if table.spectators_may_chat and selectors.may_watch(table, player, None):
        return None
    raise ChatError("chat_not_allowed", "only the players at this table may chat here",
                    field="tableId")


def chat_message_send(*, player: Player, table_id, text: str) -> ChatMessage:
    # Read afresh: a websocket keeps the player it authenticated, and a mute comes later.
    muted_until = Player.objects.filter(pk=player.pk).values_list("muted_until", flat=True).first()
    if muted_until is not None and muted_until > timezone.now():
        until = muted_until.isoformat().replace("+00:00", "Z")
        raise ChatError("muted", f"you are muted until {until}")
    text = chat_text_clean(text)
    with transaction.atomic():
        table = _lock(table_id, viewer=player)
        if table.status == TableStatus.ABORTED:
            raise ChatError("table_closed", "this table was aborted")
        seat = _speaker_seat(table, player)
        # Counted only once the message may be sent: refused attempts cost nothing.
        _rate_check(player)
        message = ChatMessage.objects.create(table=table, author=player, text=text,
                                             seq=table.last_seq + 1)
        _record(table, seat=seat, player=player, events=[{
            "type": "chat", "message_id": message.pk, "seat": seat,
            "player_id": str(player.pk), "display_name": player.display_name,
            "visible_to": "all"}])
    return message


def _record(table: Table, **kwargs) -> None:
    # The text is put in only for publishing (in memory): the stored log keeps no text.
    journal.record(table, kind=LogKind.CHAT, moves=False,
                   extra_events=lambda entry: selectors.chat_events_resolve([entry]), **kwargs)


def chat_message_visibility_set(*, message_id: int, hidden: bool, reason: str = "") -> ChatMessage:
    """Hide or unhide a message and tell the table. Called by the moderation services, which
    check permissions and write the audit log."""
    with transaction.atomic():
        table_id = (ChatMessage.objects.filter(pk=message_id)
                    .values_list("table_id", flat=True).first())
        if table_id is None:
            raise ChatError("not_found", "no such chat message", field="messageId")
        table = _lock(table_id)
        message = ChatMessage.objects.select_for_update().get(pk=message_id)
        if message.hidden == hidden:
            return message
        message.hidden = hidden
        message.hidden_reason = (reason or "")[:500] if hidden else ""
        message.save(update_fields=["hidden", "hidden_reason"])
        _record(table, events=[{
            "type": "chat_hidden" if hidden else "chat_unhidden", "message_id": message.pk,
            "seq": message.seq, "visible_to": "all"}])
    return message
