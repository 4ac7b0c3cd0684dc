"""Tables and live play over GraphQL: lobby, seats, moves and per-seat subscriptions.

Resolvers only translate: they call ``games.services`` (writes) or ``games.selectors``
(reads) in a worker thread and turn ``DomainError`` into typed payload errors.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from datetime import datetime

import strawberry
from channels.db import database_sync_to_async
from strawberry.scalars import JSON
from strawberry.types import Info

from accounts.api.types import PlayerType
from config import ratelimit
from config.api import UserError, payload, require_viewer, viewer
from config.reads import api_read
from games import moderation, realtime, selectors, services
from games.engine import GAMES
from games.errors import GameError
from games.models import Table

from . import live
from .actions import ActionInput, camel_keys, to_engine
from .types import (
    GameInfo,
    GameView,
    RoundResultType,
    SeatType,
    TableStatusEnum,
    TableUpdate,
    VisibilityEnum,
    game_view,
)


@strawberry.type(name="Table")
class TableType:
    id: strawberry.ID = strawberry.field(description=(
        "Opaque and random (not a counter): use it as it is, in every `tableId` and in links."))
    game: str
    status: TableStatusEnum
    visibility: VisibilityEnum
    seat_count: int
    options: JSON
    version: int
    last_seq: int
    round_number: int
    deadline: datetime | None
    turn_clock_seconds: int
    allow_spectators: bool
    spectators_may_chat: bool
    spectator_delay_seconds: int
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    result: JSON | None
    creator: PlayerType
    seats: list[SeatType]
    my_seat: int | None = strawberry.field(description="Your seat here, if you sit here.")
    invite_code: str | None = strawberry.field(
        description="Only for the creator and seated players.")
    _table: strawberry.Private[Table]
    _player: strawberry.Private[object]

    @classmethod
    def of(cls, table: Table, player) -> TableType:
        """``table`` as ``player`` sees it: callers pass ``selectors.table_as_seen_by`` (the
        table as of the spectator delay's cut for a delayed reader)."""
        seat = selectors.viewer_seat(table, player)
        insider = seat is not None or (player is not None and player.pk == table.creator_id)
        return cls(
            id=strawberry.ID(table.public_id), game=table.game,
            status=TableStatusEnum(table.status), visibility=VisibilityEnum(table.visibility),
            seat_count=table.seat_count, options=table.options, version=table.version,
            last_seq=table.last_seq, round_number=table.round_number, deadline=table.deadline,
            turn_clock_seconds=table.turn_clock_seconds, allow_spectators=table.allow_spectators,
            spectators_may_chat=table.spectators_may_chat,
            spectator_delay_seconds=table.spectator_delay_seconds,
            created_at=table.created_at, started_at=table.started_at,
            finished_at=table.finished_at, result=camel_keys(table.result),
            creator=PlayerType.of(table.creator),
            seats=[SeatType(position=s.position, player=PlayerType.of(s.player), is_bot=s.is_bot,
                            bot_level=s.bot_level or None, taken_over_by_bot=s.taken_over_by_bot)
                   for s in table.seats.all()],
            my_seat=seat, invite_code=table.invite_code if insider else None,
            _table=table, _player=player)

    @strawberry.field(description="Your own view (a spectator's if you do not sit here).")
    def view(self) -> GameView | None:
        if not selectors.may_watch(self._table, self._player, self.my_seat):
            return None
        return game_view(selectors.view_for(self._table, self.my_seat))

    @strawberry.field(description="The numbered changes after `afterSeq`, as you may see them.")
    async def events(self, after_seq: int = 0, limit: int = 100) -> list[TableUpdate]:
        if not selectors.may_watch(self._table, self._player, self.my_seat):
            return []
        limit = max(1, min(limit, selectors.MAX_REPLAY))
        as_of = getattr(self._table, "as_of", None)
        entries = await api_read(selectors.log_after, self._table.pk, after_seq, limit,
                                 as_of.seq if as_of is not None else None)
        return [live.update_of(e, self.id, self.my_seat, self._table.status) for e in entries]

    @strawberry.field
    async def round_results(self) -> list[RoundResultType]:
        as_of = getattr(self._table, "as_of", None)
        results = self._table.round_results.all()
        if as_of is not None:  # a delayed reader: the rounds ended as of the cut
            results = results.filter(round_number__lte=as_of.rounds_done)
        rows = await database_sync_to_async(
            lambda: list(results.values("round_number", "placings", "scores")))()
        return [RoundResultType(**row) for row in rows]


@strawberry.type
class TablePage:
    items: list[TableType]
    next_cursor: str | None


@strawberry.type
class TablePayload:
    table: TableType | None = None
    errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class ActPayload:
    version: int | None = strawberry.field(default=None,
                                           description="The table's version after your move.")
    seq: int | None = None
    replayed: bool = strawberry.field(
        default=False, description="True when this idempotency key was applied before.")
    errors: list[UserError] = strawberry.field(default_factory=list)
    _table_id: strawberry.Private[int | None] = None
    _player: strawberry.Private[object] = None

    @strawberry.field(description="The table after your move (one more read; skip it for speed).")
    async def table(self) -> TableType | None:
        if self._table_id is None:
            return None
        table = await database_sync_to_async(
            lambda: selectors.table_as_seen_by(selectors.table_get(self._table_id),
                                               self._player))()
        return TableType.of(table, self._player)


@strawberry.input
class CreateTableInput:
    game: str
    options: JSON | None = None
    seat_count: int | None = None
    visibility: VisibilityEnum = VisibilityEnum.PUBLIC
    turn_clock_seconds: int | None = None
    allow_spectators: bool = True
    spectators_may_chat: bool = False
    spectator_delay_seconds: int = strawberry.field(default=0, description=(
        "Spectators receive this table's events this many seconds late (0 to 3600), so a "
        "watcher cannot relay the match to a player; seated players are never delayed."))
    join: bool = strawberry.field(default=True, description="Take seat 0 yourself.")


@strawberry.type
class LobbyUpdate:
    table_id: strawberry.ID
    game: str
    status: TableStatusEnum


@payload
async def _table_payload(info: Info, fn, **kwargs) -> TablePayload:
    player = require_viewer(info)

    def run():
        table = fn(player=player, **kwargs)
        return TableType.of(selectors.table_as_seen_by(selectors.table_get(table.pk), player),
                            player)

    return TablePayload(table=await database_sync_to_async(run)())


_id = live._id


@strawberry.type
class Query:
    @strawberry.field(description="Every game: player counts, house rules and bot levels.")
    def games(self) -> list[GameInfo]:
        return [GameInfo.of(game_id) for game_id in GAMES]

    @strawberry.field(description="The lobby: public tables, newest first (open by default).")
    async def tables(self, game: str | None = None, status: TableStatusEnum | None = None,
                     first: int = 20, after: str | None = None) -> TablePage:
        first = max(1, min(first, 100))
        try:
            # The cursor is the last table's public id: no integer key leaves the server.
            after_id = (await api_read(selectors.table_pk_from_public, after, "after")
                        if after else None)
        except GameError:
            raise GameError("invalid_cursor", "unknown cursor", field="after") from None
        rows = await api_read(selectors.lobby, game=game,
                              status=status.value if status else None, first=first + 1,
                              after=after_id)
        seen = rows[:first]
        if any(t.spectator_delay_seconds for t in seen):
            seen = await api_read(lambda ts=seen: [selectors.table_as_seen_by(t, None) for t in ts])
        # A table whose change of status is still held back (spectator delay) is not listed
        # under its new status yet.
        items = [TableType.of(t, None) for t in seen
                 if t.status == (status.value if status else "open")]
        return TablePage(items=items, next_cursor=(rows[first - 1].public_id
                                                   if len(rows) > first else None))

    @strawberry.field(description="One table, with your view of its match.")
    async def table(self, info: Info, id: strawberry.ID) -> TableType | None:
        try:
            table = await api_read(selectors.table_for_reader, _id(id), viewer(info))
        except GameError:
            return None  # none, or private and not for this viewer: the same answer
        return TableType.of(table, viewer(info))

    @strawberry.field(description="Tables you sit at that are open or playing.")
    async def my_tables(self, info: Info) -> list[TableType]:
        player = require_viewer(info)
        rows = await database_sync_to_async(selectors.tables_of)(player)
        return [TableType.of(t, player) for t in rows]


@strawberry.type
class Mutation:
    @strawberry.mutation
    async def create_table(self, info: Info, input: CreateTableInput) -> TablePayload:
        def create(player):
            ratelimit.hit("create_table", player.pk)
            return services.table_create(
                creator=player, game=input.game, options=input.options,
                seat_count=input.seat_count, visibility=input.visibility.value,
                turn_clock_seconds=input.turn_clock_seconds,
                allow_spectators=input.allow_spectators,
                spectators_may_chat=input.spectators_may_chat, join=input.join,
                spectator_delay_seconds=input.spectator_delay_seconds)

        return await _table_payload(info, create)

    @strawberry.mutation(description="Sit down by table id or invite code (private tables "
                                     "need the code); `seat` picks a free seat.")
    async def join_table(self, info: Info, table_id: strawberry.ID | None = None,
                         invite_code: str | None = None, seat: int | None = None) -> TablePayload:
        return await _table_payload(
            info, lambda player: ratelimit.failures_counted(
                "invite_guess", player.pk, codes={"wrong_invite_code"},
                call=lambda: services.table_join(
                    player=player, table_id=_id(table_id) if table_id is not None else None,
                    invite_code=invite_code, position=seat)))

    @strawberry.mutation(description="Before the start your seat is freed; during a match a "
                                     "bot plays it to the end.")
    async def leave_table(self, info: Info, table_id: strawberry.ID) -> TablePayload:
        return await _table_payload(
            info, lambda player: services.table_leave(player=player, table_id=_id(table_id)))

    @strawberry.mutation(description="The creator deals the first round.")
    async def start_table(self, info: Info, table_id: strawberry.ID) -> TablePayload:
        return await _table_payload(
            info, lambda player: services.table_start(player=player, table_id=_id(table_id)))

    @strawberry.mutation(description=(
        "The creator ends a table that has not started, without a result. Anything else is a "
        "moderator's action: it needs the abort permission and a `reason`, and is audited."))
    async def abort_table(self, info: Info, table_id: strawberry.ID,
                          reason: str = "") -> TablePayload:
        return await _table_payload(
            info, lambda player: moderation.table_abort_by(actor=player, table_id=_id(table_id),
                                                           reason=reason))

    @strawberry.mutation(description="The creator seats a bot before the start. `level` is "
                                     "one of the game's `botLevels` (none: its default).")
    async def add_bot(self, info: Info, table_id: strawberry.ID, level: str | None = None,
                      seat: int | None = None) -> TablePayload:
        return await _table_payload(
            info, lambda player: services.bot_add(player=player, table_id=_id(table_id),
                                                  level=level, position=seat))

    @strawberry.mutation
    async def remove_bot(self, info: Info, table_id: strawberry.ID, seat: int) -> TablePayload:
        return await _table_payload(
            info, lambda player: services.bot_remove(player=player, table_id=_id(table_id),
                                                     position=seat))

    @strawberry.mutation(description=(
        "Make a move. `expectedVersion` is the table version you saw (a move made against an "
        "older one is refused as `stale_version`); the same `idempotencyKey` applies once and "
        "answers the same."))
    @payload
    async def act(self, info: Info, table_id: strawberry.ID, action: ActionInput,
                  expected_version: int, idempotency_key: str | None = None) -> ActPayload:
        player = require_viewer(info)
        return await live.act_payload(player=player, table_id=table_id, action=to_engine(action),
                                      expected_version=expected_version,
                                      idempotency_key=idempotency_key)


@strawberry.type
class Subscription:
    @strawberry.subscription(description=(
        "Every change at a table as you may see it, numbered by `seq`. First the changes "
        "after `afterSeq` are replayed from the log (the last one with your current view), "
        "then live ones follow. A seat's own cards reach only that seat. An `afterSeq` "
        "beyond the table's last seq is refused with `bad_after_seq` (its `lastSeq` in the "
        "error's extensions)."))
    async def table_events(self, info: Info, table_id: strawberry.ID,
                           after_seq: int = 0) -> AsyncGenerator[TableUpdate, None]:
        player = require_viewer(info)
        async for update in live.table_updates(table_id, player, after_seq):
            yield update

    @strawberry.subscription(description="Public tables opening, filling, starting, ending.")
    async def lobby_events(self, info: Info,
                           game: str | None = None) -> AsyncGenerator[LobbyUpdate, None]:
        player = require_viewer(info)
        ws = info.context["ws"]

        def due(message):
            # A table with a spectator delay is news to the lobby that much later (staff:
            # at once), as everything else of it (games/selectors.py).
            if "at" not in message or player.is_staff:
                return None
            return message["at"] + message["delay"]

        async with ws.listen_to_channel(realtime.LOBBY_TYPE,
                                        groups=[realtime.LOBBY_GROUP]) as messages:
            async for message in live.held_until_due(messages, due):
                # Without a public id: sent by a node of an older release (no key leaves).
                if (game and message.get("game") != game) or not message.get("public_id"):
                    continue
                yield LobbyUpdate(table_id=strawberry.ID(message["public_id"]),
                                  game=message["game"],
                                  status=TableStatusEnum(message["status"]))

