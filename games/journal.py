"""The one door out of every table change.

Every writer of a table — the services, chat, moderation, the tasks, tournaments through the
services — ends its change with ``record()``: it appends one numbered entry to the table's
log, writes the table row, and registers what happens once the transaction commits: each
audience's payload (every seated person's own view, and the spectators') is published, and
the follow-up the new state needs (a bot's turn, the end of a round, the turn clock) is
queued. Nothing is published or queued for a change that rolls back, and nothing leaves a
table any other way.

``capture()`` is the test helper in the spirit of Zulip's ``capture_send_event_calls``: it
records exactly what one write published and queued.
"""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import TYPE_CHECKING

import orjson
from django.conf import settings
from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone

from config import hotsql
from games.engine import GAMES

from . import realtime, scheduling, selectors
from .models import LogKind, Seat, Table, TableLogEntry, TableStatus, Visibility

if TYPE_CHECKING:
    from accounts.models import Player

# Sent on commit when a match ends (finished or aborted); tournaments listen to it, so that
# games never imports tournaments.
table_finished = Signal()  # kwargs: table_id, status

# Changes that move the match (state, version, deadline) rather than only add to the log.
STATE_FIELDS = ("state", "version", "last_seq", "deadline", "changed_at")


def seats_of(table: Table) -> dict[int, Seat]:
    return {s.position: s for s in Seat.objects.filter(table=table)}


def record(table: Table, *, kind: str, events: list[dict], seat: int | None = None,
           player=None, action: dict | None = None, key: str | None = None,
           moves: bool = True, fields: tuple[str, ...] = (), lobby: bool = False,
           seats: dict[int, Seat] | None = None, extra_events=None) -> TableLogEntry:
    """Log one change of ``table`` (already changed in memory, locked, inside a transaction)
    and make it known on commit.

    ``moves``: the match moved (a move, a deal, a seat handed to a bot...): the deadline and
    the follow-up task are derived afresh from the new state and the state is written.
    Otherwise (seating before the start, chat) only the log grows. ``fields``: further
    columns of the table row this change set. ``lobby``: public tables tell the lobby.
    ``extra_events``: a function of the entry's events for publishing only (chat text,
    which the stored log never holds)."""
    assert transaction.get_connection().in_atomic_block, "record() runs in its change's transaction"
    table.last_seq += 1
    entry = TableLogEntry.objects.create(
        table=table, seq=table.last_seq, kind=kind, seat=seat, player=player, action=action,
        idempotency_key=key, events=events, version=table.version, status=table.status)
    tasks: list[tuple[str, int, int, float]] = []
    if moves:
        seats = seats if seats is not None else seats_of(table)
        tasks = _follow_ups(table, seats)
        table.changed_at = timezone.now()
        table.save(update_fields=[*STATE_FIELDS, *fields])
    else:
        table.save(update_fields=["last_seq", *fields])
    if extra_events is not None:
        extra_events(entry)
    _on_commit(table, entry, seats, lobby=lobby, tasks=tasks)
    return entry


_MOVE_SQL = """
WITH moved AS (
  UPDATE games_table
     SET state = %s::jsonb, version = %s, last_seq = last_seq + 1, deadline = %s,
         changed_at = %s
   WHERE id = %s AND version = %s AND last_seq = %s
  RETURNING last_seq)
INSERT INTO games_tablelogentry
       (table_id, seq, kind, seat, player_id, action, idempotency_key, events, version, status,
        created_at)
SELECT %s, moved.last_seq, %s, %s, %s, %s::jsonb, %s, %s::jsonb, %s, %s, %s FROM moved
RETURNING seq
"""


@dataclass
class Move:
    """A move judged and applied in memory, ready to be written (``write_move``)."""
    table: Table
    seats: dict[int, Seat]
    kind: str
    events: list[dict]
    seat: int
    player: Player | None
    action: dict | None
    key: str | None
    tasks: list[tuple[str, int, int, float]]
    now: datetime
    params: list


