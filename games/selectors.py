"""Reads of tables for the API: nothing here writes."""

from __future__ import annotations

import re

from django.db import connection
from django.db.models import Prefetch
from django.utils import timezone

from games.engine import GAMES

from .errors import GameError
from .models import (
    PUBLIC_ID_LENGTH,
    ChatMessage,
    LogKind,
    Seat,
    Table,
    TableLogEntry,
    TableStatus,
    Visibility,
)

MAX_REPLAY = 500
# Chat events whose text is looked up when the log is read (the log stores no chat text).
CHAT_TEXT_EVENTS = ("chat", "chat_unhidden")


_PUBLIC_ID_SHAPE = re.compile(rf"[A-Za-z0-9_-]{{{PUBLIC_ID_LENGTH}}}")


class PublicTableId(str):
    """A table id as a client sent it (``Table.public_id``), checked for shape only."""


def public_table_id(value, field: str = "tableId") -> PublicTableId:
    """The one place a table id from a client is taken in: anything not shaped like a public
    id (an integer key among them) is ``not_found``, as a table that does not exist."""
    if isinstance(value, str) and _PUBLIC_ID_SHAPE.fullmatch(value):
        return PublicTableId(value)
    raise GameError("not_found", "no such table", field=field)


def table_key(table_id, field: str = "tableId") -> dict:
    """The lookup of a table by an internal key (an ``int``: tasks, services, admin) or by a
    client's ``PublicTableId``. A plain string is refused, so a client's id that skipped
    ``public_table_id`` cannot reach a table by its integer key."""
    if isinstance(table_id, PublicTableId):
        return {"public_id": str(table_id)}
    if isinstance(table_id, int) and not isinstance(table_id, bool):
        return {"pk": table_id}
    raise GameError("not_found", "no such table", field=field)


def table_pk_from_public(value, field: str = "tableId") -> int:
    """The integer key of the table a client means (channel groups and the log use it)."""
    pk = (Table.objects.filter(**table_key(public_table_id(value, field), field))
          .values_list("pk", flat=True).first())
    if pk is None:
        raise GameError("not_found", "no such table", field=field)
    return pk


def view_for(table: Table, seat: int | None) -> dict | None:
    """What ``seat`` (None: a spectator) may see of the match now, with its legal actions."""
    if table.state is None:
        return None
    engine = GAMES[table.game]
    state = table.state
    return {
        "game": table.game,
        "seat": seat,
        "version": table.version,
        "data": engine.view(state, seat),
        # Only an actor has legal actions: the others' lists are not worked out.
        "legal_actions": engine.legal_actions(state, seat) if seat is not None
        and table.status == TableStatus.PLAYING and seat in engine.actors(state) else [],
        "deadline": table.deadline.isoformat() if table.deadline else None,
    }


_SNAPSHOT_SQL = """
SELECT t.id, t.public_id, t.game, t.status, t.visibility, t.creator_id, t.state::text, t.version,
       t.last_seq, t.turn_clock_seconds, t.seed, t.round_number, t.deadline,
       (SELECT coalesce(json_agg(json_build_object(
            'id', s.id, 'position', s.position, 'player_id', s.player_id, 'is_bot', s.is_bot,
            'bot_level', s.bot_level, 'taken_over_by_bot', s.taken_over_by_bot,
            'missed_turns', s.missed_turns, 'left', s.left_at IS NOT NULL)), '[]')
          FROM games_seat s WHERE s.table_id = t.id)::text,
       (SELECT json_build_object('version', e.version, 'seq', e.seq, 'action', e.action)
          FROM games_tablelogentry e WHERE e.table_id = t.id AND e.idempotency_key = %s)::text
  FROM games_table t WHERE t.{column} = %s
"""
# The table by its internal key or by a client's public id (see ``table_key``).
_SNAPSHOT_SQL_BY = {"pk": _SNAPSHOT_SQL.format(column="id"),
                    "public_id": _SNAPSHOT_SQL.format(column="public_id")}


