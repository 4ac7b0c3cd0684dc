"""The only code that changes tables, seats and matches.

Every change runs in one transaction with the table row locked, appends one numbered entry to
the table's log, and — only on commit — publishes per-viewer payloads and schedules whatever
must happen without a person (a bot's turn, the end-of-round step, the turn clock). Services
are keyword-only and raise ``GameError`` with a stable code for every expected failure;
nothing is written when they raise.
"""

from __future__ import annotations

import contextlib
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, OperationalError, connection, transaction
from django.utils import timezone

from accounts.models import Player
from config import metrics
from games import bots as bot_registry
from games.bots.search import SearchBot
from games.engine import GAMES, IllegalAction, InvalidOptions

from . import journal, scheduling, selectors
from .errors import GameError
from .models import (
    LogKind,
    PlayerStats,
    RoundResult,
    Seat,
    Table,
    TableLogEntry,
    TableStatus,
    Visibility,
)

# Sent on commit when a match ends (finished or aborted): see games.journal.
table_finished = journal.table_finished
# News that is not a table's change (tournaments, closes) leaves through the same door.
broadcast = journal.broadcast

MAX_TURN_CLOCK_SECONDS = 600  # well below the broker's visibility timeout
MAX_SPECTATOR_DELAY_SECONDS = 3600  # spectators' events only; seated players never wait
MAX_KEY_LENGTH = 80


@dataclass(frozen=True)
class ActResult:
    table_id: int
    version: int
    seq: int
    replayed: bool = False
    key_reused: bool = False  # replayed, but the key came with another action this time


def get_engine(game: str):
    engine = GAMES.get(game)
    if engine is None:
        raise GameError("unknown_game", f"unknown game '{game}'", field="game")
    return engine


@contextlib.contextmanager
def _busy_when_held():
    """A statement that waited longer than the lock timeout (or was cancelled) answers
    ``busy``: nothing was written, the same move may be sent again."""
    try:
        yield
    except OperationalError as exc:
        if type(exc.__cause__).__name__ not in ("LockNotAvailable", "QueryCanceled"):
            raise
        raise GameError("busy", "the table is busy; try again in a moment") from None


def _lock(table_id, viewer: Player | None = None, invite_code: str | None = None) -> Table:
    """The table, locked. With ``viewer``: ``not_found`` where it does not exist for them
    (a private table they are not part of, see ``selectors.may_see``). ``table_id`` is an
    internal key or a client's ``selectors.PublicTableId`` (see ``selectors.table_key``)."""
    key = selectors.table_key(table_id)
    try:  # waits at most TABLE_LOCK_TIMEOUT_MS (the connection's lock_timeout)
        with _busy_when_held():
            table = Table.objects.select_for_update().get(**key)
    except Table.DoesNotExist:
        raise GameError("not_found", "no such table", field="tableId") from None
    if viewer is not None and not selectors.may_see(table, viewer, invite_code):
        raise GameError("not_found", "no such table", field="tableId")
    return table


def bot_player(level: str) -> Player:
    player, _ = Player.objects.get_or_create(
        username=f"bot-{level}",
        defaults={"display_name": f"{level.capitalize()} bot", "is_bot": True,
                  "bot_level": level, "password": "!"})
    return player


# --- creating tables and seating ------------------------------------------------------------

