"""Tournaments, leaderboards and ratings over GraphQL.

Resolvers only translate: they call ``tournaments.services`` (writes) or
``tournaments.selectors`` (reads) in a worker thread and turn ``DomainError`` into typed
payload errors.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from datetime import datetime

import strawberry
from channels.db import database_sync_to_async
from strawberry.scalars import JSON
from strawberry.types import Info

from accounts.api.types import PlayerType
from accounts.models import Player
from config.api import UserError, payload, require_viewer, viewer
from tournaments import realtime, selectors, services
from tournaments.errors import TournamentError

from .types import (
    LeaderboardEntry,
    PlayerProfileType,
    RatingType,
    TournamentEvent,
    TournamentFormat,
    TournamentStatus,
    TournamentType,
)


def _id(value) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise TournamentError("not_found", "no such tournament", field="tournamentId") from None


@strawberry.input
class CreateTournamentInput:
    name: str
    game: str
    format: TournamentFormat
    options: JSON | None = None
    table_size: int | None = None
    rounds: int | None = strawberry.field(default=None, description="Swiss / round robin.")
    advance: int = strawberry.field(default=0, description=(
        "Single elimination: how many of each table go on (0: half the table)."))
    duration_minutes: int | None = strawberry.field(default=None, description="Arena.")
    max_players: int | None = None
    registration_opens_at: datetime | None = None
    registration_closes_at: datetime | None = None
    starts_at: datetime | None = strawberry.field(default=None, description=(
        "Started by the clock then; without it the organiser starts it."))
    rated: bool = True
    allow_bots: bool = strawberry.field(default=False,
                                        description="Bots fill the seats of byes.")
    bot_level: str = "heuristic"
    turn_clock_seconds: int = strawberry.field(default=30, description=(
        "Every table's turn clock: a no-show's turns are played by a bot."))
    spectator_delay_seconds: int = strawberry.field(default=0, description=(
        "Every table's spectators get its events this many seconds late (0 to 3600)."))


@strawberry.type
class TournamentPayload:
    tournament: TournamentType | None = None
    errors: list[UserError] = strawberry.field(default_factory=list)


@payload
async def _payload(info: Info, fn) -> TournamentPayload:
    player = require_viewer(info)

    def run():
        t = fn(player)
        return TournamentType.of(selectors.tournament_get(t.pk), player)

    return TournamentPayload(tournament=await database_sync_to_async(run)())


@strawberry.type
class Query:
    @strawberry.field(description="One tournament: its rounds, tables and standings.")
    async def tournament(self, info: Info, id: strawberry.ID) -> TournamentType | None:
        try:
            t = await database_sync_to_async(selectors.tournament_get)(id)
        except TournamentError:
            return None
        return TournamentType.of(t, viewer(info))

    @strawberry.field(description="Tournaments, newest first.")
    async def tournaments(self, info: Info, status: TournamentStatus | None = None,
                          game: str | None = None, first: int = 50) -> list[TournamentType]:
        rows = await database_sync_to_async(selectors.tournament_list)(
            status=status.value if status else None, game=game, first=max(1, min(first, 100)))
        player = viewer(info)
        return [TournamentType.of(t, player) for t in rows]

    @strawberry.field(description="The best rated players of a game (by ordinal).")
    async def leaderboard(self, game: str, first: int = 50) -> list[LeaderboardEntry]:
        rows = await database_sync_to_async(selectors.leaderboard)(
            game=game, first=max(1, min(first, 200)))
        return [LeaderboardEntry(rank=i, player=PlayerType.of(r.player), rating=RatingType.of(r))
                for i, r in enumerate(rows, start=1)]

    @strawberry.field(description="A player as everyone may see them, with their ratings.")
    async def player(self, id: strawberry.ID) -> PlayerProfileType | None:
        try:
            pk = int(id)
        except ValueError:
            return None
        p = await database_sync_to_async(Player.objects.filter(pk=pk, is_active=True).first)()
        if p is None:
            return None
        return PlayerProfileType(id=strawberry.ID(str(p.pk)), display_name=p.display_name,
                                 is_guest=p.is_guest, is_bot=p.is_bot)


@strawberry.type
class Mutation:
    @strawberry.mutation(description="Organisers only (permission tournaments.add_tournament).")
    async def create_tournament(self, info: Info,
                                input: CreateTournamentInput) -> TournamentPayload:
        return await _payload(info, lambda player: services.tournament_create(
            organiser=player, name=input.name, game=input.game, format=input.format.value,
            options=input.options, table_size=input.table_size, rounds=input.rounds,
            advance=input.advance, duration_minutes=input.duration_minutes,
            max_players=input.max_players, registration_opens_at=input.registration_opens_at,
            registration_closes_at=input.registration_closes_at, starts_at=input.starts_at,
            rated=input.rated, allow_bots=input.allow_bots, bot_level=input.bot_level,
            turn_clock_seconds=input.turn_clock_seconds,
            spectator_delay_seconds=input.spectator_delay_seconds))

    @strawberry.mutation
    async def register_for_tournament(self, info: Info,
                                      tournament_id: strawberry.ID) -> TournamentPayload:
        return await _payload(info, lambda player: services.tournament_register(
            player=player, tournament_id=_id(tournament_id)).tournament)

    @strawberry.mutation(description="Before the start the place is freed; later you are not "
                                     "paired again and a bot finishes your running table.")
    async def unregister_from_tournament(self, info: Info,
                                         tournament_id: strawberry.ID) -> TournamentPayload:
        return await _payload(info, lambda player: services.tournament_unregister(
            player=player, tournament_id=_id(tournament_id)).tournament)

    @strawberry.mutation(description="The organiser starts the first round now.")
    async def start_tournament(self, info: Info,
                               tournament_id: strawberry.ID) -> TournamentPayload:
        return await _payload(info, lambda player: services.tournament_start(
            actor=player, tournament_id=_id(tournament_id)))


def _event(message: dict) -> TournamentEvent:
    table_id = message.get("table_id")
    return TournamentEvent(tournament_id=strawberry.ID(str(message["tournament"])),
                           kind=message["kind"], status=TournamentStatus(message["status"]),
                           round=message.get("round") or 0,
                           table_id=strawberry.ID(str(table_id)) if table_id else None)


@strawberry.type
class Subscription:
    @strawberry.subscription(description=(
        "A tournament as it runs: first a `subscribed` event with its current status, then "
        "round started, table finished, standings changed, finished. Events say what changed; "
        "query `tournament` for the details."))
    async def tournament_events(self, info: Info,
                                tournament_id: strawberry.ID) -> AsyncGenerator[TournamentEvent,
                                                                                None]:
        require_viewer(info)
        tid = _id(tournament_id)
        ws = info.context["ws"]
        async with ws.listen_to_channel(realtime.MESSAGE_TYPE,
                                        groups=[realtime.group_name(tid)]) as messages:
            # Subscribed first, read second: nothing falls between the two.
            t = await database_sync_to_async(selectors.tournament_get)(tid)
            yield _event({"tournament": tid, "kind": "subscribed", "status": t.status,
                          "round": t.current_round})
            async for message in messages:
                # One consumer serves every subscription of a socket: keep only ours.
                if message.get("tournament") != tid:
                    continue
                yield _event(message)
