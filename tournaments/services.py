"""The only code that changes tournaments: creation, registration, the start, each round's
tables, results, standings, the end.

Tables are made and started through ``games.services``; when one finishes, games sends
``table_finished`` and our task calls ``tournament_table_finished``. Every change locks the
tournament row first, so two finished tables of one round cannot both miss (or both start)
the next round. Events go out on commit. Calls are idempotent: a finished table is recorded
once, a round is created once.
"""

from __future__ import annotations

import random
from collections import Counter
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import Player
from games import selectors as game_selectors
from games import services as game_services
from games.errors import GameError

from . import formats, realtime, webhooks
from .errors import TournamentError
from .models import (
    Format,
    Rating,
    Registration,
    RegistrationStatus,
    RoundStatus,
    Standing,
    Tournament,
    TournamentRound,
    TournamentStatus,
    TournamentTable,
)
from .selectors import is_organiser

MAX_ROUNDS = 50
DEFAULT_SWISS_ROUNDS = 3
MAX_DURATION_MINUTES = 24 * 60
OPEN_STATUSES = (TournamentStatus.SCHEDULED, TournamentStatus.REGISTRATION,
                 TournamentStatus.CLOSED)


def _lock(tournament_id) -> Tournament:
    try:
        return Tournament.objects.select_for_update().get(pk=int(tournament_id))
    except (Tournament.DoesNotExist, ValueError, TypeError):
        raise TournamentError("not_found", "no such tournament", field="tournamentId") from None


def _publish(tournament: Tournament, kind: str, **extra) -> None:
    message = {"tournament": tournament.pk, "kind": kind, "status": tournament.status,
               "round": tournament.current_round, **extra}
    game_services.broadcast([(realtime.group_name(tournament.pk),
                              {"type": realtime.MESSAGE_TYPE, **message})])


# --- creating ---------------------------------------------------------------------------------

@transaction.atomic
def tournament_create(*, organiser: Player, name: str, game: str, format: str,
                      options: dict | None = None, table_size: int | None = None,
                      rounds: int | None = None, advance: int = 0,
                      duration_minutes: int | None = None, max_players: int | None = None,
                      registration_opens_at: datetime | None = None,
                      registration_closes_at: datetime | None = None,
                      starts_at: datetime | None = None, rated: bool = True,
                      allow_bots: bool = False, bot_level: str = "heuristic",
                      turn_clock_seconds: int = 30,
                      spectator_delay_seconds: int = 0) -> Tournament:
    if not is_organiser(organiser):
        raise TournamentError("not_organiser", "only organisers may create tournaments")
    name = (name or "").strip()
    if not 1 <= len(name) <= 100:
        raise TournamentError("invalid_name", "a name of 1 to 100 characters", field="name")
    engine = game_services.get_engine(game)  # unknown_game
    try:
        options = game_selectors.game_options(game, options)
    except GameError as exc:
        raise TournamentError(exc.code, exc.message,
                              field=f"options.{exc.field}" if exc.field else "options") from None
    if format not in formats.FORMATS:
        raise TournamentError("invalid_format", f"formats: {', '.join(formats.FORMATS)}",
                              field="format")
    if table_size is None:
        table_size = max(engine.min_players, min(4, engine.max_players))
    if not engine.min_players <= table_size <= engine.max_players:
        raise TournamentError("invalid_table_size", f"{engine.name} tables seat "
                              f"{engine.min_players} to {engine.max_players}", field="tableSize")
    if rounds is not None and not 1 <= rounds <= MAX_ROUNDS:
        raise TournamentError("invalid_rounds", f"1 to {MAX_ROUNDS} rounds", field="rounds")
    if format == Format.SINGLE_ELIMINATION:
        advance = advance or table_size // 2
        if not 1 <= advance < table_size:
            raise TournamentError("invalid_advance", "fewer advance than a table seats",
                                  field="advance")
    if format == Format.ARENA and not (duration_minutes and
                                       1 <= duration_minutes <= MAX_DURATION_MINUTES):
        raise TournamentError("invalid_duration", "an arena runs 1 to 1440 minutes",
                              field="durationMinutes")
    if max_players is not None and max_players < table_size:
        raise TournamentError("invalid_table_size", "max players below one table",
                              field="maxPlayers")
    if not 5 <= turn_clock_seconds <= game_services.MAX_TURN_CLOCK_SECONDS:
        raise TournamentError("invalid_turn_clock", "tournament tables need a turn clock of "
                              f"5 to {game_services.MAX_TURN_CLOCK_SECONDS} seconds",
                              field="turnClockSeconds")
    if not 0 <= spectator_delay_seconds <= game_services.MAX_SPECTATOR_DELAY_SECONDS:
        raise TournamentError("invalid_spectator_delay", "a spectator delay is 0 to "
                              f"{game_services.MAX_SPECTATOR_DELAY_SECONDS} seconds",
                              field="spectatorDelaySeconds")
    if bot_level not in game_selectors.bot_levels(game):
        raise TournamentError("invalid_bot_level", "unknown bot level", field="botLevel")
    times = [t for t in (registration_opens_at, registration_closes_at, starts_at) if t]
    if times != sorted(times):
        raise TournamentError("invalid_schedule", "registration opens, closes, then the start",
                              field="startsAt")
    if organiser.is_banned():
        raise TournamentError("banned", "banned players cannot organise")
    now = timezone.now()
    status = (TournamentStatus.SCHEDULED if registration_opens_at and registration_opens_at > now
              else TournamentStatus.REGISTRATION)
    tournament = Tournament.objects.create(
        name=name, game=game, options=options, format=format, table_size=table_size,
        rounds=rounds, advance=advance, duration_minutes=duration_minutes,
        max_players=max_players, registration_opens_at=registration_opens_at,
        registration_closes_at=registration_closes_at, starts_at=starts_at, rated=rated,
        allow_bots=allow_bots, bot_level=bot_level, turn_clock_seconds=turn_clock_seconds,
        spectator_delay_seconds=spectator_delay_seconds, status=status, organiser=organiser)
    if status == TournamentStatus.REGISTRATION:
        webhooks.emit(tournament, "tournament.registration_opened")
    return tournament


