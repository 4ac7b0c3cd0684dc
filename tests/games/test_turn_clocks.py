"""Turn clocks are the ``deadline`` column and beat's deadline sweep: a move queues no task
(games/journal.py ``_follow_ups``, games/services.py ``sweep_deadlines``)."""

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from accounts.models import Player
from config import metrics
from games import journal, scheduling, services
from games.engine import GAMES
from games.models import Table

pytestmark = pytest.mark.django_db(transaction=True)


def clocked_table(seconds=30, name="t"):
    alice = Player.objects.create(username=f"alice-{name}", display_name="Alice")
    bob = Player.objects.create(username=f"bob-{name}", display_name="Bob")
    table = services.table_create(creator=alice, game="kato", seat_count=2,
                                  options={"rounds": 1}, turn_clock_seconds=seconds)
    services.table_join(player=bob, table_id=table.pk)
    return services.table_start(player=alice, table_id=table.pk), {0: alice, 1: bob}


@pytest.fixture
def queued(monkeypatch):
    calls = []
    monkeypatch.setattr(scheduling, "enqueue", lambda name, table_id, version, countdown=0.0:
                        calls.append((name, table_id, version, countdown)))
    return calls


def test_a_move_at_a_clocked_table_sets_the_next_deadline_and_queues_nothing(queued):
    table, players = clocked_table()
    engine = GAMES["kato"]
    seat = engine.actors(table.state)[0]
    before = timezone.now()
    with journal.capture() as captured:
        services.act(player=players[seat], table_id=table.pk,
                     action=engine.legal_actions(table.state, seat)[0],
                     expected_version=table.version)
    assert [change.tasks for change in captured.changes] == [[]]
    assert queued == []
    table.refresh_from_db()
    assert before + timedelta(seconds=29) < table.deadline <= timezone.now() + timedelta(seconds=30)


def test_the_sweep_queues_each_clock_that_runs_out_before_its_next_run_to_its_deadline(queued):
    now = timezone.now()
    soon, _ = clocked_table(name="soon")
    later, _ = clocked_table(name="later")
    Table.objects.filter(pk=soon.pk).update(deadline=now + timedelta(seconds=0.4))
    Table.objects.filter(pk=later.pk).update(deadline=now + timedelta(seconds=5))
    assert services.sweep_deadlines(now=now, ahead=1.0) == 1
    [(name, table_id, version, countdown)] = queued
    assert (name, table_id, version) == ("turn_timeout", soon.pk, soon.version)
    assert countdown == pytest.approx(0.4, abs=1e-6)  # on time, not at the next sweep
    queued.clear()
    Table.objects.filter(pk=later.pk).update(deadline=now - timedelta(seconds=3))
    assert services.sweep_deadlines(now=now, ahead=1.0) == 2
    assert sorted((table_id, countdown) for _, table_id, _, countdown in queued) == sorted(
        [(soon.pk, pytest.approx(0.4, abs=1e-6)), (later.pk, 0.0)])  # a missed one at once


def _late_observed() -> tuple[float, float]:
    count = metrics.registry().get_sample_value("stapel_turn_clock_late_seconds_count") or 0
    total = metrics.registry().get_sample_value("stapel_turn_clock_late_seconds_sum") or 0
    return count, total


def test_a_timeout_queued_twice_plays_the_default_action_once_and_its_lateness_is_measured():
    table, _ = clocked_table()
    Table.objects.filter(pk=table.pk).update(deadline=timezone.now() - timedelta(seconds=1.5))
    count, total = _late_observed()
    assert services.turn_timeout(table_id=table.pk, expected_version=table.version) is True
    assert services.turn_timeout(table_id=table.pk, expected_version=table.version) is False
    after_count, after_total = _late_observed()
    assert after_count == count + 1 and 1.5 <= after_total - total < 5


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's HOT updates")
def test_no_index_of_the_table_row_holds_a_column_a_move_writes():
    """A move writes these columns; were any indexed, PostgreSQL could not update the row
    in place (HOT) and would add an entry to every index of games_table per move."""
    with connection.cursor() as cursor:
        cursor.execute("""
            SELECT i.indexrelid::regclass::text, a.attname
              FROM pg_index i JOIN pg_attribute a
                ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
             WHERE i.indrelid = 'games_table'::regclass""")
        indexed = cursor.fetchall()
        cursor.execute("SELECT count(*) FROM pg_index WHERE indrelid = 'games_table'::regclass "
                       "AND (indexprs IS NOT NULL OR indpred IS NOT NULL)")
        [(expressions,)] = cursor.fetchall()
    assert indexed and expressions == 0
    assert [(index, column) for index, column in indexed
            if column in journal.STATE_FIELDS] == []
