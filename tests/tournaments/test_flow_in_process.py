"""A whole tournament of bots in one process (in-process task queue, SQLite or PostgreSQL)."""

import time

import pytest
from django.utils import timezone

from accounts.models import Player
from games import scheduling
from games import services as game_services
from tournaments import services
from tournaments.models import Rating, Registration, Standing, Tournament, TournamentTable

from .helpers import bot_tournament

pytestmark = pytest.mark.django_db(transaction=True)


def test_swiss_kato_of_bots_runs_to_final_standings():
    org, t = bot_tournament(game="kato", format="swiss", players=8, options={"rounds": 1},
                            table_size=4, rounds=2)
    services.tournament_start(actor=org, tournament_id=t.pk)
    assert scheduling.wait_idle(timeout=60)
    t = Tournament.objects.get(pk=t.pk)
    assert t.status == "finished" and t.current_round == 2
    standings = list(Standing.objects.filter(tournament=t).order_by("rank"))
    assert [s.rank for s in standings] == list(range(1, 9))
    assert all(s.matches == 2 for s in standings)
    assert Rating.objects.filter(game="kato", matches=2).count() == 8
    # Seeds were fixed at the start; the ratings that moved since do not reorder them.
    seeds = dict(t.registrations.values_list("player_id", "seed"))
    assert sorted(seeds.values()) == list(range(1, 9))
    assert services.seed_order(t) == sorted(seeds, key=seeds.get)


def test_bots_fill_the_seats_of_byes_when_allowed():
    org, t = bot_tournament(game="kato", format="swiss", players=5, options={"rounds": 1},
                            table_size=2, rounds=2, allow_bots=True)
    services.tournament_start(actor=org, tournament_id=t.pk)
    assert scheduling.wait_idle(timeout=60)
    t.refresh_from_db()
    assert t.status == "finished"
    for rnd in t.rounds_set.all():
        assert rnd.byes == [] and rnd.tables.count() == 3
        short = [x for x in rnd.tables.all() if len(x.players) == 1]
        assert len(short) == 1 and short[0].seats == 2  # one player and a filler bot
    assert all(s.matches == 2 for s in Standing.objects.filter(tournament=t))


def test_round_robin_of_four_in_pairs_meets_everyone_once():
    org, t = bot_tournament(game="kato", format="round_robin", players=4,
                            options={"rounds": 1}, table_size=2)
    services.tournament_start(actor=org, tournament_id=t.pk)
    assert scheduling.wait_idle(timeout=60)
    t.refresh_from_db()
    assert t.status == "finished" and t.rounds == 3
    pairs = [tuple(sorted(x.players)) for r in t.rounds_set.all() for x in r.tables.all()]
    assert len(pairs) == len(set(pairs)) == 6


def test_arena_repairs_finished_players_until_the_window_closes():
    org, t = bot_tournament(game="kato", format="arena", players=4, options={"rounds": 1},
                            table_size=2, duration_minutes=5)
    services.tournament_start(actor=org, tournament_id=t.pk)
    # Once players went back to the queue and were seated again, close the window: tables
    # that finish after it are not re-paired. (A fixed 1.5 s window failed on a loaded
    # machine whenever the first table took longer.)
    deadline = time.monotonic() + 60
    while TournamentTable.objects.filter(round__tournament=t).count() <= 2:
        assert time.monotonic() < deadline, "nobody was seated again"
        time.sleep(0.05)
    Tournament.objects.filter(pk=t.pk).update(ends_at=timezone.now())
    assert scheduling.wait_idle(timeout=60)
    time.sleep(0.1)
    services.tournament_tick()
    t.refresh_from_db()
    assert t.status == "finished"
    links = list(TournamentTable.objects.filter(round__tournament=t))
    assert len(links) > 2  # players went back to the queue and were seated again
    assert all(x.finished_at for x in links)
    standings = {s.player_id: s for s in Standing.objects.filter(tournament=t)}
    assert sum(s.matches for s in standings.values()) == 2 * len(links)
    assert sum(s.points for s in standings.values()) == sum(
        2 - v for x in links for v in x.placings.values())  # placing p at 2 seats: 2 - p


def test_a_no_show_is_played_by_a_bot_and_not_paired_again():
    org, t = bot_tournament(game="kato", format="swiss", players=3, options={"rounds": 1},
                            table_size=2, rounds=2)
    person = Player.objects.create(username="late", display_name="Late", password="!")
    services.tournament_register(player=person, tournament_id=t.pk)
    services.tournament_start(actor=org, tournament_id=t.pk)
    # What the turn clock does to a player who never acts (see games.services.turn_timeout).
    game_services.seats_hand_to_bots(player=person, reason="missed_turns")
    assert scheduling.wait_idle(timeout=60, horizon=5)  # not the stale turn clock's 30 s
    t.refresh_from_db()
    assert t.status == "finished"
    reg = Registration.objects.get(tournament=t, player=person)
    assert (reg.status, reg.reason) == ("withdrawn", "no_show")
    second = t.rounds_set.get(number=2)
    assert person.pk not in [p for x in second.tables.all() for p in x.players] + second.byes
    assert Standing.objects.get(tournament=t, player=person).matches == 1