# --- registration -----------------------------------------------------------------------------

def _registration_open(t: Tournament, now: datetime) -> bool:
    if t.status == TournamentStatus.REGISTRATION:
        return not (t.registration_closes_at and t.registration_closes_at <= now)
    # An arena takes players while it runs.
    return (t.format == Format.ARENA and t.status == TournamentStatus.RUNNING
            and t.ends_at is not None and now < t.ends_at)


def _registered_count(t: Tournament) -> int:
    return t.registrations.filter(status=RegistrationStatus.REGISTERED).count()


@transaction.atomic
def tournament_register(*, player: Player, tournament_id) -> Registration:
    t = _lock(tournament_id)
    now = timezone.now()
    if not _registration_open(t, now):
        raise TournamentError("registration_closed", "registration is closed")
    if player.is_banned():
        raise TournamentError("banned", "banned players cannot register")
    reg = Registration.objects.filter(tournament=t, player=player).first()
    if reg is not None:
        if reg.status == RegistrationStatus.REGISTERED:
            raise TournamentError("already_registered", "you are registered already")
        if reg.status == RegistrationStatus.DISQUALIFIED:
            raise TournamentError("disqualified", "you were disqualified from this tournament")
    if t.max_players and _registered_count(t) >= t.max_players:
        raise TournamentError("tournament_full", "every place is taken")
    if reg is None:
        reg = Registration(tournament=t, player=player)
    reg.status = RegistrationStatus.REGISTERED
    reg.reason = ""
    reg.waiting_since = now if t.status == TournamentStatus.RUNNING else None
    reg.save()
    _publish(t, "registrations_changed")
    if t.status == TournamentStatus.RUNNING:
        _standings_refresh(t)
        _arena_pair(t)
    return reg


@transaction.atomic
def tournament_unregister(*, player: Player, tournament_id) -> Registration:
    """Before the start the place is freed; later the player is not paired again (a table
    they sit at goes on with a bot in their seat)."""
    t = _lock(tournament_id)
    reg = Registration.objects.filter(tournament=t, player=player,
                                      status=RegistrationStatus.REGISTERED).first()
    if reg is None:
        raise TournamentError("not_registered", "you are not registered")
    if t.status not in (*OPEN_STATUSES, TournamentStatus.RUNNING):
        raise TournamentError("registration_closed", "this tournament is over")
    if t.status in OPEN_STATUSES:
        reg.delete()
        _publish(t, "registrations_changed")
    else:
        _withdraw(t, reg, RegistrationStatus.WITHDRAWN, "withdrew")
    return reg


def _withdraw(t: Tournament, reg: Registration, status: str, reason: str) -> None:
    reg.status = status
    reg.reason = reason[:300]
    reg.waiting_since = None
    reg.save(update_fields=["status", "reason", "waiting_since"])
    if t.status == TournamentStatus.RUNNING:
        links = TournamentTable.objects.filter(round__tournament=t, finished_at__isnull=True)
        for link in links:
            if reg.player_id in link.players:
                try:
                    game_services.table_leave(player=reg.player, table_id=link.table_id)
                except GameError:  # the match ended meanwhile
                    pass
        _standings_refresh(t)
    _publish(t, "registrations_changed")


