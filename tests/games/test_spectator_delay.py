"""The spectator delay: its settings per table (createTable) and per tournament (its tables
inherit it), validated with a typed error; and the delay itself. A reader who does not sit at
the table (a player who left among them) and is not staff sees it as it stood after the last
entry at least the delay old, over HTTP and on the websocket; seated players and staff at
once; delay 0 is today's path (docs/api.md)."""

import asyncio
from datetime import UTC, datetime

import pytest
from channels.db import database_sync_to_async

from accounts import services as account_services
from accounts.models import Player
from games import journal, realtime, scheduling, selectors, services
from games.engine import GAMES
from games.models import Seat, Table, TableLogEntry
from tests.api.test_tables import CREATE, guest
from tests.tournaments.helpers import bot_tournament
from tournaments import services as tournament_services
from tournaments.models import TournamentTable

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_table_takes_a_spectator_delay_of_up_to_an_hour(gql):
    alice = guest(gql, "Alice")
    made = alice(CREATE.replace("seatCount options", "seatCount options spectatorDelaySeconds"),
                 {"input": {"game": "kato", "spectatorDelaySeconds": 90}})["createTable"]
    assert made["errors"] == [] and made["table"]["spectatorDelaySeconds"] == 90
    assert Table.objects.get(public_id=made["table"]["id"]).spectator_delay_seconds == 90
    for bad in (-1, 3601):
        refused = alice(CREATE, {"input": {"game": "kato", "spectatorDelaySeconds": bad}})[
            "createTable"]
        assert refused["errors"][0]["code"] == "invalid_spectator_delay"
        assert refused["errors"][0]["field"] == "spectatorDelaySeconds"
    default = alice(CREATE.replace("seatCount options", "seatCount spectatorDelaySeconds"),
                    {"input": {"game": "kato"}})["createTable"]["table"]
    assert default["spectatorDelaySeconds"] == 0


ROUNDS = """query($id: ID!) { tournament(id: $id) { rounds { tables { status placings
  table { status } } } } }"""


def test_a_tournaments_tables_inherit_its_spectator_delay(gql, monkeypatch):
    org, t = bot_tournament(game="kato", format="swiss", players=4, options={"rounds": 1},
                            table_size=4, rounds=1, spectator_delay_seconds=120)
    tournament_services.tournament_start(actor=org, tournament_id=t.pk)
    link = TournamentTable.objects.get(round__tournament=t)
    assert link.table.spectator_delay_seconds == 120
    assert scheduling.wait_idle(timeout=120)
    # Its end reaches a watcher of the tournament 120 s late too, placings with it.
    table = Table.objects.get(pk=link.table_id)
    assert table.status == "finished"
    logged_at(table.pk, T0, upto=table.last_seq - 1)
    logged_at(table.pk, T0 + 10, after=table.last_seq - 1)
    watcher = client_of(gql, person("Carol"))
    clock_at(monkeypatch, T0 + 125)
    (seen,) = watcher(ROUNDS, {"id": str(t.pk)})["tournament"]["rounds"][0]["tables"]
    assert (seen["status"], seen["placings"], seen["table"]["status"]) == (
        "playing", None, "PLAYING")
    clock_at(monkeypatch, T0 + 131)
    (seen,) = watcher(ROUNDS, {"id": str(t.pk)})["tournament"]["rounds"][0]["tables"]
    assert (seen["status"], seen["table"]["status"]) == ("finished", "FINISHED")
    assert seen["placings"]


def test_a_tournament_refuses_a_delay_over_an_hour():
    from tournaments.errors import TournamentError

    with pytest.raises(TournamentError) as refused:
        bot_tournament(game="kato", format="swiss", players=4, options={}, table_size=4,
                       spectator_delay_seconds=4000)
    assert refused.value.code == "invalid_spectator_delay"


# --- the delay itself: every read of a non-seated, non-staff person lags ---------------------

T0 = 1_700_000_000.0  # the setup's entries are logged "at" T0; the test moves the clock

READ = """query($id: ID!) { table(id: $id) { status version lastSeq mySeat roundNumber result
  finishedAt view { ... on KatoView { version top handCounts actors } }
  events(limit: 500) { seq kind } roundResults { roundNumber } } }"""


def person(name, **extra):
    return Player.objects.create(username=name.lower(), display_name=name, **extra)


def client_of(gql, player):
    return type(gql)(gql.client, account_services.api_token_create(player=player, name="t")[1])


def delayed_match(delay, names=("Alice", "Bob")):
    alice, bob = person(names[0]), person(names[1])
    table = services.table_create(creator=alice, game="kato", seat_count=2,
                                  options={"rounds": 1}, spectator_delay_seconds=delay)
    services.table_join(player=bob, table_id=table.pk)
    table = services.table_start(player=alice, table_id=table.pk)
    return table, alice, bob