@transaction.atomic
def table_create(*, creator: Player, game: str, options: dict | None = None,
                 seat_count: int | None = None, visibility: str = Visibility.PUBLIC,
                 turn_clock_seconds: int | None = None, allow_spectators: bool = True,
                 spectators_may_chat: bool = False, join: bool = True,
                 spectator_delay_seconds: int = 0) -> Table:
    engine = get_engine(game)
    try:
        opts = engine.validate_options(options)
    except InvalidOptions as exc:
        raise GameError(exc.code, exc.message,
                        field=f"options.{exc.field}" if exc.field else "options") from None
    if seat_count is None:
        seat_count = max(engine.min_players, min(4, engine.max_players))
    if not engine.min_players <= seat_count <= engine.max_players:
        raise GameError("invalid_seat_count",
                        f"{engine.name} is for {engine.min_players} to {engine.max_players} players",
                        field="seatCount")
    if visibility not in Visibility.values:
        raise GameError("invalid_visibility", "visibility must be public or private",
                        field="visibility")
    if turn_clock_seconds is None:
        turn_clock_seconds = settings.STAPEL_TURN_CLOCK_DEFAULT_SECONDS
    if not 0 <= turn_clock_seconds <= MAX_TURN_CLOCK_SECONDS:
        raise GameError("invalid_turn_clock",
                        f"the turn clock is 0 (off) or 1 to {MAX_TURN_CLOCK_SECONDS} seconds",
                        field="turnClockSeconds")
    if not 0 <= spectator_delay_seconds <= MAX_SPECTATOR_DELAY_SECONDS:
        raise GameError("invalid_spectator_delay",
                        f"a spectator delay is 0 to {MAX_SPECTATOR_DELAY_SECONDS} seconds",
                        field="spectatorDelaySeconds")
    if creator.is_banned():
        raise GameError("banned", "banned players cannot open tables")
    table = Table.objects.create(
        game=game, options=opts, seat_count=seat_count, visibility=visibility, creator=creator,
        turn_clock_seconds=turn_clock_seconds, allow_spectators=allow_spectators,
        spectators_may_chat=spectators_may_chat, seed=secrets.randbits(62),
        spectator_delay_seconds=spectator_delay_seconds)
    events = [{"type": "table_created", "game": game, "visible_to": "all"}]
    if join:
        Seat.objects.create(table=table, position=0, player=creator)
        events.append(_seat_event("seat_taken", 0, creator))
    journal.record(table, kind=LogKind.SEATS, events=events, player=creator, moves=False,
                   lobby=True)
    return table


def _seat_event(type_: str, position: int, player: Player, **extra) -> dict:
    return {"type": type_, "seat": position, "player_id": str(player.pk),
            "display_name": player.display_name, "is_bot": player.is_bot,
            "visible_to": "all", **extra}


def _free_position(table: Table, seats: dict[int, Seat], position: int | None) -> int:
    if position is None:
        free = [p for p in range(table.seat_count) if p not in seats]
        if not free:
            raise GameError("table_full", "every seat is taken")
        return free[0]
    if not isinstance(position, int) or not 0 <= position < table.seat_count:
        raise GameError("invalid_seat", f"seats are 0 to {table.seat_count - 1}", field="seat")
    if position in seats:
        raise GameError("seat_taken", "that seat is taken", field="seat")
    return position


@transaction.atomic
def table_join(*, player: Player, table_id=None, invite_code: str | None = None,
               position: int | None = None) -> Table:
    if table_id is None and not invite_code:
        raise GameError("not_found", "give a table id or an invite code", field="tableId")
    if table_id is None:
        found = Table.objects.filter(invite_code=invite_code).values_list("pk", flat=True).first()
        if found is None:
            raise GameError("wrong_invite_code", "no table has that invite code",
                            field="inviteCode")
        table_id = found
    table = _lock(table_id, viewer=player, invite_code=invite_code)
    if table.visibility == Visibility.PRIVATE and invite_code != table.invite_code:
        # Its creator or a staff member, who may see it, still needs the code to sit down.
        raise GameError("wrong_invite_code", "this table needs its invite code",
                        field="inviteCode")
    if table.status != TableStatus.OPEN:
        raise GameError("not_open", "this table is not taking players")
    seats = journal.seats_of(table)
    if any(s.player_id == player.pk for s in seats.values()):
        raise GameError("already_seated", "you already sit at this table")
    position = _free_position(table, seats, position)
    try:
        with transaction.atomic():
            Seat.objects.create(table=table, position=position, player=player)
    except IntegrityError:
        raise GameError("seat_taken", "that seat is taken", field="seat") from None
    journal.record(table, kind=LogKind.SEATS, events=[_seat_event("seat_taken", position, player)],
                   player=player, moves=False, lobby=True)
    return table


