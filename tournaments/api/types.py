"""GraphQL types of tournaments, standings and ratings."""

from __future__ import annotations

from datetime import datetime
from enum import Enum

import strawberry
from channels.db import database_sync_to_async
from strawberry.scalars import JSON

from accounts.api.types import PlayerType
from games import selectors as game_selectors
from games.api.schema import TableType
from games.api.types import PlayerStatsType
from tournaments import selectors
from tournaments.models import Rating, Standing, Tournament, TournamentRound, TournamentTable


@strawberry.enum
class TournamentFormat(Enum):
    ROUND_ROBIN = "round_robin"
    SWISS = "swiss"
    SINGLE_ELIMINATION = "single_elimination"
    ARENA = "arena"


@strawberry.enum
class TournamentStatus(Enum):
    SCHEDULED = "scheduled"
    REGISTRATION = "registration"
    CLOSED = "closed"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"


@strawberry.type(name="TournamentTable", description="One table of a round.")
class TournamentTableType:
    number: int
    table_id: strawberry.ID
    status: str
    players: list[strawberry.ID] = strawberry.field(
        description="Registered players in seat order (filler bots sit after them).")
    placings: JSON | None = strawberry.field(
        description="Player id -> placing at this table, once it finished.")
    _player: strawberry.Private[object]
    _table_pk: strawberry.Private[int]

    @classmethod
    def of(cls, link: TournamentTable, player, seen: dict[int, str] | None = None
           ) -> TournamentTableType:
        """``seen``: table key -> status as the player may see it (spectator delay); a table
        whose end is still held back shows no placings."""
        status = (seen or {}).get(link.table_id, link.table.status)
        ended = status in ("finished", "aborted")
        return cls(number=link.number, table_id=strawberry.ID(link.table.public_id),
                   status=status, players=[strawberry.ID(str(p)) for p in link.players],
                   placings=link.placings if ended else None, _player=player,
                   _table_pk=link.table_id)

    @strawberry.field(description="The game table itself: seats, your view, its events.")
    async def table(self) -> TableType | None:
        table = await database_sync_to_async(
            lambda: game_selectors.table_as_seen_by(game_selectors.table_get(self._table_pk),
                                                    self._player))()
        return TableType.of(table, self._player)


@strawberry.type(name="TournamentRound")
class TournamentRoundType:
    number: int
    status: str = strawberry.field(description=(
        "pending (paired while the tournament is paused; see `planned`), playing, finished"))
    byes: list[strawberry.ID]
    started_at: datetime
    finished_at: datetime | None
    tables: list[TournamentTableType]
    planned: list[list[strawberry.ID]] = strawberry.field(description=(
        "A pending round's tables (player ids in seat order), before they are created."))

    @classmethod
    def of(cls, rnd: TournamentRound, player,
           seen: dict[int, str] | None = None) -> TournamentRoundType:
        return cls(number=rnd.number, status=rnd.status,
                   byes=[strawberry.ID(str(p)) for p in rnd.byes], started_at=rnd.started_at,
                   finished_at=rnd.finished_at,
                   tables=[TournamentTableType.of(x, player, seen) for x in rnd.tables.all()],
                   planned=[[strawberry.ID(str(p)) for p in x] for x in rnd.planned or []])


@strawberry.type(name="Standing", description=(
    "Rank by points (placing p at k seats scores k - p; a bye half a table), then Buchholz "
    "(opponents' points), wins, lower placing sum, seed. Elimination ranks by the round "
    "reached first. Disqualified players rank last."))
class StandingType:
    rank: int
    player: PlayerType
    points: int
    buchholz: int
    wins: int
    placing_sum: int
    matches: int
    byes: int
    eliminated_in_round: int | None

    @classmethod
    def of(cls, s: Standing) -> StandingType:
        return cls(rank=s.rank, player=PlayerType.of(s.player), points=s.points,
                   buchholz=s.buchholz, wins=s.wins, placing_sum=s.placing_sum,
                   matches=s.matches, byes=s.byes, eliminated_in_round=s.eliminated_in_round)


@strawberry.type(name="Registration")
class RegistrationType:
    player: PlayerType
    status: str
    reason: str
    created_at: datetime