def move_snapshot(table_id, key: str | None):
    """The table, its seats and the move already made under ``key`` (or None), in one
    round trip and without a lock: what a move needs to be judged and applied (PostgreSQL;
    the write that follows checks the version). None where there is no such table."""
    import orjson

    ((by, value),) = table_key(table_id).items()
    with connection.cursor() as cursor:
        cursor.execute(_SNAPSHOT_SQL_BY[by], [key, value])
        row = cursor.fetchone()
    if row is None:
        return None
    (pk, public_id, game, status, visibility, creator_id, state, version, last_seq, clock, seed,
     round_number, deadline, seats, prior) = row
    table = Table(id=pk, public_id=public_id, game=game, status=status, visibility=visibility,
                  creator_id=creator_id, state=orjson.loads(state) if state else None,
                  version=version, last_seq=last_seq, turn_clock_seconds=clock, seed=seed,
                  round_number=round_number, deadline=deadline)
    by_position = {}
    for s in orjson.loads(seats):
        left = s.pop("left")
        seat = Seat(table_id=pk, **s)
        seat.left_at = timezone.now() if left else None  # only whether, never when
        by_position[seat.position] = seat
    return table, by_position, (orjson.loads(prior) if prior else None)


def table_get(table_id) -> Table:
    """By internal key (``int``) or a client's ``PublicTableId``."""
    try:
        return (Table.objects.select_related("creator")
                .prefetch_related(Prefetch("seats", Seat.objects.select_related("player")))
                .get(**table_key(table_id)))
    except Table.DoesNotExist:
        raise GameError("not_found", "no such table", field="tableId") from None


def viewer_seat(table: Table, player) -> int | None:
    if player is None:
        return None
    for seat in table.seats.all():
        if seat.player_id == player.pk and not seat.is_bot and seat.left_at is None:
            return seat.position
    return None  # a player who left during the match watches as a spectator


def may_see(table: Table, player, invite_code: str | None = None) -> bool:
    """Whether the table exists for this viewer. A private table exists only for its players
    (seated now or before), its creator, staff and whoever holds its invite code; to anyone
    else every query, subscription and mutation answers as for a table that does not exist
    (``not_found``), so ids tried in sequence learn nothing. Tournament tables are public,
    as tournaments are."""
    if table.visibility != Visibility.PRIVATE:
        return True
    if invite_code and invite_code == table.invite_code:
        return True
    if player is None:
        return False
    if player.is_staff or player.pk == table.creator_id:
        return True
    return any(s.player_id == player.pk for s in table.seats.all())


def table_for(table_id, player) -> Table:
    """``table_get`` for a viewer: ``not_found`` where the table does not exist for them."""
    table = table_get(table_id)
    if not may_see(table, player):
        raise GameError("not_found", "no such table", field="tableId")
    return table


def may_watch(table: Table, player, seat: int | None) -> bool:
    """Seated players always; others when spectators are allowed and the table is public (or
    they are staff)."""
    if seat is not None:
        return True
    if player is not None and player.is_staff:
        return True
    return table.allow_spectators and table.visibility == Visibility.PUBLIC


def log_after(table_id: int, after_seq: int, limit: int = MAX_REPLAY) -> list[TableLogEntry]:
    return chat_events_resolve(list(TableLogEntry.objects.filter(table_id=table_id,
                                                                 seq__gt=after_seq)
                                     .order_by("seq")[:limit]))


# A strong bot reads at most this many log entries back for its seat's round history: a
# round of any game fits (a long Ätsch or Karma round has a few hundred), one query reads it.
BOT_HISTORY_ENTRIES = 600


def bot_history(table_id: int, seat: int, limit: int = BOT_HISTORY_ENTRIES) -> list[dict]:
    """The current round's events as the table log sent them to ``seat`` (redacted for it,
    oldest first): what a person in the seat saw of the round, the strong bot's history."""
    from games.bots.search import seat_history

    newest_first = (TableLogEntry.objects.filter(table_id=table_id).order_by("-seq")
                    .values_list("events", flat=True)[:limit])
    back: list[dict] = []
    for events in newest_first:
        for event in reversed(events or []):
            if event.get("type") in ("round_over", "match_over"):
                return seat_history(reversed(back), seat)
            back.append(event)
    return seat_history(reversed(back), seat)


