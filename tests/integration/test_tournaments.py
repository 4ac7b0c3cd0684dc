"""Tournaments of bots from registration to final standings, on their own: PostgreSQL, Redis,
a real Celery worker and a real beat (the clock starts them), followed over a real websocket.
The same beat runs turn clocks, tried at the end. Runs in CI (DATABASE_URL and REDIS_URL
set)."""

from __future__ import annotations

import asyncio
import csv
import io
import sys
import time
from collections import Counter
from datetime import timedelta

import httpx
import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from games.models import LogKind, TableLogEntry
from tests.games.test_replays import rebuild
from tests.tournaments.helpers import bot_tournament
from tournaments.models import (
    Rating,
    RatingChange,
    Standing,
    Tournament,
    TournamentRound,
    TournamentTable,
)
from tournaments.services import seed_order

from .client import Socket
from .conftest import Proc, service_env
from .play import START, new_guest, open_table

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

EVENTS = """subscription($id: ID!) { tournamentEvents(tournamentId: $id) {
  tournamentId kind status round tableId } }"""


@pytest.fixture(scope="module")
def celery_beat_proc(celery_worker_proc, artifacts_dir, tmp_path_factory):
    schedule = tmp_path_factory.mktemp("beat") / "schedule"
    proc = Proc([sys.executable, "-m", "celery", "-A", "config", "beat", "-l", "info",
                 "-s", str(schedule)],
                service_env(TOURNAMENT_TICK_SECONDS="0.5"), artifacts_dir / "beat.log")
    time.sleep(1.0)
    assert proc.proc.poll() is None, (artifacts_dir / "beat.log").read_text()
    yield proc
    proc.stop()


def _scheduled(**kw) -> Tournament:
    now = timezone.now()
    _, t = bot_tournament(registration_closes_at=now + timedelta(seconds=2),
                          starts_at=now + timedelta(seconds=3), **kw)
    return t


async def _follow(base_url: str, tournament_id: int, timeout: float = 120) -> list[dict]:
    """Every tournament event until it finished."""
    http = await new_guest(base_url, "Follower")
    socket = await Socket(base_url, http.token).connect()
    sub = await socket.subscribe(EVENTS, {"id": str(tournament_id)})
    events = []
    end = time.monotonic() + timeout
    try:
        while True:
            event = (await sub.next(timeout=max(1, end - time.monotonic())))["tournamentEvents"]
            assert event["tournamentId"] == str(tournament_id)
            events.append(event)
            if event["kind"] in ("finished", "cancelled"):
                return events
    finally:
        await socket.close()
        await http.close()


def _rounds(t: Tournament) -> list[tuple[TournamentRound, list[TournamentTable]]]:
    return [(r, list(r.tables.order_by("number"))) for r in t.rounds_set.order_by("number")]


def _check_swiss(tournament_id: int) -> None:
    t = Tournament.objects.get(pk=tournament_id)
    assert t.status == "finished" and t.current_round == 3
    rounds = _rounds(t)
    assert len(rounds) == 3
    players = set(t.registrations.values_list("player_id", flat=True))
    expected_points: Counter = Counter()
    for rnd, links in rounds:
        assert rnd.status == "finished" and rnd.byes == [] and len(links) == 3
        assert sorted(p for x in links for p in x.players) == sorted(players)
        for link in links:
            assert link.table.status == "finished" and link.table.seat_count == 4
            assert len(link.placings) == 4
            for p, placing in link.placings.items():
                expected_points[int(p)] += 4 - placing
    standings = list(Standing.objects.filter(tournament=t).order_by("rank"))
    assert [s.rank for s in standings] == list(range(1, 13))
    assert {s.player_id: s.points for s in standings} == dict(expected_points)
    assert all(s.matches == 3 and s.byes == 0 for s in standings)
    keys = [(-s.points, -s.buchholz, -s.wins, s.placing_sum) for s in standings]
    assert keys == sorted(keys)
    ratings = {r.player_id: r for r in Rating.objects.filter(game="kato", player_id__in=players)}
    assert len(ratings) == 12 and all(r.matches == 3 for r in ratings.values())
    assert RatingChange.objects.filter(game="kato", player_id__in=players).count() == 36
    assert ratings[standings[0].player_id].mu > ratings[standings[-1].player_id].mu


async def test_swiss_kato_tournament_of_twelve_bots_runs_on_its_own(
        live_server_url, celery_worker_proc, celery_beat_proc):
    t = await database_sync_to_async(_scheduled)(
        game="kato", format="swiss", players=12, options={"rounds": 1}, table_size=4, rounds=3)
    events = await _follow(live_server_url, t.pk)
    kinds = Counter(e["kind"] for e in events)
    assert kinds["round_started"] == 3 and kinds["table_finished"] == 9
    assert kinds["standings_changed"] >= 9 and events[-1]["kind"] == "finished"
    await database_sync_to_async(_check_swiss)(t.pk)
    await database_sync_to_async(_check_exports)(live_server_url, t.pk)