@transaction.atomic
def registration_disqualify(*, actor: Player | None, tournament_id, player_id,
                            reason: str = "") -> Registration:
    """A moderator (or the organiser) removes a player: never paired again, ranked last; a
    bot plays their running table to the end."""
    t = _lock(tournament_id)
    if actor is not None and not (actor.is_staff or actor.pk == t.organiser_id):
        raise TournamentError("not_organiser", "only the organiser or staff may disqualify")
    reg = Registration.objects.filter(tournament=t, player_id=player_id).first()
    if reg is None:
        raise TournamentError("not_registered", "no such registration", field="playerId")
    if reg.status != RegistrationStatus.DISQUALIFIED:
        _withdraw(t, reg, RegistrationStatus.DISQUALIFIED, reason or "disqualified")
        webhooks.emit(t, "tournament.player_disqualified", player_id=reg.player_id,
                      reason=reg.reason)
    return reg


# --- the clock ---------------------------------------------------------------------------------

def tournament_tick(*, now: datetime | None = None) -> int:
    """What the clock calls for: open and close registration, start on time, end arenas,
    and pick up results whose task was lost. Returns how many tournaments it changed."""
    now = now or timezone.now()
    changed = 0
    due = Tournament.objects.filter(Q(registration_opens_at__lte=now)
                                    | Q(registration_opens_at__isnull=True),
                                    status=TournamentStatus.SCHEDULED)
    for pk in list(due.values_list("pk", flat=True)):
        with transaction.atomic():
            t = _lock(pk)
            if t.status == TournamentStatus.SCHEDULED:
                t.status = TournamentStatus.REGISTRATION
                t.save(update_fields=["status"])
                _publish(t, "registration_opened")
                webhooks.emit(t, "tournament.registration_opened")
                changed += 1
    closing = Tournament.objects.filter(status=TournamentStatus.REGISTRATION,
                                        registration_closes_at__lte=now)
    for pk in list(closing.values_list("pk", flat=True)):
        with transaction.atomic():
            t = _lock(pk)
            if t.status == TournamentStatus.REGISTRATION:
                t.status = TournamentStatus.CLOSED
                t.save(update_fields=["status"])
                _publish(t, "registration_closed")
                webhooks.emit(t, "tournament.registration_closed")
                changed += 1
    starting = Tournament.objects.filter(status__in=OPEN_STATUSES, starts_at__lte=now)
    for pk in list(starting.values_list("pk", flat=True)):
        try:
            tournament_start(actor=None, tournament_id=pk)
            changed += 1
        except TournamentError as exc:  # started by hand meanwhile, or too few players
            if exc.code == "not_enough_players":
                tournament_cancel(tournament_id=pk, reason="not enough players")
                changed += 1
    for pk in list(Tournament.objects.filter(status=TournamentStatus.RUNNING)
                   .values_list("pk", flat=True)):
        changed += int(_sweep(pk, now))
    return changed


def _sweep(tournament_id: int, now: datetime) -> bool:
    """Finished tables not yet recorded (a lost task), and an arena past its end."""
    moved = False
    lost = TournamentTable.objects.filter(
        round__tournament_id=tournament_id, finished_at__isnull=True,
        table__status__in=["finished", "aborted"]).values_list("table_id", flat=True)
    for table_id in list(lost):
        moved |= tournament_table_finished(table_id=table_id)
    with transaction.atomic():
        t = _lock(tournament_id)
        if (t.status == TournamentStatus.RUNNING and t.format == Format.ARENA
                and t.ends_at and t.ends_at <= now and not _active_links(t).exists()):
            _finish(t)
            moved = True
    return moved


@transaction.atomic
def tournament_cancel(*, tournament_id, reason: str = "") -> Tournament:
    t = _lock(tournament_id)
    if t.status in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED):
        return t
    t.status = TournamentStatus.CANCELLED
    t.finished_at = timezone.now()
    t.save(update_fields=["status", "finished_at"])
    _publish(t, "cancelled", reason=reason[:200])
    webhooks.emit(t, "tournament.cancelled", reason=reason[:200])
    return t


# --- starting and rounds ------------------------------------------------------------------------