@strawberry.type(name="Tournament")
class TournamentType:
    id: strawberry.ID
    name: str
    game: str
    format: TournamentFormat
    status: TournamentStatus
    options: JSON
    table_size: int
    planned_rounds: int | None = strawberry.field(
        description="Swiss and round robin: how many rounds (set at the start if left open).")
    advance: int
    duration_minutes: int | None
    max_players: int | None
    registration_opens_at: datetime | None
    registration_closes_at: datetime | None
    starts_at: datetime | None
    ends_at: datetime | None
    rated: bool
    allow_bots: bool
    bot_level: str
    turn_clock_seconds: int
    spectator_delay_seconds: int = strawberry.field(description=(
        "Every table of this tournament delays its spectators' events by this much."))
    paused_at: datetime | None = strawberry.field(description=(
        "Paused: tables that play finish, nothing new starts until the organiser resumes."))
    pause_reason: str
    current_round: int
    registered_count: int
    organiser: PlayerType
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    _player: strawberry.Private[object]

    @classmethod
    def of(cls, t: Tournament, player) -> TournamentType:
        return cls(
            id=strawberry.ID(str(t.pk)), name=t.name, game=t.game,
            format=TournamentFormat(t.format), status=TournamentStatus(t.status),
            options=t.options, table_size=t.table_size, planned_rounds=t.rounds, advance=t.advance,
            duration_minutes=t.duration_minutes, max_players=t.max_players,
            registration_opens_at=t.registration_opens_at,
            registration_closes_at=t.registration_closes_at, starts_at=t.starts_at,
            ends_at=t.ends_at, rated=t.rated, allow_bots=t.allow_bots, bot_level=t.bot_level,
            turn_clock_seconds=t.turn_clock_seconds,
            spectator_delay_seconds=t.spectator_delay_seconds, paused_at=t.paused_at,
            pause_reason=t.pause_reason, current_round=t.current_round,
            registered_count=getattr(t, "registered", 0) or 0,
            organiser=PlayerType.of(t.organiser), created_at=t.created_at,
            started_at=t.started_at, finished_at=t.finished_at, _player=player)

    @strawberry.field
    async def rounds(self) -> list[TournamentRoundType]:
        def read():
            rows = selectors.rounds_of(int(self.id))
            # Tables with a spectator delay: their status as this viewer may see it now.
            seen = {link.table_id: game_selectors.status_as_seen_by(link.table, self._player)
                    for r in rows for link in r.tables.all()
                    if link.table.spectator_delay_seconds}
            return rows, seen

        rows, seen = await database_sync_to_async(read)()
        return [TournamentRoundType.of(r, self._player, seen) for r in rows]

    @strawberry.field
    async def standings(self) -> list[StandingType]:
        rows = await database_sync_to_async(selectors.standings_of)(int(self.id))
        return [StandingType.of(s) for s in rows]

    @strawberry.field
    async def registrations(self) -> list[RegistrationType]:
        rows = await database_sync_to_async(selectors.registrations_of)(int(self.id))
        return [RegistrationType(player=PlayerType.of(r.player), status=r.status,
                                 reason=r.reason, created_at=r.created_at) for r in rows]

    @strawberry.field(description="Whether you are registered (and not withdrawn).")
    async def is_registered(self) -> bool:
        if self._player is None:
            return False
        rows = await database_sync_to_async(selectors.registrations_of)(int(self.id))
        return any(r.player_id == self._player.pk and r.status == "registered" for r in rows)


@strawberry.type(name="RatingChange")
class RatingChangeType:
    table_id: strawberry.ID
    placing: int
    mu_before: float
    mu_after: float
    sigma_after: float
    ordinal_after: float
    created_at: datetime


@strawberry.type(name="Rating", description=(
    "OpenSkill (Plackett-Luce) rating in one game; `ordinal` = mu - 3 sigma ranks "
    "leaderboards."))
class RatingType:
    game: str
    mu: float
    sigma: float
    ordinal: float
    matches: int
    updated_at: datetime
    _player_id: strawberry.Private[int]

    @classmethod
    def of(cls, r: Rating) -> RatingType:
        return cls(game=r.game, mu=r.mu, sigma=r.sigma, ordinal=r.ordinal, matches=r.matches,
                   updated_at=r.updated_at, _player_id=r.player_id)

    @strawberry.field(description="The latest rated matches, newest first.")
    async def history(self, first: int = 20) -> list[RatingChangeType]:
        rows = await database_sync_to_async(selectors.rating_history)(
            self._player_id, self.game, max(1, min(first, 100)))
        return [RatingChangeType(table_id=strawberry.ID(c.table_public_id),
                                 placing=c.placing, mu_before=c.mu_before, mu_after=c.mu_after,
                                 sigma_after=c.sigma_after, ordinal_after=c.ordinal_after,
                                 created_at=c.created_at) for c in rows]


@strawberry.type
class LeaderboardEntry:
    rank: int
    player: PlayerType
    rating: RatingType


@strawberry.type(name="PlayerProfile", description="A player as everyone may see them.")
class PlayerProfileType(PlayerType):
    @strawberry.field
    async def ratings(self) -> list[RatingType]:
        rows = await database_sync_to_async(selectors.ratings_of)(int(self.id))
        return [RatingType.of(r) for r in rows]

    @strawberry.field(description=(
        "Rounds and matches played and won, per game they have finished a round of."))
    async def stats(self) -> list[PlayerStatsType]:
        rows = await database_sync_to_async(game_selectors.stats_of)(int(self.id))
        return [PlayerStatsType.of(r) for r in rows]


@strawberry.type
class TournamentEvent:
    tournament_id: strawberry.ID
    kind: str = strawberry.field(description=(
        "subscribed, registration_opened, registration_closed, registrations_changed, "
        "started, round_started, table_finished, standings_changed, finished, cancelled, "
        "paused, resumed, round_prepared (a pending round was paired or changed)"))
    status: TournamentStatus
    round: int
    table_id: strawberry.ID | None = None