def move(table_pk):
    """The first legal action of whoever is to act."""
    table = Table.objects.get(pk=table_pk)
    engine = GAMES[table.game]
    position = engine.actors(table.state)[0]
    player = Seat.objects.get(table=table, position=position).player
    return services.act(player=player, table_id=table.pk,
                        action=engine.legal_actions(table.state, position)[0],
                        expected_version=table.version).seq


def logged_at(table_pk, when, *, after=0, upto=None):
    entries = TableLogEntry.objects.filter(table_id=table_pk, seq__gt=after)
    if upto is not None:
        entries = entries.filter(seq__lte=upto)
    entries.update(created_at=datetime.fromtimestamp(when, tz=UTC))


def clock_at(monkeypatch, when):
    monkeypatch.setattr(selectors, "delay_clock", lambda: when)


def test_a_spectator_reads_the_table_as_it_stood_a_delay_ago(gql, monkeypatch):
    table, alice, bob = delayed_match(60)
    started = table.last_seq
    view_at_start = selectors.view_for(Table.objects.get(pk=table.pk), None)
    moved = move(table.pk)
    logged_at(table.pk, T0, upto=started)
    logged_at(table.pk, T0 + 10, after=started)
    carol, mod = person("Carol"), person("Mod", is_staff=True)
    readers = {"alice": client_of(gql, alice), "carol": client_of(gql, carol),
               "mod": client_of(gql, mod), "anonymous": gql}

    def read(who):
        return readers[who](READ, {"id": table.public_id})["table"]

    clock_at(monkeypatch, T0 + 65)  # the deal is a minute old, the move not yet
    for who in ("carol", "anonymous"):
        seen = read(who)
        assert (seen["status"], seen["version"], seen["lastSeq"]) == ("PLAYING", 1, started)
        assert seen["view"]["version"] == 1
        assert seen["view"]["handCounts"] == view_at_start["data"]["hand_counts"]
        assert seen["view"]["top"] == view_at_start["data"]["top"]
        assert seen["view"]["actors"] == view_at_start["data"]["actors"]
        assert max(e["seq"] for e in seen["events"]) == started
    for who in ("alice", "mod"):  # seated and staff: never delayed
        seen = read(who)
        assert (seen["version"], seen["lastSeq"]) == (2, moved)
        assert max(e["seq"] for e in seen["events"]) == moved

    clock_at(monkeypatch, T0 + 30)  # not even the deal yet: an open table
    seen = read("carol")
    assert (seen["status"], seen["version"], seen["view"], seen["roundNumber"]) == (
        "OPEN", 0, None, 0)
    assert all(e["kind"] != "start" for e in seen["events"])

    clock_at(monkeypatch, T0 + 71)  # a minute after the move: all of it
    seen = read("carol")
    assert (seen["version"], seen["lastSeq"], seen["view"]["version"]) == (2, moved, 2)


def test_a_player_who_left_reads_delayed_like_a_spectator(gql, monkeypatch):
    table, alice, bob = delayed_match(60)
    started = table.last_seq
    logged_at(table.pk, T0, upto=started)
    services.table_leave(player=bob, table_id=table.pk)  # logged now: not a minute old
    clock_at(monkeypatch, T0 + 65)
    seen = client_of(gql, bob)(READ, {"id": table.public_id})["table"]
    assert (seen["mySeat"], seen["lastSeq"]) == (None, started)
    assert client_of(gql, alice)(READ, {"id": table.public_id})["table"]["lastSeq"] > started
    assert scheduling.wait_idle(timeout=120)


def test_the_end_of_a_match_and_its_replay_wait_for_the_delay(gql, client, monkeypatch):
    from tests.games.test_replays import REPLAY, _export
    from tests.tournaments.helpers import bots, organiser

    table = services.table_create_seated(creator=organiser("org"), game="kato",
                                         options={"rounds": 2}, players=bots(3),
                                         spectator_delay_seconds=60)
    assert scheduling.wait_idle(timeout=120)
    table.refresh_from_db()
    assert table.status == "finished"
    first_round_end = TableLogEntry.objects.filter(table=table, kind="next_round").order_by(
        "seq").first().seq
    logged_at(table.pk, T0, upto=first_round_end)
    logged_at(table.pk, T0 + 10, after=first_round_end)
    # The rebuilt state of the last move is the stored final state (the end deals nothing).
    assert selectors.table_as_of(table, table.last_seq - 1).state == table.state

    carol = client_of(gql, person("Carol"))
    clock_at(monkeypatch, T0 + 65)  # the first round ended a minute ago, the match not yet
    seen = carol(READ, {"id": table.public_id})["table"]
    assert (seen["status"], seen["result"], seen["finishedAt"], seen["lastSeq"]) == (
        "PLAYING", None, None, first_round_end)
    assert seen["roundNumber"] == 2 and seen["roundResults"] == [{"roundNumber": 1}]
    assert seen["view"]["version"] == TableLogEntry.objects.get(
        table=table, seq=first_round_end).version
    body = carol.raw(REPLAY, {"id": table.public_id}).json()
    assert body["errors"][0]["extensions"]["code"] == "not_finished"
    assert _export(client, table.public_id, carol.token).status_code == 409
    lobby = "query($s: TableStatusEnum) { tables(status: $s) { items { id status } } }"
    assert table.public_id not in [t["id"] for t in gql(lobby, {"s": "FINISHED"})["tables"][
        "items"]]

    clock_at(monkeypatch, T0 + 71)
    seen = carol(READ, {"id": table.public_id})["table"]
    assert seen["status"] == "FINISHED" and seen["result"] is not None
    assert len(seen["roundResults"]) == 2
    assert carol(REPLAY, {"id": table.public_id})["tableReplay"]["seed"] == str(table.seed)
    assert _export(client, table.public_id, carol.token).status_code == 200