@transaction.atomic
def tournament_start(*, actor: Player | None, tournament_id) -> Tournament:
    """The organiser (or the clock, ``actor`` None) starts the first round."""
    t = _lock(tournament_id)
    if actor is not None and not (actor.pk == t.organiser_id or actor.is_superuser):
        raise TournamentError("not_organiser", "only the organiser may start this tournament")
    if t.status not in OPEN_STATUSES:
        raise TournamentError("already_started", "this tournament has started already")
    engine = game_services.get_engine(t.game)
    regs = list(t.registrations.filter(status=RegistrationStatus.REGISTERED))
    needed = max(t.min_players, engine.min_players,
                 1 if t.allow_bots else (t.table_size if t.format != Format.SINGLE_ELIMINATION
                                         else engine.min_players))
    if len(regs) < needed:
        raise TournamentError("not_enough_players", f"at least {needed} players are needed")
    now = timezone.now()
    t.status = TournamentStatus.RUNNING
    t.started_at = now
    if t.format == Format.ROUND_ROBIN and not t.rounds:
        t.rounds = formats.round_robin_rounds(len(regs), t.table_size)
    if t.format == Format.SWISS and not t.rounds:
        t.rounds = DEFAULT_SWISS_ROUNDS
    if t.format == Format.ARENA:
        t.ends_at = now + timedelta(minutes=t.duration_minutes or 0)
    t.save(update_fields=["status", "started_at", "rounds", "ends_at"])
    _seeds_fix(t)
    _publish(t, "started")
    webhooks.emit(t, "tournament.started")
    _standings_refresh(t)
    if t.format == Format.ARENA:
        Registration.objects.filter(tournament=t, status=RegistrationStatus.REGISTERED).update(
            waiting_since=now)
        TournamentRound.objects.create(tournament=t, number=1)
        t.current_round = 1
        t.save(update_fields=["current_round"])
        _arena_pair(t)
    else:
        _round_create(t)
    return t


def seed_order(t: Tournament) -> list[int]:
    """Registered players, best first. Fixed at the start (``Registration.seed``) from the
    ratings in this game, ties drawn from the tournament's seed, so the first round is
    deterministic given the seed and seeds do not move while ratings do. Later arena
    entrants come after, in order of registration."""
    regs = list(t.registrations.order_by("created_at", "id").values_list("player_id", "seed"))
    if any(seed is not None for _, seed in regs):
        order = {p: i for i, (p, _) in enumerate(regs)}
        return [p for p, _ in sorted(regs, key=lambda r: (r[1] is None, r[1] or 0,
                                                          order[r[0]]))]
    ids = [p for p, _ in regs]
    ordinal = dict(Rating.objects.filter(game=t.game, player_id__in=ids)
                   .values_list("player_id", "ordinal"))
    draw = {p: random.Random(f"{t.seed}:{p}").random() for p in ids}
    return sorted(ids, key=lambda p: (-ordinal.get(p, 0.0), draw[p]))


def _seeds_fix(t: Tournament) -> None:
    for rank, player_id in enumerate(seed_order(t), start=1):
        Registration.objects.filter(tournament=t, player_id=player_id).update(seed=rank)


def _active_ids(t: Tournament) -> set[int]:
    return set(t.registrations.filter(status=RegistrationStatus.REGISTERED)
               .values_list("player_id", flat=True))


def _rounds(t: Tournament) -> list[tuple[TournamentRound, list[TournamentTable]]]:
    """Rounds that started, with their tables: a pending round is no history yet."""
    rounds = list(t.rounds_set.exclude(status=RoundStatus.PENDING).order_by("number")
                  .prefetch_related("tables"))
    return [(r, sorted(r.tables.all(), key=lambda x: x.number)) for r in rounds]


def _placings(link: TournamentTable) -> dict[int, int]:
    return {int(k): v for k, v in (link.placings or {}).items()}


def _pairing(t: Tournament) -> formats.Pairing | None:
    active = _active_ids(t)
    history = [tuple(link.players) for _, links in _rounds(t) for link in links]
    if t.format == Format.SWISS:
        ranked = [s.player_id for s in t.standings.order_by("rank")
                  if s.player_id in active]
        if t.current_round == 0:
            ranked = [p for p in seed_order(t) if p in active]
        byes = Counter(p for r, _ in _rounds(t) for p in r.byes)
        return formats.swiss(ranked, table_size=t.table_size, history=history, bye_counts=byes)
    if t.format == Format.ROUND_ROBIN:
        byes = Counter(p for r, _ in _rounds(t) for p in r.byes)
        if t.table_size > 2:
            return formats.round_robin([p for p in seed_order(t) if p in active],
                                       table_size=t.table_size,
                                       round_number=t.current_round + 1, seed=t.seed,
                                       history=history, bye_counts=byes)
        # The circle method needs the same field every round: whoever left since is paired
        # still, and their opponent gets a bye.
        field_ = list(t.registrations.order_by("created_at", "id")
                      .values_list("player_id", flat=True))
        pairing = formats.round_robin(field_, table_size=2, round_number=t.current_round + 1,
                                      seed=t.seed)
        tables = tuple(x for x in pairing.tables if set(x) <= active)
        left = [p for x in pairing.tables if not set(x) <= active for p in x if p in active]
        return formats.Pairing(tables, tuple([p for p in pairing.byes if p in active] + left))
    if t.format == Format.SINGLE_ELIMINATION:
        engine = game_services.get_engine(t.game)
        seeds = seed_order(t)
        if t.current_round == 0:
            going = [p for p in seeds if p in active]
        else:
            last_round, links = _rounds(t)[-1]
            last = formats.Pairing(tuple(tuple(x.players) for x in links), tuple(last_round.byes))
            if formats.is_final(last):
                return None
            placings = {p: v for x in links for p, v in _placings(x).items()}
            going = [p for p in formats.elimination_advancing(
                last, placings, advance=t.advance, seed_rank={p: i for i, p in enumerate(seeds)})
                if p in active]
        pairing = formats.elimination(going, table_size=t.table_size,
                                      min_size=engine.min_players)
        return pairing if pairing.tables else None
    return None


