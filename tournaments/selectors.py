"""Reads of tournaments and ratings for the API: nothing here writes."""

from __future__ import annotations

from django.db.models import Count, F, Prefetch, Q

from .errors import TournamentError
from .models import (
    Rating,
    RatingChange,
    RegistrationStatus,
    Standing,
    Tournament,
    TournamentRound,
    TournamentTable,
)

ORGANISER_PERMISSION = "tournaments.add_tournament"


def is_organiser(player) -> bool:
    return bool(player and player.is_active and (player.is_superuser
                                                  or player.has_perm(ORGANISER_PERMISSION)))


def tournament_get(tournament_id) -> Tournament:
    try:
        return (Tournament.objects.select_related("organiser")
                .annotate(registered=Count("registrations", filter=Q(
                    registrations__status=RegistrationStatus.REGISTERED)))
                .get(pk=int(tournament_id)))
    except (Tournament.DoesNotExist, ValueError, TypeError):
        raise TournamentError("not_found", "no such tournament", field="tournamentId") from None


def tournament_list(*, status: str | None, game: str | None, first: int = 50) -> list[Tournament]:
    qs = (Tournament.objects.select_related("organiser")
          .annotate(registered=Count("registrations", filter=Q(
              registrations__status=RegistrationStatus.REGISTERED)))
          .order_by("-id"))
    if status:
        qs = qs.filter(status=status)
    if game:
        qs = qs.filter(game=game)
    return list(qs[:first])


def rounds_of(tournament_id: int) -> list[TournamentRound]:
    tables = TournamentTable.objects.select_related("table").order_by("number")
    return list(TournamentRound.objects.filter(tournament_id=tournament_id)
                .prefetch_related(Prefetch("tables", tables)).order_by("number"))


def standings_of(tournament_id: int) -> list[Standing]:
    return list(Standing.objects.filter(tournament_id=tournament_id)
                .select_related("player").order_by("rank"))


def registrations_of(tournament_id: int) -> list:
    from .models import Registration

    return list(Registration.objects.filter(tournament_id=tournament_id)
                .select_related("player").order_by("created_at", "id"))


def leaderboard(*, game: str, first: int = 50) -> list[Rating]:
    return list(Rating.objects.filter(game=game, matches__gt=0).select_related("player")
                .order_by("-ordinal", "player_id")[:first])


def ratings_of(player_id) -> list[Rating]:
    return list(Rating.objects.filter(player_id=player_id, matches__gt=0).order_by("game"))


def rating_history(player_id, game: str, first: int = 50) -> list[RatingChange]:
    return list(RatingChange.objects.filter(player_id=player_id, game=game)
                .select_related("match").annotate(table_public_id=F("match__table__public_id"))
                .order_by("-id")[:first])
