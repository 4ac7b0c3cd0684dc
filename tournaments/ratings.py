"""Ratings per player and game: OpenSkill's Plackett-Luce model over every rated match.

Which finished matches are rated (aborted ones never are):

- a **tournament table** when its tournament is rated. Every registered player at it is
  updated, bots registered as players included (house bots get a rating like anyone, which
  makes them a yardstick). Bots that only fill empty seats take part at their current rating
  but are not updated.
- a **casual table** only when every seat is a person (no bot seats at all), so nobody farms
  rating from bots. A seat a bot finished for a person (missed turns, left) still counts as
  that person's result.

A match moves ratings at most once (``RatedMatch`` per table), so the task may run twice.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone
from openskill.models import PlackettLuce

from games import selectors as game_selectors
from games.errors import GameError
from games.models import Seat, Table

from .models import RatedMatch, Rating, RatingChange, TournamentTable

MODEL = PlackettLuce()


def _ordinal(mu: float, sigma: float) -> float:
    return mu - 3 * sigma


def rated_players(table) -> set[int] | None:
    """The players whose ratings this finished table moves, or None when it is not rated."""
    if table.status != "finished" or not table.result:
        return None
    seats = list(table.seats.all())
    if len(seats) < 2:
        return None
    link = TournamentTable.objects.filter(table_id=table.pk).select_related(
        "round__tournament").first()
    if link is not None:
        if not link.round.tournament.rated:
            return None
        return {s.player_id for s in seats
                if s.position < len(link.players) and s.player_id == link.players[s.position]}
    if any(s.is_bot for s in seats):
        return None
    return {s.player_id for s in seats}


def ratings_record_table(*, table_id: int) -> bool:
    """Update the ratings of a finished match's players from its placings."""
    try:
        table = game_selectors.table_get(table_id)
    except GameError:  # gone
        return False
    players = rated_players(table)
    if not players:
        return False
    seats = sorted(table.seats.all(), key=lambda s: s.position)
    placings = table.result["placings"]
    with transaction.atomic():
        try:
            with transaction.atomic():
                match = RatedMatch.objects.create(table_id=table.pk, game=table.game)
        except IntegrityError:
            return False  # rated already
        ids = sorted({s.player_id for s in seats})
        Rating.objects.bulk_create(
            [Rating(player_id=p, game=table.game, mu=MODEL.mu, sigma=MODEL.sigma,
                    ordinal=_ordinal(MODEL.mu, MODEL.sigma)) for p in ids],
            ignore_conflicts=True)
        # Locked in one order, so two matches of the same players cannot deadlock.
        current = {r.player_id: r for r in Rating.objects.select_for_update()
                   .filter(game=table.game, player_id__in=ids).order_by("player_id")}
        teams = [[MODEL.rating(mu=current[s.player_id].mu, sigma=current[s.player_id].sigma)]
                 for s in seats]
        new = MODEL.rate(teams, ranks=[placings[s.position] for s in seats])
        for seat, [after] in zip(seats, new, strict=True):
            if seat.player_id not in players:
                continue
            rating = current[seat.player_id]
            RatingChange.objects.create(
                match=match, player_id=seat.player_id, game=table.game,
                placing=placings[seat.position], mu_before=rating.mu,
                sigma_before=rating.sigma, mu_after=after.mu, sigma_after=after.sigma,
                ordinal_after=_ordinal(after.mu, after.sigma))
            rating.mu, rating.sigma = after.mu, after.sigma
            rating.ordinal = _ordinal(after.mu, after.sigma)
            rating.matches += 1
            rating.save(update_fields=["mu", "sigma", "ordinal", "matches", "updated_at"])
    return True


def ratings_sweep(*, now=None, window=timedelta(days=1), grace=timedelta(seconds=30),
                  limit: int = 100) -> int:
    """Rate the finished matches whose rating task was lost (a killed worker): those of the
    last ``window`` that should be rated and are not, once ``grace`` has passed."""
    now = now or timezone.now()
    bot_seat = Seat.objects.filter(table=OuterRef("pk"), is_bot=True)
    rated_link = TournamentTable.objects.filter(table=OuterRef("pk"),
                                                round__tournament__rated=True)
    due = (Table.objects.filter(status="finished", finished_at__gte=now - window,
                                finished_at__lt=now - grace, rated_match__isnull=True)
           .filter(Q(Exists(rated_link)) | ~Exists(bot_seat))
           .order_by("finished_at").values_list("pk", flat=True)[:limit])
    return sum(ratings_record_table(table_id=table_id) for table_id in list(due))
