"""Reads of tables for the API: nothing here writes."""

from __future__ import annotations

import copy
import re
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from datetime import UTC, datetime

from django.db import DEFAULT_DB_ALIAS
from django.db.models import Prefetch
from django.db.models.base import ModelState
from django.utils import timezone

from config import hotsql
from games.engine import GAMES

from .errors import GameError
from .models import (
    PUBLIC_ID_LENGTH,
    ChatMessage,
    LogKind,
    PlayerStats,
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
       t.spectator_delay_seconds,
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


def from_row(model, **values):
    """An instance of ``model`` holding exactly ``values`` (attribute names), as read from a
    row: without ``Model.__init__``, which walks every field and calls every default (a new
    invite code, a new public id) and cost more than the move's engine step. A field not
    given is deferred: reading it loads it from the database, never a made-up default (the
    move's SQL count shows it)."""
    instance = model.__new__(model)
    instance.__dict__.update(values)
    state = instance._state = ModelState()
    state.adding = False
    state.db = DEFAULT_DB_ALIAS
    return instance


def move_snapshot(table_id, key: str | None):
    """The table, its seats and the move already made under ``key`` (or None), in one
    round trip and without a lock: what a move needs to be judged and applied (PostgreSQL;
    the write that follows checks the version). None where there is no such table."""
    import orjson

    ((by, value),) = table_key(table_id).items()
    row = hotsql.fetch_one(_SNAPSHOT_SQL_BY[by], [key, value])
    if row is None:
        return None
    (pk, public_id, game, status, visibility, creator_id, state, version, last_seq, clock, seed,
     round_number, deadline, delay, seats, prior) = row
    table = from_row(Table, id=pk, public_id=public_id, game=game, status=status,
                     visibility=visibility, creator_id=creator_id,
                     state=orjson.loads(state) if state else None, version=version,
                     last_seq=last_seq, turn_clock_seconds=clock, seed=seed,
                     round_number=round_number, deadline=deadline,
                     spectator_delay_seconds=delay)
    by_position = {}
    now = None
    for s in orjson.loads(seats):
        left = s.pop("left")
        if left and now is None:
            now = timezone.now()
        seat = from_row(Seat, table_id=pk, left_at=now if left else None, **s)  # whether, not when
        by_position[seat.position] = seat
    return table, by_position, (orjson.loads(prior) if prior else None)


class _Remembered:
    """Per process, the table and seats of the last moves this process wrote: the next move
    at that table starts from them and needs no read (``record_move`` writes only if the
    table's ``last_seq`` is still the one remembered; anything another writer or process did
    meanwhile makes it fail, and the move reads the table afresh). A bounded LRU by the
    table id the client sent; the seats are shared and never changed in place."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.entries: OrderedDict = OrderedDict()
        self.lock = threading.Lock()

    def get(self, table_id) -> tuple[Table, dict] | None:
        with self.lock:
            found = self.entries.get(table_id)
            if found is None:
                return None
            self.entries.move_to_end(table_id)
        table, seats = found
        # A copy: two moves sent at once at one table must not share one instance.
        return from_row(Table, **{k: v for k, v in table.__dict__.items() if k != "_state"}), seats

    def put(self, table_id, table: Table, seats: dict) -> None:
        with self.lock:
            self.entries[table_id] = (table, seats)
            self.entries.move_to_end(table_id)
            if len(self.entries) > self.size:
                self.entries.popitem(last=False)

    def drop(self, table_id) -> None:
        with self.lock:
            self.entries.pop(table_id, None)

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()


_REMEMBERED = _Remembered(4096)
remembered, remember, forget = _REMEMBERED.get, _REMEMBERED.put, _REMEMBERED.drop
forget_all = _REMEMBERED.clear


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


def table_for_reader(table_id, player) -> Table:
    """``table_for`` as the viewer may see it now (``table_as_seen_by``)."""
    return table_as_seen_by(table_for(table_id, player), player)


def may_watch(table: Table, player, seat: int | None) -> bool:
    """Seated players always; others when spectators are allowed and the table is public (or
    they are staff)."""
    if seat is not None:
        return True
    if player is not None and player.is_staff:
        return True
    return table.allow_spectators and table.visibility == Visibility.PUBLIC


def log_after(table_id: int, after_seq: int, limit: int = MAX_REPLAY,
              upto: int | None = None) -> list[TableLogEntry]:
    """The log after ``after_seq`` (up to ``upto`` inclusive where given: a delayed reader's
    cut)."""
    entries = TableLogEntry.objects.filter(table_id=table_id, seq__gt=after_seq)
    if upto is not None:
        entries = entries.filter(seq__lte=upto)
    return chat_events_resolve(list(entries.order_by("seq")[:limit]))


# --- the spectator delay ----------------------------------------------------------------------
#
# A table's ``spectator_delay_seconds`` holds back everything non-seated readers learn of it,
# so a watcher cannot relay a live match to a player. The one rule: a delayed reader sees the
# table exactly as it stood after the last log entry whose ``created_at`` is at least the
# delay old (and all entries before it too: a cut never skips an entry). Seated players are
# never delayed; staff neither (moderators watch live); a player who left the match watches
# as a spectator, delayed.

# Epoch seconds now: the one clock every delay is measured by (tests move it).
delay_clock = time.time


def reader_delay(table: Table, player, seat: int | None) -> int:
    """How many seconds ``player`` (seat ``seat``; None: anonymous) lags behind the table."""
    if seat is not None or not table.spectator_delay_seconds:
        return 0
    if player is not None and getattr(player, "is_staff", False):
        return 0
    return table.spectator_delay_seconds


def table_delay(table: Table, player) -> int:
    """The delay that applies to ``player`` at ``table`` should they not sit there (a seated
    player may leave during a subscription and from then on watch, delayed)."""
    return reader_delay(table, player, None)


def delay_cutoff(delay: int, now: float | None = None) -> datetime:
    return datetime.fromtimestamp((delay_clock() if now is None else now) - delay, tz=UTC)


def delay_cut(table: Table, delay: int, now: float | None = None) -> int:
    """The last seq a reader ``delay`` seconds behind may see: the entry before the first one
    younger than the delay (the table's ``last_seq`` when none is)."""
    if not delay:
        return table.last_seq
    first_young = (TableLogEntry.objects.filter(table=table, created_at__gt=delay_cutoff(delay, now))
                   .order_by("seq").values_list("seq", flat=True).first())
    return table.last_seq if first_young is None else first_young - 1


@dataclass(frozen=True)
class AsOf:
    """What a delayed reader sees is the table after entry ``seq``."""

    seq: int
    rounds_done: int  # round results a delayed reader may see


def table_as_of(table: Table, seq: int) -> Table:
    """An unsaved copy of ``table`` as it stood right after its log entry ``seq``: state
    rebuilt from seed, options and the logged moves (the engine is deterministic), version,
    status, round and result as of then. Seats are today's. The copy carries ``as_of``."""
    if seq >= table.last_seq:
        past = copy.copy(table)
        past.as_of = AsOf(seq=table.last_seq, rounds_done=_rounds_done(table, table.status,
                                                                      table.round_number))
        return past
    engine = GAMES.get(table.game)
    state, version, status, round_number = None, 0, TableStatus.OPEN, 0
    for entry in TableLogEntry.objects.filter(table=table, seq__lte=seq).order_by("seq"):
        before, version = version, entry.version
        status = entry.status or status
        if entry.kind == LogKind.START and engine is not None:
            state, round_number = engine.new_game(table.seat_count, table.seed, table.options), 1
        elif state is None:
            continue
        elif entry.kind in (LogKind.ACTION, LogKind.BOT, LogKind.TIMEOUT) and entry.action is not None:
            state, _ = engine.apply(state, entry.seat, entry.action)
        elif entry.kind == LogKind.NEXT_ROUND and entry.version > before:
            # The last round's end finishes the match without a new deal (same version).
            state, _ = engine.start_next_round(state)
            round_number += 1
    past = copy.copy(table)
    past.state, past.version, past.status, past.last_seq = state, version, status, seq
    past.round_number = round_number
    past.started_at = table.started_at if state is not None else None
    past.deadline = None  # a past turn's deadline is not kept: none is shown
    ended = status in (TableStatus.FINISHED, TableStatus.ABORTED)
    if not ended:
        past.result, past.finished_at = None, None
    past.as_of = AsOf(seq=seq, rounds_done=_rounds_done(table, status, round_number))
    return past


def status_as_seen_by(table: Table, player, now: float | None = None) -> str:
    """Only the status of ``table_as_seen_by`` (lists of tables: no state is rebuilt)."""
    if not table.spectator_delay_seconds:
        return table.status
    delay = reader_delay(table, player, viewer_seat(table, player))
    if not delay:
        return table.status
    cut = delay_cut(table, delay, now)
    if cut >= table.last_seq:
        return table.status
    status = (TableLogEntry.objects.filter(table=table, seq__lte=cut).exclude(status="")
              .order_by("-seq").values_list("status", flat=True).first())
    return status or TableStatus.OPEN


def _rounds_done(table: Table, status: str, round_number: int) -> int:
    return round_number if status == TableStatus.FINISHED else max(0, round_number - 1)


def table_as_seen_by(table: Table, player, now: float | None = None) -> Table:
    """``table`` as ``player`` may see it now: itself, or for a delayed reader the table as of
    its cut (``table_as_of``): one query more for a delayed reader (two where the cut is
    behind the table: the log is replayed), none for anyone else."""
    if not table.spectator_delay_seconds:
        return table
    delay = reader_delay(table, player, viewer_seat(table, player))
    if not delay:
        return table
    return table_as_of(table, delay_cut(table, delay, now))


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


def stats_of(player_id: int) -> list[PlayerStats]:
    """A person's rounds and matches per game they have finished a round of, by game."""
    return list(PlayerStats.objects.filter(player_id=player_id).order_by("game"))


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