@transaction.atomic
def bot_add(*, player: Player, table_id, level: str | None = None,
            position: int | None = None) -> Table:
    table = _lock(table_id, viewer=player)
    _require_creator(table, player)
    if table.status != TableStatus.OPEN:
        raise GameError("not_open", "bots are added before the start")
    known = bot_registry.levels(table.game)
    level = level or bot_registry.default_level(table.game)
    if level not in known:
        raise GameError("invalid_bot_level", f"bot levels: {', '.join(sorted(known))}",
                        field="level")
    seats = journal.seats_of(table)
    position = _free_position(table, seats, position)
    bot = bot_player(level)
    Seat.objects.create(table=table, position=position, player=bot, is_bot=True, bot_level=level)
    journal.record(table, kind=LogKind.SEATS, player=player, moves=False, lobby=True,
                   events=[_seat_event("seat_taken", position, bot, bot_level=level)])
    return table


@transaction.atomic
def table_create_seated(*, creator: Player, game: str, options: dict | None,
                        players: list[Player], bots: int = 0, bot_level: str = "heuristic",
                        turn_clock_seconds: int | None = None, start: bool = True,
                        spectator_delay_seconds: int = 0) -> Table:
    """A table with its players already seated in the given order (a tournament's round);
    ``bots`` more seats go to bots of ``bot_level``. Players that are bots play as bots.
    Started at once unless ``start`` is False; the system (not ``creator``) starts it."""
    if bot_level not in bot_registry.levels(game):
        raise GameError("invalid_bot_level", f"no bot level '{bot_level}' for {game}",
                        field="botLevel")
    table = table_create(creator=creator, game=game, options=options,
                         seat_count=len(players) + bots, turn_clock_seconds=turn_clock_seconds,
                         join=False, spectator_delay_seconds=spectator_delay_seconds)
    table = _lock(table.pk)
    table.tournament_table = True
    events = []
    for position, player in enumerate(players):
        Seat.objects.create(table=table, position=position, player=player,
                            is_bot=player.is_bot, bot_level=player.bot_level if player.is_bot
                            else "")
        events.append(_seat_event("seat_taken", position, player))
    bot = bot_player(bot_level) if bots else None
    for position in range(len(players), len(players) + bots):
        Seat.objects.create(table=table, position=position, player=bot, is_bot=True,
                            bot_level=bot_level)
        events.append(_seat_event("seat_taken", position, bot, bot_level=bot_level))
    journal.record(table, kind=LogKind.SEATS, events=events, moves=False,
                   fields=("tournament_table",))
    if start:
        table = table_start(player=None, table_id=table.pk)
    return table


@transaction.atomic
def bot_remove(*, player: Player, table_id, position: int) -> Table:
    table = _lock(table_id, viewer=player)
    _require_creator(table, player)
    if table.status != TableStatus.OPEN:
        raise GameError("not_open", "bots are removed before the start")
    seat = journal.seats_of(table).get(position)
    if seat is None or not seat.is_bot:
        raise GameError("invalid_seat", "no bot sits there", field="seat")
    seat.delete()
    journal.record(table, kind=LogKind.SEATS, player=player, moves=False, lobby=True,
                   events=[_seat_event("seat_left", position, seat.player)])
    return table


@transaction.atomic
def table_leave(*, player: Player, table_id) -> Table:
    """Before the start the seat is freed; during a match a bot plays it to the end."""
    table = _lock(table_id, viewer=player)
    seat = next((s for s in journal.seats_of(table).values() if s.player_id == player.pk and not s.is_bot
                 and s.left_at is None), None)
    if seat is None:
        raise GameError("not_seated", "you do not sit at this table")
    if table.status == TableStatus.OPEN:
        seat.delete()
        journal.record(table, kind=LogKind.SEATS, player=player, moves=False, lobby=True,
                       events=[_seat_event("seat_left", seat.position, player)])
        return table
    if table.status != TableStatus.PLAYING:
        raise GameError("game_over", "this match is over")
    # For good: unlike a seat taken over after missed turns, acting does not take it back.
    seat.left_at = timezone.now()
    seat.save(update_fields=["left_at"])
    _hand_to_bot(table, seat, reason="left")
    return table