def lobby(*, game: str | None, status: str | None, first: int, after: int | None) -> list[Table]:
    qs = (Table.objects.filter(visibility=Visibility.PUBLIC)
          .select_related("creator")
          .prefetch_related(Prefetch("seats", Seat.objects.select_related("player")))
          .order_by("-id"))
    qs = qs.filter(status=status or TableStatus.OPEN)
    if game:
        qs = qs.filter(game=game)
    if after is not None:
        qs = qs.filter(id__lt=after)
    return list(qs[:first])


def tables_of(player, *, active_only: bool = True) -> list[Table]:
    qs = (Table.objects.filter(seats__player=player, seats__is_bot=False,
                               seats__left_at__isnull=True)
          .prefetch_related(Prefetch("seats", Seat.objects.select_related("player")))
          .select_related("creator").order_by("-id"))
    if active_only:
        qs = qs.filter(status__in=[TableStatus.OPEN, TableStatus.PLAYING])
    return list(qs[:100])


def chat_events_resolve(entries: list[TableLogEntry]) -> list[TableLogEntry]:
    """Put each chat message's text into its events (in memory), or ``hidden: true`` and no
    text when a moderator hid it. Every read of the log goes through this."""
    wanted = {e.get("message_id") for entry in entries if entry.kind == LogKind.CHAT
              for e in entry.events if e.get("type") in CHAT_TEXT_EVENTS}
    if not wanted:
        return entries
    rows = dict((pk, (text, hidden)) for pk, text, hidden in
                ChatMessage.objects.filter(pk__in=wanted).values_list("pk", "text", "hidden"))
    for entry in entries:
        if entry.kind != LogKind.CHAT:
            continue
        events = []
        for event in entry.events:
            if event.get("type") in CHAT_TEXT_EVENTS:
                text, hidden = rows.get(event.get("message_id"), ("", True))
                event = {**event, "hidden": hidden}
                if not hidden:
                    event["text"] = text
            events.append(event)
        entry.events = events
    return entries


def table_state_at(table: Table, seq: int) -> dict | None:
    """The full state after log entry ``seq``, rebuilt from seed, options and the logged
    moves (the engine is deterministic), for moderators stepping through a match."""
    from .engine import GAMES

    engine = GAMES.get(table.game)
    if engine is None or table.started_at is None:
        return None
    state, version = None, 0
    for entry in TableLogEntry.objects.filter(table=table, seq__lte=seq).order_by("seq"):
        if entry.kind == LogKind.START:
            state, version = engine.new_game(table.seat_count, table.seed, table.options), 1
        elif state is None:
            continue
        elif entry.kind in (LogKind.ACTION, LogKind.BOT, LogKind.TIMEOUT):
            state, _ = engine.apply(state, entry.seat, entry.action)
            version = entry.version
        elif entry.kind == LogKind.NEXT_ROUND and entry.version > version:
            state, _ = engine.start_next_round(state)
            version = entry.version
    return state


def game_options(game: str, options: dict | None) -> dict:
    """Every house rule of ``game`` with its value. ``unknown_game`` (field ``game``) or the
    engine's ``invalid_options``/``unknown_option`` (field: the rule's name)."""
    from games.engine import GAMES, InvalidOptions

    engine = GAMES.get(game)
    if engine is None:
        raise GameError("unknown_game", f"unknown game '{game}'", field="game")
    try:
        return engine.validate_options(options)
    except InvalidOptions as exc:
        raise GameError(exc.code, exc.message, field=exc.field) from None


def bot_levels(game: str) -> list[str]:
    """The bot levels a table of ``game`` may seat, weakest first."""
    from games import bots

    return list(bots.levels(game))


def game_exists(game: str) -> bool:
    from games.engine import GAMES

    return game in GAMES
