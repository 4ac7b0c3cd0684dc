"""The organiser's manual control over GraphQL: pause, resume, re-pair the pending round, move
a player, award a bye. Each takes a `reason` (written to the audit log with who did it) and
answers a `TournamentPayload` with typed errors (see ``tournaments.services``)."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from tournaments import services

from .schema import TournamentPayload, _id, _payload

CODES = ("Errors (codes): `not_found`, `not_organiser`, `reason_required`, and per action "
         "`already_paused`, `not_paused`, `tournament_over`, `no_pending_round`, "
         "`not_in_round`, `no_such_table`, `same_table`, `table_full`, `not_at_table`, "
         "`table_too_small`, `already_bye`.")


@strawberry.type
class Mutation:
    @strawberry.mutation(description="Pause: tables that play finish; the next round is "
                                     "paired and waits (pending) until you resume. " + CODES)
    async def pause_tournament(self, info: Info, tournament_id: strawberry.ID,
                               reason: str) -> TournamentPayload:
        return await _payload(info, lambda player: services.tournament_pause(
            actor=player, tournament_id=_id(tournament_id), reason=reason))

    @strawberry.mutation(description="Resume: the pending round starts (an arena seats "
                                     "whoever waits). " + CODES)
    async def resume_tournament(self, info: Info, tournament_id: strawberry.ID,
                                reason: str) -> TournamentPayload:
        return await _payload(info, lambda player: services.tournament_resume(
            actor=player, tournament_id=_id(tournament_id), reason=reason))

    @strawberry.mutation(description="Pair the pending round again from the field as it is "
                                     "now. " + CODES)
    async def repair_tournament_round(self, info: Info, tournament_id: strawberry.ID,
                                      reason: str) -> TournamentPayload:
        return await _payload(info, lambda player: services.round_repair(
            actor=player, tournament_id=_id(tournament_id), reason=reason))

    @strawberry.mutation(description=(
        "Move a player of the pending round to table `tableNumber` (from 1): to a free seat, "
        "or in exchange with `swapWithPlayerId` who sits there. " + CODES))
    async def move_tournament_player(self, info: Info, tournament_id: strawberry.ID,
                                     player_id: strawberry.ID, table_number: int, reason: str,
                                     swap_with_player_id: strawberry.ID | None = None
                                     ) -> TournamentPayload:
        return await _payload(info, lambda player: services.round_player_move(
            actor=player, tournament_id=_id(tournament_id), player_id=player_id,
            table_number=table_number, swap_with_id=swap_with_player_id, reason=reason))

    @strawberry.mutation(description="Give a player a bye in the pending round (a bye's "
                                     "points). " + CODES)
    async def award_tournament_bye(self, info: Info, tournament_id: strawberry.ID,
                                   player_id: strawberry.ID, reason: str) -> TournamentPayload:
        return await _payload(info, lambda player: services.round_bye_award(
            actor=player, tournament_id=_id(tournament_id), player_id=player_id,
            reason=reason))