def _round_create(t: Tournament) -> TournamentRound | None:
    """The next round's tables, seated and started; or the end when there is none."""
    if t.format in (Format.SWISS, Format.ROUND_ROBIN) and t.current_round >= (t.rounds or 0):
        _finish(t)
        return None
    pairing = _pairing(t)
    if pairing is None or not pairing.tables and not (t.allow_bots and pairing.byes):
        _finish(t)
        return None
    number = t.current_round + 1
    tables = [list(x) for x in pairing.tables]
    byes = list(pairing.byes)
    if t.allow_bots and byes and t.format != Format.SINGLE_ELIMINATION:
        tables.append(byes)  # bots fill the rest of this table instead of byes
        byes = []
    t.current_round = number
    t.save(update_fields=["current_round"])
    if t.paused_at is not None:
        # Paused: the round is paired and waits for the organiser (re-pair, move a player,
        # award a bye) and the resume.
        rnd = TournamentRound.objects.create(tournament=t, number=number, byes=byes,
                                             planned=tables, status=RoundStatus.PENDING)
        _publish(t, "round_prepared", tables=len(tables), byes=len(byes))
        return rnd
    rnd = TournamentRound.objects.create(tournament=t, number=number, byes=byes)
    return _round_start(t, rnd, tables)


def _round_start(t: Tournament, rnd: TournamentRound, tables: list[list[int]]) -> TournamentRound:
    players = Player.objects.in_bulk({p for x in tables for p in x})
    links = [_table_create(t, rnd, i, [players[p] for p in ids])
             for i, ids in enumerate(tables, start=1)]
    _standings_refresh(t)
    _publish(t, "round_started", tables=len(tables), byes=len(rnd.byes))
    webhooks.emit(t, "tournament.round_started", round=rnd, tables=links)
    return rnd


def _table_create(t: Tournament, rnd: TournamentRound, number: int,
                  players: list[Player]) -> TournamentTable:
    bots = max(0, t.table_size - len(players)) if t.allow_bots else 0
    table = game_services.table_create_seated(
        creator=t.organiser, game=t.game, options=t.options, players=players, bots=bots,
        bot_level=t.bot_level, turn_clock_seconds=t.turn_clock_seconds,
        spectator_delay_seconds=t.spectator_delay_seconds)
    return TournamentTable.objects.create(round=rnd, table=table, number=number,
                                          players=[p.pk for p in players],
                                          seats=len(players) + bots)


def _active_links(t: Tournament):
    return TournamentTable.objects.filter(round__tournament=t, finished_at__isnull=True)


def _arena_pair(t: Tournament) -> int:
    """Seat the waiting players, as many full tables as they fill."""
    if t.format != Format.ARENA or t.status != TournamentStatus.RUNNING or t.paused_at:
        return 0
    if t.ends_at and t.ends_at <= timezone.now():
        return 0
    waiting = list(t.registrations.filter(status=RegistrationStatus.REGISTERED,
                                          waiting_since__isnull=False)
                   .order_by("waiting_since", "id").values_list("player_id", flat=True))
    last: dict[int, list[int]] = {}
    history = []
    for link in TournamentTable.objects.filter(round__tournament=t).order_by("id"):
        history.append(tuple(link.players))
        for p in link.players:
            last[p] = [o for o in link.players if o != p]
    pairing = formats.arena_pair(waiting, table_size=t.table_size, last_opponents=last,
                                 history=history)
    if not pairing.tables:
        return 0
    rnd = t.rounds_set.get(number=1)
    start = TournamentTable.objects.filter(round=rnd).count()
    players = Player.objects.in_bulk({p for x in pairing.tables for p in x})
    links = [_table_create(t, rnd, i, [players[p] for p in ids])
             for i, ids in enumerate(pairing.tables, start=start + 1)]
    Registration.objects.filter(tournament=t, player_id__in=[p for x in pairing.tables
                                                              for p in x]).update(
        waiting_since=None)
    _publish(t, "round_started", tables=len(pairing.tables))
    webhooks.emit(t, "tournament.round_started", round=rnd, tables=links)
    return len(pairing.tables)


