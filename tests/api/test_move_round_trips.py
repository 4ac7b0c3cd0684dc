"""A move costs two SQL round trips on PostgreSQL (one read, one checked write of the row and
the log entry in one statement), and one where this process made the table's last change
(the write alone, from the table it remembers); a race lost between read and write is judged
again under the lock with the usual answers, and a remembered table that is no longer what
is stored is read afresh."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import Player
from games import chat, journal, selectors, services
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


def test_a_bot_move_is_two_round_trips_too(monkeypatch):
    from games import scheduling

    monkeypatch.setattr(scheduling, "enqueue", lambda *a, **k: None)  # the test plays the bot
    alice = Player.objects.create(username="alice", display_name="Alice")
    table = services.table_create(creator=alice, game="kato", seat_count=2,
                                  options={"rounds": 1})
    services.bot_add(player=alice, table_id=table.pk, level="random")
    table = services.table_start(player=alice, table_id=table.pk)
    engine = GAMES[table.game]
    for _ in range(20):
        table = Table.objects.get(pk=table.pk)
        if engine.is_round_over(table.state):
            break
        if 1 not in engine.actors(table.state):
            services.act(player=alice, table_id=table.pk, expected_version=table.version,
                         action=engine.legal_actions(table.state, 0)[0])
            continue
        with CaptureQueriesContext(connection) as queries:
            assert services.bot_turn(table_id=table.pk, expected_version=table.version)
        assert len(queries.captured_queries) == 2
        entry = TableLogEntry.objects.get(table=table, seq=table.last_seq + 1)
        assert (entry.kind, entry.seat, entry.version) == ("bot", 1, table.version + 1)
        # Queued twice (a redelivery, the sweep): the second finds the world moved on.
        assert services.bot_turn(table_id=table.pk, expected_version=table.version) is False
        return
    pytest.skip("the bot never got a turn in this deal")


def test_the_next_move_at_a_table_this_process_wrote_is_one_round_trip():
    table, players = table_of_two()
    for i in range(6):
        table, seat, action = next_move(table.pk)
        with CaptureQueriesContext(connection) as queries:
            result = services.act(player=players[seat], table_id=table.pk, action=action,
                                  expected_version=table.version, idempotency_key=f"m{i}")
        # The first move reads the table; every later one starts from the remembered one.
        assert len(queries.captured_queries) == (2 if i == 0 else 1), i
        assert "UPDATE" in queries.captured_queries[-1]["sql"]
        entry = TableLogEntry.objects.get(table=table, seq=result.seq)
        assert (entry.seat, entry.action, entry.version) == (seat, action, table.version + 1)
        stored = Table.objects.get(pk=table.pk)
        expected_state, _ = GAMES["kato"].apply(table.state, seat, action)
        assert (stored.version, stored.last_seq, stored.state) == (
            result.version, result.seq, expected_state)
    # The key of a move made from the remembered table answers as always.
    again = services.act(player=players[seat], table_id=table.pk, action=action,
                         expected_version=table.version, idempotency_key="m5")
    assert (again.seq, again.replayed, again.key_reused) == (result.seq, True, False)


def test_a_remembered_table_that_changed_meanwhile_is_read_afresh():
    table, players = table_of_two()
    table, seat, action = next_move(table.pk)
    services.act(player=players[seat], table_id=table.pk, action=action,
                 expected_version=table.version)
    # Another writer appends to the log (a chat line, not a move: the version stays).
    chat.chat_message_send(player=players[0], table_id=table.pk, text="hello")
    table, seat, action = next_move(table.pk)
    with CaptureQueriesContext(connection) as queries:
        result = services.act(player=players[seat], table_id=table.pk, action=action,
                              expected_version=table.version)
    # The write from the remembered table found the log grown, wrote nothing; read, write.
    assert len(queries.captured_queries) == 3
    assert result.seq == table.last_seq + 1
    entries = list(TableLogEntry.objects.filter(table=table).order_by("seq")
                   .values_list("seq", "kind"))
    assert entries[-2:] == [(table.last_seq, "chat"), (result.seq, "action")]
    assert [seq for seq, _ in entries] == list(range(1, result.seq + 1))


def test_another_process_moved_the_table_the_remembered_one_does_not_judge():
    """Another process moved the table: what this process remembers is older than the
    store. A move judged illegal there, or a write against it, is judged on what is stored."""
    table, players = table_of_two()
    table, seat, action = next_move(table.pk)
    services.act(player=players[seat], table_id=table.pk, action=action,
                 expected_version=table.version)
    remembered_table, _ = selectors.remembered(table.pk)
    table, seat, action = next_move(table.pk)
    services.act(player=players[seat], table_id=table.pk, action=action,
                 expected_version=table.version)
    # As if that move had been made through another process: this one remembers the older
    # table, whose version a late client still expects.
    selectors.remember(table.pk, remembered_table, selectors.move_snapshot(table.pk, None)[1])
    with pytest.raises(services.GameError) as refused:
        services.act(player=players[seat], table_id=table.pk, action=action,
                     expected_version=remembered_table.version)
    assert refused.value.code == "stale_version"
    assert TableLogEntry.objects.filter(table=table, kind="action").count() == 2


def test_a_key_used_again_at_a_later_version_answers_the_first_move():
    """The remembered table holds no keys: the write fails on the key's unique constraint,
    and the move is answered from the log as always."""
    table, players = table_of_two()
    table, first_seat, action = next_move(table.pk)
    first = services.act(player=players[first_seat], table_id=table.pk, action=action,
                         expected_version=table.version, idempotency_key="same")
    for _ in range(30):
        table, seat, action = next_move(table.pk)
        if seat == first_seat and selectors.remembered(table.pk) is not None:
            break
        services.act(player=players[seat], table_id=table.pk, action=action,
                     expected_version=table.version)
    else:
        pytest.skip("the first mover never had the turn again in this deal")
    moves = TableLogEntry.objects.filter(table=table, kind="action").count()
    again = services.act(player=players[seat], table_id=table.pk, action=action,
                         expected_version=table.version, idempotency_key="same")
    assert (again.seq, again.version, again.replayed) == (first.seq, first.version, True)
    assert TableLogEntry.objects.filter(table=table, kind="action").count() == moves
    assert Table.objects.get(pk=table.pk).version == table.version


def test_a_move_is_written_after_the_server_forgot_the_prepared_write():
    """The write is prepared once per connection; a server that dropped it (DISCARD ALL, a
    pooler's reset) gets it prepared again, and the move is stored as any other."""
    table, players = table_of_two()
    table, seat, action = next_move(table.pk)
    services.act(player=players[seat], table_id=table.pk, action=action,
                 expected_version=table.version)
    with connection.cursor() as cursor:
        cursor.execute("DEALLOCATE ALL")
    table, seat, action = next_move(table.pk)
    result = services.act(player=players[seat], table_id=table.pk, action=action,
                          expected_version=table.version, idempotency_key="after")
    entry = TableLogEntry.objects.get(table=table, seq=result.seq)
    after = Table.objects.get(pk=table.pk)
    assert (entry.kind, entry.action, entry.idempotency_key) == (
        "action", action, f"{players[seat].pk}:after")
    assert (after.version, after.last_seq, after.changed_at) == (
        table.version + 1, result.seq, entry.created_at)


def test_hot_writes_send_each_kind_of_value_and_answer_with_djangos_errors():
    from django.db import DataError
    from django.utils import timezone

    from config import hotsql
    from games.models import LogKind

    assert hotsql.write(
        "SELECT %s::int + %s::int WHERE %s::bool AND %s::timestamptz <= now() "
        "AND %s::text IS NULL AND %s::text = 'action'",
        [40, 2, True, timezone.now(), None, LogKind.ACTION]) == 42
    assert hotsql.write("SELECT 1 WHERE %s::bool", [False]) is None
    with pytest.raises(DataError) as refused:
        hotsql.write("SELECT 1 / %s::int", [0])
    assert type(refused.value.__cause__).__name__ == "DivisionByZero"
    assert hotsql.write("SELECT %s::int", [7]) == 7  # the connection is usable after it
    # libpq reads text values up to a NUL: one is refused, not cut short and written
    with pytest.raises(DataError):
        hotsql.write("SELECT length(%s::text)", ["ab\x00cd"])


def test_a_hot_read_loads_its_row_as_a_cursor_would_in_a_transaction_or_not():
    from django.db import transaction
    from django.utils import timezone

    from config import hotsql

    sql = ("SELECT %s::int, %s::text, %s::timestamptz, '{\"a\": [1]}'::jsonb, "
           "json_build_object('b', %s::bool), NULL::int")
    params = [3, "drei", timezone.now(), True]
    outside = hotsql.fetch_one(sql, params, autocommit=False)  # on libpq
    with transaction.atomic():
        inside = hotsql.fetch_one(sql, params, autocommit=False)  # on psycopg's cursor
    assert outside == inside and outside[:3] == tuple(params[:3]) and outside[5] is None
    assert hotsql.fetch_one("SELECT 1 WHERE %s::bool", [False]) is None


def test_the_state_a_move_rewrites_is_stored_with_lz4():
    # Cheaper for PostgreSQL to compress than pglz on every move (games/migrations/0009).
    table, _ = table_of_two()
    with connection.cursor() as cursor:
        cursor.execute("SELECT attcompression FROM pg_attribute WHERE attname = 'state' "
                       "AND attrelid = 'games_table'::regclass")
        assert cursor.fetchone()[0] == "l"
        cursor.execute("SELECT pg_column_compression(state) FROM games_table WHERE id = %s",
                       [table.pk])
        assert cursor.fetchone()[0] in ("lz4", None)  # None: stored short, uncompressed


def test_a_move_s_log_entry_writes_one_index_by_table():
    # The unique (table, seq) index serves every lookup of a table's log (games/migrations/
    # 0010): a second index on the table column alone would only be written by every move.
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, "games_tablelogentry")
    by_table = sorted(c["columns"] for c in constraints.values()
                      if (c["index"] or c["unique"]) and c["columns"][0] == "table_id")
    assert by_table == [["table_id", "idempotency_key"], ["table_id", "seq"]]
