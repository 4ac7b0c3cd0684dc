"""Reads of tables for the API: nothing here writes."""

from __future__ import annotations

from django.db.models import Prefetch

from .errors import GameError
from .models import Seat, Table, TableLogEntry, TableStatus, Visibility

MAX_REPLAY = 500


def table_get(table_id) -> Table:
    try:
        return (Table.objects.select_related("creator")
                .prefetch_related(Prefetch("seats", Seat.objects.select_related("player")))
                .get(pk=int(table_id)))
    except (Table.DoesNotExist, ValueError, TypeError):
        raise GameError("not_found", "no such table", field="tableId") from None


def viewer_seat(table: Table, player) -> int | None:
    if player is None:
        return None
    for seat in table.seats.all():
        if seat.player_id == player.pk and not seat.is_bot:
            return seat.position
    return None


def may_watch(table: Table, player, seat: int | None) -> bool:
    """Seated players always; others when spectators are allowed and the table is public (or
    they are staff)."""
    if seat is not None:
        return True
    if player is not None and player.is_staff:
        return True
    return table.allow_spectators and table.visibility == Visibility.PUBLIC


def log_after(table_id: int, after_seq: int, limit: int = MAX_REPLAY) -> list[TableLogEntry]:
    return list(TableLogEntry.objects.filter(table_id=table_id, seq__gt=after_seq)
                .order_by("seq")[:limit])


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
    qs = (Table.objects.filter(seats__player=player, seats__is_bot=False)
          .prefetch_related(Prefetch("seats", Seat.objects.select_related("player")))
          .select_related("creator").order_by("-id"))
    if active_only:
        qs = qs.filter(status__in=[TableStatus.OPEN, TableStatus.PLAYING])
    return list(qs[:100])