# --- results ------------------------------------------------------------------------------------

def tournament_table_finished(*, table_id: int) -> bool:
    """Record a finished (or aborted) tournament table; start the next round when it was the
    last of its round. Safe to call twice, and for tables of no tournament (returns False)."""
    link = TournamentTable.objects.filter(table_id=table_id).select_related("round").first()
    if link is None:
        return False
    with transaction.atomic():
        t = _lock(link.round.tournament_id)
        link = TournamentTable.objects.select_for_update().get(pk=link.pk)
        if link.finished_at is not None or t.status != TournamentStatus.RUNNING:
            return False
        table = game_selectors.table_get(table_id)
        if table.is_active:
            return False
        seats = {s.position: s for s in table.seats.all()}
        placings: dict[int, int] = {}
        result = (table.result or {}).get("placings") if table.status == "finished" else None
        for position, seat in seats.items():
            if position >= len(link.players) or seat.player_id != link.players[position]:
                continue  # a filler bot
            # An aborted table counts as a loss for everyone at it.
            placings[seat.player_id] = result[position] if result else link.seats
            if seat.taken_over_by_bot and not seat.is_bot:
                reg = Registration.objects.filter(tournament=t, player_id=seat.player_id,
                                                  status=RegistrationStatus.REGISTERED).first()
                if reg is not None:  # a no-show: a bot finished for them, not paired again
                    reg.status = RegistrationStatus.WITHDRAWN
                    reg.reason = "no_show"
                    reg.save(update_fields=["status", "reason"])
        link.placings = {str(p): v for p, v in placings.items()}
        link.finished_at = timezone.now()
        link.save(update_fields=["placings", "finished_at"])
        _standings_refresh(t)
        _publish(t, "table_finished", table_id=table.public_id)
        webhooks.emit(t, "tournament.table_finished", link=link)
        _publish(t, "standings_changed")
        if t.format == Format.ARENA:
            now = timezone.now()
            if t.ends_at and t.ends_at > now:
                Registration.objects.filter(
                    tournament=t, player_id__in=link.players,
                    status=RegistrationStatus.REGISTERED).update(waiting_since=now)
                _arena_pair(t)
            elif not _active_links(t).exists():
                _finish(t)
            return True
        rnd = link.round
        if TournamentTable.objects.filter(round=rnd, finished_at__isnull=True).exists():
            return True
        rnd.status = RoundStatus.FINISHED
        rnd.finished_at = timezone.now()
        rnd.save(update_fields=["status", "finished_at"])
        webhooks.emit(t, "tournament.round_finished", round=rnd)
        _round_create(t)
        return True


def _finish(t: Tournament) -> None:
    t.status = TournamentStatus.FINISHED
    t.finished_at = timezone.now()
    t.save(update_fields=["status", "finished_at"])
    t.rounds_set.filter(status=RoundStatus.PLAYING).update(status=RoundStatus.FINISHED,
                                                          finished_at=t.finished_at)
    _standings_refresh(t)
    _publish(t, "finished")
    webhooks.emit(t, "tournament.finished")


def _standings_refresh(t: Tournament) -> None:
    """Rewrite every standing from the recorded tables (a pure function of them)."""
    seeds = seed_order(t)
    rounds = _rounds(t)
    results, seats_of, byes = [], [], []
    for rnd, links in rounds:
        byes += rnd.byes
        for link in links:
            if link.placings is not None:
                results.append(_placings(link))
                seats_of.append(link.seats or t.table_size)
    lines = formats.standings(seeds, results, byes, table_size=t.table_size, seats_of=seats_of)
    order = [ln.player for ln in lines]
    eliminated: dict[int, int] = {}
    if t.format == Format.SINGLE_ELIMINATION:
        played = [(formats.Pairing(tuple(tuple(x.players) for x in links), tuple(rnd.byes)),
                   {p: v for x in links for p, v in _placings(x).items()})
                  for rnd, links in rounds]
        order = formats.elimination_order(seeds, played)
        seed_rank = {p: i for i, p in enumerate(seeds)}
        for number, (pairing, placings) in enumerate(played, start=1):
            if any(x.placings is None for x in rounds[number - 1][1]):
                break
            advancing = set(formats.elimination_advancing(
                pairing, placings, advance=t.advance, seed_rank=seed_rank))
            final = formats.is_final(pairing)
            for p in pairing.seated:
                # At the final only the champion (ties at first go to the better seed) is
                # not out.
                if (final and p != order[0]) or (not final and p not in advancing):
                    eliminated[p] = number
    statuses = dict(t.registrations.values_list("player_id", "status"))
    # Disqualified players go to the bottom, keeping their order among themselves.
    order = ([p for p in order if statuses.get(p) != RegistrationStatus.DISQUALIFIED]
             + [p for p in order if statuses.get(p) == RegistrationStatus.DISQUALIFIED])
    by_player = {ln.player: ln for ln in lines}
    existing = {s.player_id: s for s in Standing.objects.filter(tournament=t)}
    for rank, player_id in enumerate(order, start=1):
        ln = by_player[player_id]
        row = existing.pop(player_id, None) or Standing(tournament=t, player_id=player_id)
        row.rank, row.points, row.buchholz, row.wins = rank, ln.points, ln.buchholz, ln.wins
        row.placing_sum, row.matches, row.byes = ln.placing_sum, ln.matches, ln.byes
        row.eliminated_in_round = eliminated.get(player_id)
        row.save()
    Standing.objects.filter(pk__in=[s.pk for s in existing.values()]).delete()