def _hand_to_bot(table: Table, seat: Seat, *, reason: str) -> None:
    """A bot plays ``seat`` from now on (the player left, missed turns, or was banned)."""
    if seat.taken_over_by_bot:
        return
    seat.taken_over_by_bot = True
    seat.save(update_fields=["taken_over_by_bot"])
    journal.record(table, kind=LogKind.SEATS, seat=seat.position,
                   events=[_seat_event("bot_took_over", seat.position, seat.player,
                                       reason=reason)])


def seats_hand_to_bots(*, player: Player, reason: str) -> int:
    """Every running match of ``player`` goes on with a bot in their seat (e.g. a ban)."""
    count = 0
    ids = Seat.objects.filter(player=player, is_bot=False, taken_over_by_bot=False,
                              table__status=TableStatus.PLAYING).values_list("table_id", flat=True)
    for table_id in list(ids):
        with transaction.atomic():
            table = _lock(table_id)
            seat = Seat.objects.filter(table=table, player=player, is_bot=False).first()
            if seat and table.status == TableStatus.PLAYING:
                _hand_to_bot(table, seat, reason=reason)
                count += 1
    return count


def _require_creator(table: Table, player: Player) -> None:
    if table.creator_id != player.pk:
        raise GameError("not_creator", "only the table's creator may do that")


@transaction.atomic
def table_start(*, player: Player | None, table_id) -> Table:
    """Deal the first round. ``player`` None: the system (e.g. a tournament) starts it."""
    table = _lock(table_id, viewer=player)
    if player is not None:
        _require_creator(table, player)
    if table.status != TableStatus.OPEN:
        raise GameError("not_open", "this table has started already")
    engine = GAMES[table.game]
    seats = sorted(journal.seats_of(table).values(), key=lambda s: s.position)
    if len(seats) < engine.min_players:
        raise GameError("not_enough_players",
                        f"{engine.name} needs at least {engine.min_players} players")
    # Empty seats are dropped: players keep their order and sit at 0..n-1.
    if [s.position for s in seats] != list(range(len(seats))):
        for s in seats:
            s.position += 1000
            s.save(update_fields=["position"])
        for i, s in enumerate(seats):
            s.position = i
            s.save(update_fields=["position"])
    table.seat_count = len(seats)
    table.state, deal_events = engine.new_game_with_events(len(seats), table.seed, table.options)
    table.status = TableStatus.PLAYING
    table.version = 1
    table.round_number = 1
    table.started_at = timezone.now()
    # The first deal says what every later one says (each seat's cards, the round's start).
    journal.record(table, kind=LogKind.START, player=player, events=[
        {"type": "match_started", "seats": len(seats), "visible_to": "all"}, *deal_events],
        seats={s.position: s for s in seats}, lobby=True,
        fields=("seat_count", "status", "round_number", "started_at"))
    return table


# --- moves ------------------------------------------------------------------------------------

def act(*, player: Player, table_id, action: dict, expected_version: int,
        idempotency_key: str | None = None) -> ActResult:
    """A person's move. The same idempotency key from the same player applies once and
    answers the same; a move made against an older version is refused as stale."""
    if idempotency_key is not None and not 1 <= len(idempotency_key) <= MAX_KEY_LENGTH:
        raise GameError("invalid_idempotency_key",
                        f"idempotency keys are 1 to {MAX_KEY_LENGTH} characters",
                        field="idempotencyKey")
    key = f"{player.pk}:{idempotency_key}" if idempotency_key else None
    if connection.vendor == "postgresql" and not connection.in_atomic_block:
        result = _act_at_once(player=player, table_id=table_id, action=action,
                              expected_version=expected_version, key=key)
        if result is not None:
            return result
    with transaction.atomic():
        table = _lock(table_id, viewer=player)
        if key is not None:
            prior = (TableLogEntry.objects.filter(table=table, idempotency_key=key)
                     .values("version", "seq", "action").first())
            if prior is not None:
                return ActResult(table.pk, prior["version"], prior["seq"], replayed=True,
                                 key_reused=prior["action"] != action)
        seats = journal.seats_of(table)
        seat = next((s for s in seats.values() if s.player_id == player.pk and not s.is_bot
                     and s.left_at is None), None)
        if seat is None:
            raise GameError("not_seated", "you do not sit at this table")
        if table.status != TableStatus.PLAYING:
            raise GameError("game_over" if table.status != TableStatus.OPEN else "not_playing",
                            "this table is not playing")
        if expected_version != table.version:
            raise GameError("stale_version",
                            f"the table is at version {table.version}; refresh and retry",
                            field="expectedVersion")
        if seat.taken_over_by_bot or seat.missed_turns:
            # A person who acts again takes their seat back from the bot.
            seat.taken_over_by_bot = False
            seat.missed_turns = 0
            seat.save(update_fields=["taken_over_by_bot", "missed_turns"])
        entry = _apply(table, seat.position, action, kind=LogKind.ACTION, player=player,
                       key=key, seats=seats)
        return ActResult(table.pk, table.version, entry.seq)