def _check_exports(base_url: str, tournament_id: int) -> None:
    """Every table's replay export rebuilds to its stored final state, and the standings CSV
    is the standings, all from the live server."""
    links = TournamentTable.objects.filter(round__tournament_id=tournament_id).select_related(
        "table")
    with httpx.Client(base_url=base_url, timeout=30) as http:
        for link in links:
            response = http.get(f"/api/tables/{link.table.public_id}/replay.json")
            assert response.status_code == 200
            assert rebuild(response.json()) == link.table.state
        rows = list(csv.DictReader(io.StringIO(
            http.get(f"/api/tournaments/{tournament_id}/standings.csv").text)))
    standings = Standing.objects.filter(tournament_id=tournament_id).order_by("rank")
    assert [(int(r["player_id"]), int(r["points"])) for r in rows] == [
        (s.player_id, s.points) for s in standings]


def _check_elimination(tournament_id: int) -> None:
    t = Tournament.objects.get(pk=tournament_id)
    assert t.status == "finished"
    rounds = _rounds(t)
    # 12 at tables of 4, the top 2 of each go on: 3 tables -> 6 -> 1 table + 2 byes -> 4.
    assert [(len(links), len(rnd.byes)) for rnd, links in rounds] == [(3, 0), (1, 2), (1, 0)]
    # Krass Kariert places everyone but a deal's loser first: ties go to the better seed.
    seed = {p: i for i, p in enumerate(seed_order(t))}
    for number, (rnd, links) in enumerate(rounds[:-1]):
        nxt_rnd, nxt_links = rounds[number + 1]
        going = set(nxt_rnd.byes) | {p for x in nxt_links for p in x.players}
        expected = set(rnd.byes)
        for link in links:
            placed = sorted((v, seed[int(p)], int(p)) for p, v in link.placings.items())
            expected |= {p for *_, p in placed[:2]}
            assert max(v for v, *_ in placed[:2]) <= min(v for v, *_ in placed[2:])
        assert going == expected
    assert list(rounds[1][0].byes) == sorted(rounds[1][0].byes, key=seed.get)
    final = rounds[-1][1][0]
    standings = list(Standing.objects.filter(tournament=t).order_by("rank"))
    winner = min(final.placings, key=lambda p: (final.placings[p], seed[int(p)]))
    assert standings[0].player_id == int(winner) and standings[0].eliminated_in_round is None
    out = Counter(s.eliminated_in_round for s in standings)
    assert out == {1: 6, 2: 2, 3: 3, None: 1}
    assert [s.eliminated_in_round or 4 for s in standings] == sorted(
        (s.eliminated_in_round or 4 for s in standings), reverse=True)
    ratings = {r.player_id: r.matches for r in Rating.objects.filter(game="krass_kariert")}
    for s in standings:
        assert ratings[s.player_id] == s.matches


async def test_single_elimination_krass_kariert_tournament_of_bots_runs_on_its_own(
        live_server_url, celery_worker_proc, celery_beat_proc):
    t = await database_sync_to_async(_scheduled)(
        game="krass_kariert", format="single_elimination", players=12, options={"chips": 1},
        table_size=4)
    events = await _follow(live_server_url, t.pk)
    assert Counter(e["kind"] for e in events)["round_started"] == 3
    await database_sync_to_async(_check_elimination)(t.pk)
    await database_sync_to_async(_check_exports)(live_server_url, t.pk)


def _log_of(table_id: str) -> list[TableLogEntry]:
    return list(TableLogEntry.objects.filter(table__public_id=table_id).order_by("seq"))


async def test_a_turn_clock_runs_out_on_time_through_beat_and_a_worker(
        live_server_url, celery_worker_proc, celery_beat_proc):
    """A move only writes the table's deadline; beat's deadline sweep queues the timeout to
    it, and the worker plays the default move for the late seat."""
    alice = await new_guest(live_server_url, "Alice")
    bob = await new_guest(live_server_url, "Bob")
    try:
        table_id = await open_table(alice, [bob], "kato", {"rounds": 1}, turnClockSeconds=2)
        started = await alice(START, {"id": table_id})
        assert started["startTable"]["errors"] == [], started
        end = time.monotonic() + 30
        while time.monotonic() < end:
            log = await database_sync_to_async(_log_of)(table_id)
            if any(entry.kind == LogKind.TIMEOUT for entry in log):
                break
            await asyncio.sleep(0.1)
        timeout = next(entry for entry in log if entry.kind == LogKind.TIMEOUT)
        before = [entry for entry in log if entry.seq < timeout.seq]
        late = (timeout.created_at - before[-1].created_at).total_seconds()
        # On time: at the deadline, not a sweep interval (1 s) or more after it; the bound
        # above leaves a loaded CI machine room.
        assert 2.0 <= late < 6.0, late
    finally:
        await alice.close()
        await bob.close()