# --- manual control -------------------------------------------------------------------------------
#
# The organiser (or staff with ``tournaments.control_tournament``) pauses a tournament: tables
# that play finish, but nothing new starts. The round after is paired as usual and waits,
# pending, with no tables: it can be paired again, a player moved to another table, a bye
# awarded. Resuming starts it. Every step is written to the audit log with who and why.

class ControlAction:
    PAUSE = "tournament_pause"
    RESUME = "tournament_resume"
    REPAIR = "tournament_round_repair"
    MOVE = "tournament_player_move"
    BYE = "tournament_bye_award"


def _controlled(tournament_id, actor: Player, reason: str) -> tuple[Tournament, str]:
    from games.moderation import MAX_REASON

    t = _lock(tournament_id)
    if not (actor is not None and actor.is_active and (
            actor.pk == t.organiser_id or actor.is_superuser
            or (actor.is_staff and actor.has_perm("tournaments.control_tournament")))):
        raise TournamentError("not_organiser", "only the organiser or staff may do that")
    reason = " ".join((reason or "").split())[:MAX_REASON]
    if not reason:
        raise TournamentError("reason_required", "give a reason (it goes to the audit log)",
                              field="reason")
    return t, reason


def _audit(actor: Player, action: str, t: Tournament, reason: str, **extra) -> None:
    from games.moderation import audit_record

    audit_record(actor=actor, action=action, reason=reason,
                 extra={"tournament_id": t.pk, "tournament": t.name, **extra})


def _pending(t: Tournament) -> TournamentRound:
    rnd = t.rounds_set.filter(status=RoundStatus.PENDING).order_by("-number").first()
    if rnd is None:
        raise TournamentError("no_pending_round", "no round waits to start: pause the "
                              "tournament and let the current round finish first")
    return rnd


@transaction.atomic
def tournament_pause(*, actor: Player, tournament_id, reason: str) -> Tournament:
    t, reason = _controlled(tournament_id, actor, reason)
    if t.status in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED):
        raise TournamentError("tournament_over", "this tournament is over")
    if t.paused_at is not None:
        raise TournamentError("already_paused", "this tournament is paused already")
    t.paused_at, t.pause_reason = timezone.now(), reason[:300]
    t.save(update_fields=["paused_at", "pause_reason"])
    _audit(actor, ControlAction.PAUSE, t, reason, round=t.current_round)
    _publish(t, "paused")
    return t


@transaction.atomic
def tournament_resume(*, actor: Player, tournament_id, reason: str) -> Tournament:
    """Start the pending round (or, in an arena, seat whoever waits)."""
    t, reason = _controlled(tournament_id, actor, reason)
    if t.paused_at is None:
        raise TournamentError("not_paused", "this tournament is not paused")
    t.paused_at, t.pause_reason = None, ""
    t.save(update_fields=["paused_at", "pause_reason"])
    started = None
    rnd = t.rounds_set.filter(status=RoundStatus.PENDING).order_by("-number").first()
    if rnd is not None and t.status == TournamentStatus.RUNNING:
        tables = [list(x) for x in rnd.planned]
        rnd.status, rnd.planned, rnd.started_at = RoundStatus.PLAYING, [], timezone.now()
        rnd.save(update_fields=["status", "planned", "started_at"])
        _round_start(t, rnd, tables)
        started = rnd.number
    _audit(actor, ControlAction.RESUME, t, reason, round_started=started)
    _publish(t, "resumed")
    _arena_pair(t)
    return t