def _act_at_once(*, player: Player, table_id, action: dict, expected_version: int,
                 key: str | None) -> ActResult | None:
    """The common move in one or two round trips (PostgreSQL): the table as this process
    last wrote it (``selectors.remembered``) or one read of the table, its seats and any
    earlier use of the key, then one statement that writes the move if the table is still
    as read. None whenever the locked path must judge: anything unusual (not seated, not
    playing, stale, a seat to take back from a bot, a race) is answered there, with the same
    codes as always."""
    pending = _remembered_move(player=player, table_id=table_id, action=action,
                               expected_version=expected_version, key=key)
    if pending is not None:
        with _busy_when_held():
            seq = journal.write_move(pending)
        result = _written(table_id, pending, seq)
        if result is not None:
            return result
    with _busy_when_held():
        snapshot = selectors.move_snapshot(table_id, key)
    if snapshot is None:
        return None
    table, seats, prior = snapshot
    if prior is not None:
        return ActResult(table.pk, prior["version"], prior["seq"], replayed=True,
                         key_reused=prior["action"] != action)
    judged = _judged(table, seats, player, action, expected_version)
    if judged is None:
        return None
    seat, state, events = judged
    table.state = state
    table.version += 1
    pending = journal.prepare_move(table, expected_version=expected_version,
                                   kind=LogKind.ACTION, events=events, seat=seat.position,
                                   player=player, action=action, key=key, seats=seats)
    with _busy_when_held():
        seq = journal.write_move(pending)
    return _written(table_id, pending, seq)


def _judged(table: Table, seats: dict[int, Seat], player: Player, action: dict,
            expected_version: int, *, remembered: bool = False):
    """``(seat, new state, events)`` of a move that needs no lock to be judged, or None
    where the locked path must answer. An illegal action is answered here, except on a
    remembered table, which may be older than what is stored (None: read it)."""
    seat = next((s for s in seats.values() if s.player_id == player.pk and not s.is_bot
                 and s.left_at is None), None)
    if (seat is None or table.status != TableStatus.PLAYING or table.version != expected_version
            or seat.taken_over_by_bot or seat.missed_turns):
        return None
    try:
        state, events = GAMES[table.game].apply(table.state, seat.position, action)
    except IllegalAction as exc:
        if remembered:
            return None
        raise GameError(exc.code, exc.message, field="action") from None
    return seat, state, events


def _remembered_move(*, player: Player, table_id, action: dict, expected_version: int,
                     key: str | None) -> journal.Move | None:
    """The move judged and applied on the table as this process last wrote it, or None
    (nothing remembered, another version expected, anything unusual: read the table).

    The remembered table holds no idempotency keys, and needs none: a key sent again for
    the move it made comes with that move's (older) version, and a key reused for another
    move fails the write on its unique constraint; both are then answered from the log."""
    snapshot = selectors.remembered(table_id)
    if snapshot is None or snapshot[0].version != expected_version:
        return None
    table, seats = snapshot
    judged = _judged(table, seats, player, action, expected_version, remembered=True)
    if judged is None:
        return None
    seat, state, events = judged
    table.state = state
    table.version += 1
    return journal.prepare_move(table, expected_version=expected_version, kind=LogKind.ACTION,
                                events=events, seat=seat.position, player=player,
                                action=action, key=key, seats=seats)