def prepare_move(table: Table, *, expected_version: int, kind: str, events: list[dict],
                 seat: int, player=None, action: dict | None = None, key: str | None = None,
                 seats: dict[int, Seat]) -> Move:
    """The write of a move: ``table`` holds the new state and version, and the ``last_seq``
    of the table as it was read without a lock (``selectors.move_snapshot``, or this
    process's last write, ``selectors.remembered``)."""
    tasks = _follow_ups(table, seats)
    now = timezone.now()
    return Move(table, seats, kind, events, seat, player, action, key, tasks, now, [
        _json(table.state), table.version, table.deadline, now, table.pk, expected_version,
        table.last_seq, table.pk, kind, seat, getattr(player, "pk", None), _json(action), key,
        _json(events), table.version, table.status, now])


def record_move(table: Table, *, expected_version: int, kind: str, events: list[dict],
                seat: int, player=None, action: dict | None = None, key: str | None = None,
                seats: dict[int, Seat]) -> TableLogEntry | None:
    """``record`` for a move on PostgreSQL outside a transaction, in one statement: the
    checked update of the table row and the log entry, committed together (a single
    statement is its own transaction), then published and queued at once. The row is
    written only if its version and its ``last_seq`` are still those read
    (``prepare_move``): every change of a table, its seats included, appends to its log
    (``record``), so an unchanged ``last_seq`` means nothing at all changed since the read.
    None, with nothing written, where the table moved on (the caller reads again, or judges
    under the lock) or the idempotency key was taken meanwhile."""
    pending = prepare_move(table, expected_version=expected_version, kind=kind, events=events,
                           seat=seat, player=player, action=action, key=key, seats=seats)
    seq = write_move(pending)
    return None if seq is None else moved(pending, seq)


def write_move(pending: Move) -> int | None:
    """Write one move (see ``record_move``): its seq, or None where nothing was written.
    Call ``moved`` afterwards."""
    from django.db import IntegrityError

    try:
        return hotsql.write(_MOVE_SQL, pending.params)
    except IntegrityError:
        return None  # the same key from a concurrent request: the locked path replays it


def moved(pending: Move, seq: int) -> TableLogEntry:
    """A move is committed as ``seq``: publish it and queue what it calls for (at once)."""
    table = pending.table
    table.last_seq = seq
    table.changed_at = pending.now
    player = pending.player
    entry = selectors.from_row(TableLogEntry, id=None, table_id=table.pk, seq=seq,
                               kind=pending.kind, seat=pending.seat,
                               player_id=getattr(player, "pk", None), action=pending.action,
                               idempotency_key=pending.key, events=pending.events,
                               version=table.version, status=table.status,
                               created_at=pending.now)
    if player is not None:
        entry._state.fields_cache["player"] = player
    _on_commit(table, entry, pending.seats, lobby=False, tasks=pending.tasks)
    return entry


def _json(value) -> str:
    return orjson.dumps(value).decode()


def _follow_ups(table: Table, seats: dict[int, Seat]) -> list[tuple[str, int, int, float]]:
    """Set the deadline and list the task the new state calls for.

    A turn clock is the ``deadline`` column alone: no task is queued per move (one Celery
    message with a countdown per move halved a clocked table's moves/s and held a message
    per table in the worker for the whole clock). ``services.sweep_deadlines``, run by beat
    every ``STAPEL_DEADLINE_SWEEP_SECONDS``, queues each timeout due before its next run
    with the countdown to its deadline."""
    table.deadline = None
    if table.status != TableStatus.PLAYING or table.state is None:
        return []
    engine = GAMES[table.game]
    state = table.state
    if engine.is_round_over(state):
        countdown = 0 if engine.is_over(state) else settings.STAPEL_ROUND_PAUSE_SECONDS
        return [("round_end", table.pk, table.version, countdown)]
    tasks = []
    actors = engine.actors(state)
    if any(seats[a].plays_as_bot for a in actors if a in seats):
        tasks.append(("bot_turn", table.pk, table.version, settings.STAPEL_BOT_PAUSE_SECONDS))
    people = [a for a in actors if a in seats and not seats[a].plays_as_bot]
    if people and table.turn_clock_seconds:
        table.deadline = timezone.now() + timedelta(seconds=table.turn_clock_seconds)
    return tasks