@transaction.atomic
def round_repair(*, actor: Player, tournament_id, reason: str) -> Tournament:
    """Pair the pending round again from the field as it is now (after a withdrawal, a
    disqualification, a late registration)."""
    t, reason = _controlled(tournament_id, actor, reason)
    rnd = _pending(t)
    before = {"tables": rnd.planned, "byes": rnd.byes}
    rnd.delete()
    t.current_round = rnd.number - 1
    t.save(update_fields=["current_round"])
    new = _round_create(t)
    after = {"tables": new.planned, "byes": new.byes} if new is not None else None
    _audit(actor, ControlAction.REPAIR, t, reason, round=rnd.number, before=before, after=after)
    return t


def _place(rnd: TournamentRound, player_id: int) -> int | None:
    """The table index (0-based) of ``player_id`` in the pending round; None: a bye."""
    for i, table in enumerate(rnd.planned):
        if player_id in table:
            return i
    if player_id in rnd.byes:
        return None
    raise TournamentError("not_in_round", "that player is not in the pending round",
                          field="playerId")


def _check_table_sizes(t: Tournament, rnd: TournamentRound) -> None:
    engine = game_services.get_engine(t.game)
    for i, table in enumerate(rnd.planned, start=1):
        seats = max(len(table), t.table_size) if t.allow_bots else len(table)
        if len(table) > t.table_size:
            raise TournamentError("table_full", f"table {i} seats {t.table_size}",
                                  field="tableNumber")
        if table and seats < engine.min_players:
            raise TournamentError("table_too_small", f"table {i} would have fewer than "
                                  f"{engine.min_players} players", field="playerId")


@transaction.atomic
def round_player_move(*, actor: Player, tournament_id, player_id, table_number: int,
                      swap_with_id=None, reason: str) -> Tournament:
    """Move a player of the pending round to table ``table_number`` (from 1): to a free seat,
    or in exchange with ``swap_with_id`` who sits there (who then takes the mover's place,
    a bye included)."""
    t, reason = _controlled(tournament_id, actor, reason)
    rnd = _pending(t)
    player_id = _int(player_id, "playerId")
    if not 1 <= table_number <= len(rnd.planned):
        raise TournamentError("no_such_table", f"tables 1 to {len(rnd.planned)}",
                              field="tableNumber")
    target = table_number - 1
    source = _place(rnd, player_id)
    if source == target:
        raise TournamentError("same_table", "that player sits at that table already",
                              field="tableNumber")
    planned = [list(x) for x in rnd.planned]
    byes = list(rnd.byes)
    other = None
    if swap_with_id is not None:
        other = _int(swap_with_id, "swapWithPlayerId")
        if other not in planned[target]:
            raise TournamentError("not_at_table", "the player to swap with is not at that table",
                                  field="swapWithPlayerId")
        seat = planned[target].index(other)
        planned[target][seat] = player_id
        if source is None:
            byes[byes.index(player_id)] = other
        else:
            planned[source][planned[source].index(player_id)] = other
    else:
        if len(planned[target]) >= t.table_size:
            raise TournamentError("table_full", f"table {table_number} is full: name a player "
                                  "to swap with", field="tableNumber")
        if source is None:
            byes.remove(player_id)
        else:
            planned[source].remove(player_id)
        planned[target].append(player_id)
    rnd.planned = [x for x in planned if x]
    rnd.byes = byes
    _check_table_sizes(t, rnd)
    rnd.save(update_fields=["planned", "byes"])
    _audit(actor, ControlAction.MOVE, t, reason, round=rnd.number, player_id=player_id,
           from_table=None if source is None else source + 1, to_table=table_number,
           swapped_with=other)
    _publish(t, "round_prepared", tables=len(rnd.planned), byes=len(rnd.byes))
    return t


@transaction.atomic
def round_bye_award(*, actor: Player, tournament_id, player_id, reason: str) -> Tournament:
    """Give a player of the pending round (or a registered player it left out) a bye: they
    sit this round out with a bye's points."""
    t, reason = _controlled(tournament_id, actor, reason)
    rnd = _pending(t)
    player_id = _int(player_id, "playerId")
    try:
        source = _place(rnd, player_id)
    except TournamentError:
        if player_id not in _active_ids(t):
            raise
        source = -1  # registered, but not in this round's pairing
    if source is None:
        raise TournamentError("already_bye", "that player has a bye this round already",
                              field="playerId")
    planned = [list(x) for x in rnd.planned]
    if source >= 0:
        planned[source].remove(player_id)
    rnd.planned = [x for x in planned if x]
    rnd.byes = [*rnd.byes, player_id]
    _check_table_sizes(t, rnd)
    rnd.save(update_fields=["planned", "byes"])
    _audit(actor, ControlAction.BYE, t, reason, round=rnd.number, player_id=player_id,
           from_table=source + 1 if source >= 0 else None)
    _publish(t, "round_prepared", tables=len(rnd.planned), byes=len(rnd.byes))
    return t


def _int(value, field: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise TournamentError("not_found", "no such player", field=field) from None