def _written(table_id, pending: journal.Move, seq: int | None) -> ActResult | None:
    """After the write of ``pending``: its answer, published and queued; None where it was
    not written (``act`` answers it)."""
    if seq is None:
        selectors.forget(table_id)
        return None
    table = pending.table
    # Remembered before it is published: the mover's next move may follow at once.
    table.last_seq, table.changed_at = seq, pending.now
    selectors.remember(table_id, table, pending.seats)
    journal.moved(pending, seq)
    metrics.move_applied_on_commit(table.game, LogKind.ACTION)
    return ActResult(table.pk, table.version, seq)


def _apply(table: Table, position: int, action, *, kind: str, player: Player | None = None,
           key: str | None = None, seats: dict[int, Seat] | None = None) -> TableLogEntry:
    engine = GAMES[table.game]
    try:
        state, events = engine.apply(table.state, position, action)
    except IllegalAction as exc:
        raise GameError(exc.code, exc.message, field="action") from None
    table.state = state
    table.version += 1
    entry = journal.record(table, kind=kind, seat=position, player=player, action=action,
                           key=key, events=events, seats=seats)
    metrics.move_applied_on_commit(table.game, kind)  # after the publish: times the fan-out
    return entry


# --- what happens by itself (called by tasks) ------------------------------------------------

def _locked_at(table_id: int, expected_version: int) -> Table | None:
    # A lock timeout raises OperationalError here: the task retries with backoff.
    table = Table.objects.select_for_update().filter(pk=table_id).first()
    if table is None or table.status != TableStatus.PLAYING or table.version != expected_version:
        return None  # the world has moved on: nothing to do
    return table


def bot_turn(*, table_id: int, expected_version: int) -> bool:
    """One move for the first bot (or bot-played seat) among the actors: on PostgreSQL in two
    round trips like a person's move (``_act_at_once``), else, or when the table moved
    between the read and the write, under the lock."""
    if connection.vendor == "postgresql" and not connection.in_atomic_block:
        snapshot = selectors.move_snapshot(table_id, None)
        if snapshot is None:
            return False
        table, seats, _ = snapshot
        if table.status != TableStatus.PLAYING or table.version != expected_version:
            return False  # the world has moved on: nothing to do
        chosen = _bot_choice(table, seats)
        if chosen is None:
            return False
        position, action = chosen
        try:
            table.state, events = GAMES[table.game].apply(table.state, position, action)
        except IllegalAction as exc:
            raise GameError(exc.code, exc.message, field="action") from None
        table.version += 1
        entry = journal.record_move(table, expected_version=expected_version,
                                    kind=LogKind.BOT, events=events, seat=position,
                                    action=action, key=f"bot:{expected_version}:{position}",
                                    seats=seats)
        if entry is not None:
            metrics.move_applied_on_commit(table.game, LogKind.BOT)
            return True
    return _bot_turn_locked(table_id=table_id, expected_version=expected_version)


@transaction.atomic
def _bot_turn_locked(*, table_id: int, expected_version: int) -> bool:
    table = _locked_at(table_id, expected_version)
    if table is None:
        return False
    seats = journal.seats_of(table)
    chosen = _bot_choice(table, seats)
    if chosen is None:
        return False
    position, action = chosen
    _apply(table, position, action, kind=LogKind.BOT, seats=seats,
           key=f"bot:{table.version}:{position}")
    return True


