"""A move costs two SQL round trips on PostgreSQL (one read, one version-checked write of the
row and the log entry in one statement), and a race lost between the two is judged again
under the lock with the usual answers."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import Player
from games import journal, selectors, services
from games.engine import GAMES
from games.models import Table, TableLogEntry

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _postgresql():
    if connection.vendor != "postgresql":
        pytest.skip("the two-statement move is PostgreSQL's")


def table_of_two():
    alice = Player.objects.create(username="alice", display_name="Alice")
    bob = Player.objects.create(username="bob", display_name="Bob")
    table = services.table_create(creator=alice, game="kato", seat_count=2,
                                  options={"rounds": 1})
    services.table_join(player=bob, table_id=table.pk)
    table = services.table_start(player=alice, table_id=table.pk)
    return table, {0: alice, 1: bob}


def next_move(table_id):
    table = Table.objects.get(pk=table_id)
    engine = GAMES[table.game]
    seat = engine.actors(table.state)[0]
    return table, seat, engine.legal_actions(table.state, seat)[0]


def test_a_move_is_two_round_trips_and_logged_with_its_key():
    table, players = table_of_two()
    table, seat, action = next_move(table.pk)
    with CaptureQueriesContext(connection) as queries, journal.capture() as captured:
        result = services.act(player=players[seat], table_id=table.pk, action=action,
                              expected_version=table.version, idempotency_key="k1")
    assert len(queries.captured_queries) == 2, [q["sql"][:60] for q in queries]
    assert len(captured.changes) == 1 and captured.changes[0].entry.seq == result.seq
    entry = TableLogEntry.objects.get(table=table, seq=result.seq)
    assert (entry.kind, entry.seat, entry.action, entry.version, entry.status) == (
        "action", seat, action, table.version + 1, "playing")
    assert entry.idempotency_key == f"{players[seat].pk}:k1"
    after = Table.objects.get(pk=table.pk)
    assert (after.version, after.last_seq) == (table.version + 1, result.seq)
    # The same key again: one read, nothing written, the stored answer.
    with CaptureQueriesContext(connection) as queries:
        again = services.act(player=players[seat], table_id=table.pk, action=action,
                             expected_version=table.version, idempotency_key="k1")
    assert len(queries.captured_queries) == 1
    assert (again.seq, again.version, again.replayed) == (result.seq, result.version, True)


def test_a_race_lost_between_read_and_write_is_judged_under_the_lock(monkeypatch):
    table, players = table_of_two()
    table, seat, action = next_move(table.pk)
    original = selectors.move_snapshot

    def snapshot_then_someone_else_moves(table_id, key):
        snapshot = original(table_id, key)
        monkeypatch.setattr(selectors, "move_snapshot", original)  # once
        services.act(player=players[seat], table_id=table_id, action=action,
                     expected_version=table.version, idempotency_key="other-tab")
        return snapshot

    monkeypatch.setattr(selectors, "move_snapshot", snapshot_then_someone_else_moves)
    with pytest.raises(services.GameError) as refused:
        services.act(player=players[seat], table_id=table.pk, action=action,
                     expected_version=table.version, idempotency_key="this-tab")
    assert refused.value.code == "stale_version"
    assert TableLogEntry.objects.filter(table=table, kind="action").count() == 1


def test_moves_that_need_the_locked_path_still_answer_as_before():
    table, players = table_of_two()
    table, seat, action = next_move(table.pk)
    other = players[1 - seat]
    with pytest.raises(services.GameError) as refused:
        services.act(player=other, table_id=table.pk, action=action,
                     expected_version=table.version)
    assert refused.value.code == "not_your_turn"
    stranger = Player.objects.create(username="carol", display_name="Carol")
    with pytest.raises(services.GameError) as refused:
        services.act(player=stranger, table_id=table.pk, action=action,
                     expected_version=table.version)
    assert refused.value.code == "not_seated"
    with pytest.raises(services.GameError) as refused:
        services.act(player=players[seat], table_id=table.pk, action=action,
                     expected_version=table.version - 1)
    assert refused.value.code == "stale_version"