def audience_messages(table: Table, entry: TableLogEntry,
                      seats: dict[int, Seat]) -> list[tuple[str, dict]]:
    """One payload per person seated (their own view) and one for the spectators, which
    names the seated people so that their subscriptions drop the spectators' copy."""
    # Someone who left watches as a spectator: the seat's own view goes to no one.
    people = {position: s.player_id for position, s in seats.items()
              if not s.is_bot and s.left_at is None}
    audiences = [(position, realtime.player_audience(player_id))
                 for position, player_id in people.items()]
    audiences.append((None, realtime.SPECTATORS))
    messages = []
    for position, audience in audiences:
        message = {
            "type": realtime.MESSAGE_TYPE,
            "table": table.pk,
            "public_id": table.public_id,
            "audience": audience,
            "seq": entry.seq,
            "kind": entry.kind,
            "version": table.version,
            "status": table.status,
            "events": realtime.redact_events(entry.events, position),
            "view": selectors.view_for(table, position),
        }
        if position is None:
            message["seated"] = sorted(people.values())
            if table.spectator_delay_seconds:
                # Spectators' subscriptions hold this until ``at + delay`` (games/api/live.py):
                # the publish path sets no timer.
                message["at"] = entry.created_at.timestamp()
                message["delay"] = table.spectator_delay_seconds
        messages.append((realtime.group_name(table.pk, audience), message))
    return messages


def _on_commit(table: Table, entry: TableLogEntry, seats, *, lobby: bool, tasks) -> None:
    messages = audience_messages(table, entry, seats if seats is not None else seats_of(table))
    if lobby and table.visibility == Visibility.PUBLIC:
        messages.append((realtime.LOBBY_GROUP, {
            "type": realtime.LOBBY_TYPE, "table": table.pk, "public_id": table.public_id,
            "status": table.status,
            "game": table.game,
            # Held back as the table's spectators' updates are (games/api/schema.py).
            **({"at": entry.created_at.timestamp(), "delay": table.spectator_delay_seconds}
               if table.spectator_delay_seconds else {})}))
    finished = (entry.kind in (LogKind.NEXT_ROUND, LogKind.ABORT)
                and table.status in (TableStatus.FINISHED, TableStatus.ABORTED))
    captures = getattr(_CAPTURE, "stack", None)
    if captures:
        captures[-1].changes.append(Recorded(entry=entry, messages=messages, tasks=tasks,
                                             finished=finished))
    transaction.on_commit(partial(realtime.send, messages))
    for name, table_id, version, countdown in tasks:
        transaction.on_commit(partial(scheduling.enqueue, name, table_id, version,
                                      countdown=countdown))
    if finished:
        transaction.on_commit(partial(table_finished.send, sender=Table, table_id=table.pk,
                                      status=table.status))


def broadcast(messages: list[tuple[str, dict]]) -> None:
    """Messages that are not a table's change (a ban's or a revocation's close, tournament
    news), sent through the same door: on commit, or at once outside a transaction."""
    captures = getattr(_CAPTURE, "stack", None)
    if captures:
        captures[-1].broadcasts.extend(messages)
    transaction.on_commit(partial(realtime.send, messages))


# --- the test helper --------------------------------------------------------------------------

@dataclass
class Recorded:
    entry: TableLogEntry
    messages: list[tuple[str, dict]]
    tasks: list[tuple[str, int, int, float]]
    finished: bool


@dataclass
class Captured:
    changes: list[Recorded] = field(default_factory=list)
    broadcasts: list[tuple[str, dict]] = field(default_factory=list)

    @property
    def groups(self) -> list[str]:
        return [group for change in self.changes for group, _ in change.messages]

    @property
    def task_names(self) -> list[str]:
        return [task[0] for change in self.changes for task in change.tasks]


# Per thread: a write another thread makes meanwhile (a bot's turn on the in-process timer
# queue) is not the block's.
_CAPTURE = threading.local()


@contextlib.contextmanager
def capture():
    """Record what the writes of this thread inside the block logged, published and queued
    (tests)."""
    captured = Captured()
    stack = _CAPTURE.__dict__.setdefault("stack", [])
    stack.append(captured)
    try:
        yield captured
    finally:
        stack.remove(captured)