def _bot_choice(table: Table, seats: dict[int, Seat]) -> tuple[int, dict] | None:
    """The seat whose bot moves now and its move, or None when no bot is to act."""
    import random

    engine = GAMES[table.game]
    if engine.is_round_over(table.state):
        return None
    bots = [a for a in engine.actors(table.state) if a in seats and seats[a].plays_as_bot]
    if not bots:
        return None
    position = bots[0]
    policy = bot_registry.bot_for(table.game, seats[position].bot_level)
    legal = engine.legal_actions(table.state, position)
    rng = random.Random(f"{table.seed}:{table.version}:{position}")
    view = engine.view(table.state, position)
    if isinstance(policy, SearchBot):
        # The seat's own redacted round history (never more than the seat was sent): the
        # search deals its worlds consistently with what the table saw.
        return position, policy.choose(view, legal, rng,
                                       iterations=settings.STAPEL_STRONG_BOT_ITERATIONS,
                                       time_ms=settings.STAPEL_STRONG_BOT_TIME_MS,
                                       history=selectors.bot_history(table.id, position))
    return position, policy.choose(view, legal, rng)


@transaction.atomic
def turn_timeout(*, table_id: int, expected_version: int) -> bool:
    table = _locked_at(table_id, expected_version)
    now = timezone.now()
    if table is None or table.deadline is None or table.deadline > now:
        return False
    overdue = (now - table.deadline).total_seconds()
    engine = GAMES[table.game]
    seats = journal.seats_of(table)
    late = [a for a in engine.actors(table.state) if a in seats and not seats[a].plays_as_bot]
    if not late:
        return False
    position = late[0]
    seat = seats[position]
    action = engine.declaration.default_action(engine.legal_actions(table.state, position))
    seat.missed_turns += 1
    seat.save(update_fields=["missed_turns"])
    _apply(table, position, action, kind=LogKind.TIMEOUT, seats=seats,
           key=f"timeout:{table.version}:{position}")
    metrics.turn_clock_late_on_commit(overdue)
    if seat.missed_turns >= settings.STAPEL_EXPIRIES_BEFORE_BOT and table.status == TableStatus.PLAYING:
        _hand_to_bot(table, seat, reason="missed_turns")
    return True


@transaction.atomic
def round_end(*, table_id: int, expected_version: int) -> bool:
    """Record the finished round and its statistics; deal the next or finish the match."""
    table = _locked_at(table_id, expected_version)
    if table is None:
        return False
    engine = GAMES[table.game]
    state = table.state
    if not engine.is_round_over(state):
        return False
    result = engine.round_result(state)
    created = _round_recorded(table, result)
    seats = journal.seats_of(table)
    if engine.is_over(state):
        match = engine.result(state)
        _count_stats(table, seats, result["placings"] if created else None, match["placings"])
        table.status = TableStatus.FINISHED
        table.result = match
        table.finished_at = timezone.now()
        journal.record(table, kind=LogKind.NEXT_ROUND, events=[
            {"type": "table_finished", "placings": match["placings"],
             "scores": match["scores"], "visible_to": "all"}], seats=seats, lobby=True,
            fields=("status", "result", "finished_at"))
        return True
    if created:
        _count_stats(table, seats, result["placings"], None)
    state, events = engine.start_next_round(state)
    table.state = state
    table.version += 1
    table.round_number += 1
    journal.record(table, kind=LogKind.NEXT_ROUND, events=events, seats=seats,
                   fields=("round_number",))
    return True


def _round_recorded(table: Table, result: dict) -> bool:
    """Store the round's result, once: whether this call stored it. One statement (a
    ``get_or_create`` took four: a read, and a write in a savepoint)."""
    fields = {f.name: f for f in RoundResult._meta.concrete_fields}
    values = {"placings": result["placings"], "scores": result["scores"],
              "detail": {k: v for k, v in result.items() if k not in ("placings", "scores")}}
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {RoundResult._meta.db_table} "
            "(table_id, round_number, placings, scores, detail, created_at) "
            "VALUES (%s, %s, %s, %s, %s, %s) "
            "ON CONFLICT (table_id, round_number) DO NOTHING RETURNING id",
            [table.pk, table.round_number,
             *(fields[name].get_db_prep_value(value, connection) for name, value in values.items()),
             fields["created_at"].get_db_prep_value(timezone.now(), connection)])
        return cursor.fetchone() is not None