# --- live: the spectators' copies are held on their sockets ----------------------------------

WATCH = """subscription($id: ID!, $after: Int!) { tableEvents(tableId: $id, afterSeq: $after) {
  seq kind version status
  view { ... on KatoView { version } } } }"""


async def _watch(player, table_id, after=0):
    from tests.api.test_live_path import connect

    token = await database_sync_to_async(
        lambda: account_services.api_token_create(player=player, name="ws")[1])()
    comm = await connect(token)
    await comm.send_json_to({"id": "w", "type": "subscribe",
                             "payload": {"query": WATCH,
                                         "variables": {"id": table_id, "after": after}}})
    return comm


async def _frames_until(comm, seq):
    """Each frame's update with the delay clock when it arrived."""
    out = []
    while True:
        message = await comm.receive_json_from(timeout=15)
        assert message["type"] == "next", message
        update = message["payload"]["data"]["tableEvents"]
        out.append((update, selectors.delay_clock()))
        if update["seq"] >= seq:
            return out


async def test_spectators_sockets_get_each_change_after_the_delay_players_at_once(monkeypatch):
    offset = [-1000.0]  # first the clock stands still far back: nothing held is due
    real = selectors.delay_clock
    monkeypatch.setattr(selectors, "delay_clock", lambda: real() + offset[0])
    table, alice, bob = await database_sync_to_async(delayed_match)(5)
    carol, mod = await database_sync_to_async(
        lambda: (person("Carol"), person("Mod", is_staff=True)))()
    sockets = {name: await _watch(who, table.public_id)
               for name, who in (("alice", alice), ("bob", bob), ("carol", carol),
                                 ("mod", mod))}
    for name in ("alice", "bob", "mod"):
        await _frames_until(sockets[name], table.last_seq)
    assert await sockets["carol"].receive_nothing(timeout=0.5)  # the deal is held

    moved = await database_sync_to_async(move)(table.pk)
    for name in ("alice", "bob", "mod"):
        assert (await _frames_until(sockets[name], moved))[-1][0]["version"] == 2
    await database_sync_to_async(services.table_leave)(player=bob, table_id=table.pk)
    left = moved + 1
    assert (await _frames_until(sockets["alice"], left))[-1][0]["kind"] == "seats"
    # Bob left: from now on he watches, delayed; Carol still has nothing.
    assert await sockets["bob"].receive_nothing(timeout=0.5)
    assert await sockets["carol"].receive_nothing(timeout=0.1)

    # Nor does a refusal tell her how far the table is.
    probe = await _watch(carol, table.public_id, after=moved)
    refused = await probe.receive_json_from(timeout=10)
    (error,) = refused["payload"]["errors"]
    assert error["extensions"]["code"] == "bad_after_seq"
    assert error["extensions"]["lastSeq"] == 0
    await probe.disconnect()

    offset[0] = 1000.0  # all of it is due: it comes, in order, each with its view
    frames = await _frames_until(sockets["carol"], left)
    assert [u["seq"] for u, _ in frames] == list(range(1, left + 1))
    assert frames[-1][0]["view"]["version"] == 2
    bob_frames = await _frames_until(sockets["bob"], left)
    assert [u["seq"] for u, _ in bob_frames] == [left]
    for comm in sockets.values():
        await comm.disconnect()
    await database_sync_to_async(scheduling.wait_idle)(timeout=120)