def _count_stats(table: Table, seats: dict[int, Seat], round_placings: list[int] | None,
                 match_placings: list[int] | None) -> None:
    """Add a round (``round_placings``) and a match (``match_placings``) to the people's
    statistics: one upsert for every seat at once (it was a read, maybe a write in a
    savepoint, and an update, per seat and per kind)."""
    rows = []
    for position, seat in sorted(seats.items()):
        if seat.is_bot:
            continue
        rows.append((seat.player_id, table.game,
                     int(round_placings is not None),
                     int(round_placings is not None and round_placings[position] == 1),
                     int(match_placings is not None),
                     int(match_placings is not None and match_placings[position] == 1)))
    if not rows:
        return
    name = PlayerStats._meta.db_table
    counts = ("rounds_played", "rounds_won", "matches_played", "matches_won")
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {name} (player_id, game, {', '.join(counts)}) VALUES "
            + ", ".join(["(%s, %s, %s, %s, %s, %s)"] * len(rows))
            + " ON CONFLICT (player_id, game) DO UPDATE SET "
            + ", ".join(f"{c} = {name}.{c} + excluded.{c}" for c in counts),
            [value for row in rows for value in row])


@transaction.atomic
def table_abort(*, actor: Player | None, table_id, reason: str = "",
                moderated: bool = False) -> Table:
    """The creator of a table that has not started ends it without a result; so does the
    system (``actor`` None) and a moderator, through ``games.moderation.table_abort`` (which
    checks the permission and writes the audit log, ``moderated``)."""
    table = _lock(table_id, viewer=actor)
    if actor is not None and not moderated and (table.creator_id != actor.pk
                                                or table.status != TableStatus.OPEN):
        raise GameError("not_creator", "only the table's creator, before the start, or a "
                                       "moderator may abort it")
    if not table.is_active:
        raise GameError("game_over", "this table has ended already")
    table.status = TableStatus.ABORTED
    table.abort_reason = (reason or "")[:500]
    table.finished_at = timezone.now()
    journal.record(table, kind=LogKind.ABORT, player=actor, events=[
        {"type": "table_aborted", "reason": table.abort_reason, "visible_to": "all"}],
        lobby=True, fields=("status", "abort_reason", "finished_at"))
    return table


def sweep_deadlines(*, now=None, ahead: float | None = None) -> int:
    """Queue the timeout of every turn clock that runs out before the next sweep (``ahead``
    seconds, ``STAPEL_DEADLINE_SWEEP_SECONDS`` by default), each with the countdown to its
    deadline, and at once those already past (a sweep that was late, a worker that died).

    This is what runs turn clocks: a move only writes its table's ``deadline``. The look-up
    goes by the status index: ``deadline`` is in no index, so writing it each move keeps the
    table row's update a HOT one. A timeout queued twice (a clock found again by the next
    sweep before its task ran) does nothing the second time: the task checks the version."""
    now = now or timezone.now()
    if ahead is None:
        ahead = settings.STAPEL_DEADLINE_SWEEP_SECONDS
    due = list(Table.objects.filter(status=TableStatus.PLAYING,
                                    deadline__lt=now + timedelta(seconds=ahead))
               .values_list("pk", "version", "deadline"))
    for table_id, version, deadline in due:
        scheduling.enqueue("turn_timeout", table_id, version,
                           countdown=max(0.0, (deadline - now).total_seconds()))
    return len(due)


def sweep_stalled(*, older_than: float = 15.0) -> int:
    """Queue again what a playing table waits for when nothing happened for a while: a bot's
    turn or the end of a round whose task was lost with a killed worker. Tasks check the
    version, so a task that was not lost after all does nothing the second time."""
    cutoff = timezone.now() - timedelta(seconds=older_than)
    count = 0
    for table in Table.objects.filter(status=TableStatus.PLAYING, changed_at__lt=cutoff):
        engine = GAMES[table.game]
        if engine.is_round_over(table.state):
            scheduling.enqueue("round_end", table.pk, table.version)
            count += 1
            continue
        seats = journal.seats_of(table)
        if any(seats[a].plays_as_bot for a in engine.actors(table.state) if a in seats):
            scheduling.enqueue("bot_turn", table.pk, table.version)
            count += 1
    return count