@pytest.mark.parametrize("fast", [True, False], ids=["compiled", "strawberry"])
async def test_a_spectators_socket_lags_by_the_real_delay(fast, settings):
    settings.STAPEL_LIVE_FAST_PATH = fast
    delay = 1
    table, alice, bob = await database_sync_to_async(delayed_match)(delay)
    carol = await database_sync_to_async(person)("Carol")
    spectator = await _watch(carol, table.public_id)
    player = await _watch(alice, table.public_id)
    await _frames_until(player, table.last_seq)
    moved = await database_sync_to_async(move)(table.pk)
    await _frames_until(player, moved)
    frames = await _frames_until(spectator, moved)
    logged = await database_sync_to_async(lambda: dict(
        TableLogEntry.objects.filter(table=table).values_list("seq", "created_at")))()
    assert [u["seq"] for u, _ in frames] == sorted(logged)
    for update, arrived in frames:
        assert arrived >= logged[update["seq"]].timestamp() + delay
    assert frames[-1][0]["view"]["version"] == 2
    for comm in (spectator, player):
        await comm.disconnect()


# --- delay 0 is today's path ------------------------------------------------------------------

def test_without_a_delay_a_move_publishes_and_queries_as_before():
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    counts, spectators = {}, {}
    for delay in (0, 30):
        table, _, _ = delayed_match(delay, names=(f"Alice{delay}", f"Bob{delay}"))
        with journal.capture() as captured, CaptureQueriesContext(connection) as queries:
            move(table.pk)
        counts[delay] = len(queries)
        ((_, message),) = [m for m in captured.changes[0].messages
                           if m[1]["audience"] == realtime.SPECTATORS]
        spectators[delay] = message
    assert counts[0] == counts[30]  # a delayed table's move costs no statement more
    assert "at" not in spectators[0] and "delay" not in spectators[0]
    assert spectators[30]["delay"] == 30 and spectators[30]["at"] > 0


async def test_the_lobby_hears_of_a_delayed_table_after_its_delay_staff_at_once(monkeypatch):
    from tests.api.test_live_path import connect

    offset = [-1000.0]
    real = selectors.delay_clock
    monkeypatch.setattr(selectors, "delay_clock", lambda: real() + offset[0])
    carol, mod = await database_sync_to_async(
        lambda: (person("Carol"), person("Mod", is_staff=True)))()
    sockets = {}
    for name, who in (("carol", carol), ("mod", mod)):
        token = await database_sync_to_async(
            lambda who=who: account_services.api_token_create(player=who, name="ws")[1])()
        sockets[name] = comm = await connect(token)
        await comm.send_json_to({"id": "l", "type": "subscribe", "payload": {
            "query": "subscription { lobbyEvents { tableId status } }"}})
    await asyncio.sleep(0.3)  # both listen before the table opens
    delayed, _, _ = await database_sync_to_async(delayed_match)(5)
    plain, _, _ = await database_sync_to_async(delayed_match)(0, names=("Ann", "Ben"))

    async def heard(comm, table_id):
        while True:
            message = await comm.receive_json_from(timeout=10)
            if message["payload"]["data"]["lobbyEvents"]["tableId"] == table_id:
                return message

    await heard(sockets["mod"], delayed.public_id)
    await heard(sockets["carol"], plain.public_id)  # not kept waiting behind the held ones
    await heard(sockets["mod"], plain.public_id)
    while not await sockets["carol"].receive_nothing(timeout=0.5):  # the plain table's rest
        message = await sockets["carol"].receive_json_from()
        assert message["payload"]["data"]["lobbyEvents"]["tableId"] == plain.public_id
    offset[0] = 1000.0
    assert (await heard(sockets["carol"], delayed.public_id))["type"] == "next"
    for comm in sockets.values():
        await comm.disconnect()


async def test_a_change_the_fan_out_dropped_is_filled_from_the_log_when_its_turn_comes(
        monkeypatch):
    from games import fanout

    offset = [-1000.0]
    real = selectors.delay_clock
    monkeypatch.setattr(selectors, "delay_clock", lambda: real() + offset[0])
    table, alice, bob = await database_sync_to_async(delayed_match)(5)
    carol = await database_sync_to_async(person)("Carol")
    spectator = await _watch(carol, table.public_id)
    assert await spectator.receive_nothing(timeout=0.5)
    deliver = fanout._LOCAL.deliver
    dropped = []

    def drop_the_spectators_copy_once(messages):
        kept = [(c, m) for c, m in messages
                if dropped or m["audience"] != realtime.SPECTATORS]
        dropped.extend(m["seq"] for _, m in messages if (_, m) not in kept)
        deliver(kept)

    monkeypatch.setattr(fanout._LOCAL, "deliver", drop_the_spectators_copy_once)
    await database_sync_to_async(move)(table.pk)
    last = await database_sync_to_async(move)(table.pk)
    assert len(dropped) == 1 and dropped[0] == last - 1
    offset[0] = 1000.0
    frames = await _frames_until(spectator, last)
    assert [u["seq"] for u, _ in frames] == list(range(1, last + 1))
    assert frames[-1][0]["view"]["version"] == 3
    await spectator.disconnect()
