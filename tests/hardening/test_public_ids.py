"""Finding 6 (second half): table ids were a counter, so anyone could walk them in sequence
(and learn how many tables there are). A table's id, wherever it leaves the server, is now a
random public id (``Table.public_id``); the integer key stays internal, and sent as an id it
finds nothing, as a table that does not exist."""

import asyncio
import re

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import Permission
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from accounts.models import Player
from config.asgi import application
from games import moderation, scheduling
from games.models import Table
from tests.api.test_tables import ACT, CREATE, JOIN, START, guest, two_player_table
from tests.tournaments.helpers import bot_tournament
from tournaments import services as tournament_services
from tournaments import webhooks
from tournaments.models import TournamentRound

pytestmark = pytest.mark.django_db(transaction=True)

PUBLIC_ID = re.compile(r"[A-Za-z0-9_-]{12}")
TABLE = "query($id: ID!) { table(id: $id) { id events { tableId seq } } }"
SAY = """mutation($id: ID!) { sendChatMessage(tableId: $id, text: "hi") {
  message { tableId } errors { code field } } }"""
# Every mutation that takes a table id, with what else it needs.
MUTATIONS = [
    (JOIN, {}),
    ("mutation($id: ID!) { leaveTable(tableId: $id) { errors { code field } } }", {}),
    ("mutation($id: ID!) { startTable(tableId: $id) { errors { code field } } }", {}),
    ("mutation($id: ID!) { abortTable(tableId: $id) { errors { code field } } }", {}),
    ("mutation($id: ID!) { addBot(tableId: $id) { errors { code field } } }", {}),
    ("mutation($id: ID!) { removeBot(tableId: $id, seat: 1) { errors { code field } } }", {}),
    (ACT, {"a": {"draw": True}, "v": 1}),
    (SAY, {}),
    ("""mutation($id: ID, $p: ID!) { reportPlayer(playerId: $p, reason: "rude", tableId: $id)
        { errors { code field } } }""", {"p": "bob"}),
]


@pytest.fixture
def alice(gql):
    return guest(gql, "Alice")


@pytest.fixture
def bob(gql):
    return guest(gql, "Bob")


def _payload_errors(data):
    (payload,) = data.values()
    return [(e["code"], e.get("field")) for e in payload["errors"]]


def _pk(public_id):
    return Table.objects.values_list("pk", flat=True).get(public_id=public_id)


def test_a_table_id_is_random_and_not_its_key(alice):
    ids = [alice(CREATE, {"input": {"game": "kato", "seatCount": 2}})["createTable"]["table"]["id"]
           for _ in range(3)]
    assert len(set(ids)) == 3 and all(PUBLIC_ID.fullmatch(i) for i in ids)
    assert not any(i.isdigit() for i in ids)
    assert [str(_pk(i)) for i in ids] != ids


@pytest.mark.parametrize("mutation,extra", MUTATIONS)
def test_an_integer_key_finds_no_table_in_any_mutation(alice, bob, mutation, extra):
    table_id = two_player_table(alice, bob)
    if extra.get("p") == "bob":
        extra = {"p": str(Player.objects.get(display_name="Bob").pk)}
    answer = _payload_errors(alice(mutation, {"id": str(_pk(table_id)), **extra}))
    assert answer == [("not_found", "tableId")]


def test_an_integer_key_finds_no_table_in_queries(alice, bob, gql):
    table_id = two_player_table(alice, bob)
    assert alice(TABLE, {"id": table_id})["table"]["id"] == table_id
    assert alice(TABLE, {"id": str(_pk(table_id))}) == {"table": None}
    # A lobby cursor is a table's public id too, never its key.
    alice(CREATE, {"input": {"game": "kato", "seatCount": 2}})
    alice(CREATE, {"input": {"game": "kato", "seatCount": 2}})
    page = gql("{ tables(first: 1) { items { id } nextCursor } }")["tables"]
    assert page["nextCursor"] == page["items"][0]["id"] and PUBLIC_ID.fullmatch(page["nextCursor"])
    assert gql("query($a: String) { tables(first: 1, after: $a) { items { id } } }",
               {"a": page["nextCursor"]})["tables"]["items"][0]["id"] != page["items"][0]["id"]
    response = gql.raw("query($a: String) { tables(after: $a) { items { id } } }",
                       {"a": str(_pk(page["nextCursor"]))})
    assert response.json()["errors"][0]["extensions"]["code"] == "invalid_cursor"


def test_every_table_id_that_goes_out_is_the_public_one(alice, bob):
    table_id = two_player_table(alice, bob)
    events = alice(TABLE, {"id": table_id})["table"]["events"]
    assert events and {e["tableId"] for e in events} == {table_id}
    mine = alice("{ myTables { id } }")["myTables"]
    assert [t["id"] for t in mine] == [table_id]
    said = alice(SAY, {"id": table_id})["sendChatMessage"]
    assert said == {"message": {"tableId": table_id}, "errors": []}
    staff = Player.objects.get(display_name="Bob")
    staff.is_staff = True
    staff.save()
    staff.user_permissions.add(*Permission.objects.filter(codename__in=["view_auditlog",
                                                                        "abort_table"]))
    moderation.table_abort(actor=Player.objects.get(pk=staff.pk), table_id=_pk(table_id),
                           reason="test")
    log = bob("{ moderationLog { items { action tableId } } }")["moderationLog"]["items"]
    assert {"action": "table_abort", "tableId": table_id} in log


async def _socket(token):
    comm = WebsocketCommunicator(application, "/graphql/", subprotocols=["graphql-transport-ws"])
    await comm.connect()
    await comm.send_json_to({"type": "connection_init", "payload": {"token": token}})
    assert (await comm.receive_json_from(timeout=5))["type"] == "connection_ack"
    return comm


async def test_subscriptions_take_and_give_public_ids_only(alice, bob):
    lobby = await _socket(alice.token)
    await lobby.send_json_to({"id": "l", "type": "subscribe",
                              "payload": {"query": "subscription { lobbyEvents { tableId } }"}})
    await asyncio.sleep(0.5)  # the subscription joins the lobby group (nothing acknowledges it)
    created = await database_sync_to_async(alice)(
        CREATE, {"input": {"game": "kato", "seatCount": 2}})
    table_id = created["createTable"]["table"]["id"]
    msg = await lobby.receive_json_from(timeout=5)
    assert msg["payload"]["data"]["lobbyEvents"]["tableId"] == table_id
    await lobby.disconnect()

    comm = await _socket(alice.token)
    pk = await database_sync_to_async(_pk)(table_id)
    query = "subscription($id: ID!) { tableEvents(tableId: $id) { tableId seq } }"
    await comm.send_json_to({"id": "1", "type": "subscribe",
                             "payload": {"query": query, "variables": {"id": str(pk)}}})
    msg = await comm.receive_json_from(timeout=5)
    assert [e["extensions"]["code"] for e in msg["payload"]["errors"]] == ["not_found"]
    assert (await comm.receive_json_from(timeout=5))["type"] == "complete"
    await comm.send_json_to({"id": "2", "type": "subscribe",
                             "payload": {"query": query, "variables": {"id": table_id}}})
    replayed = (await comm.receive_json_from(timeout=5))["payload"]["data"]["tableEvents"]
    assert replayed == {"tableId": table_id, "seq": 1}
    await database_sync_to_async(bob)(JOIN, {"id": table_id})
    live = (await comm.receive_json_from(timeout=5))["payload"]["data"]["tableEvents"]
    assert live == {"tableId": table_id, "seq": 2}
    await database_sync_to_async(alice)(START, {"id": table_id})
    await comm.disconnect()


def test_tournament_tables_ratings_and_webhooks_carry_public_ids(gql):
    org, t = bot_tournament(game="kato", format="swiss", players=2, options={"rounds": 1},
                            table_size=2, rounds=1)
    tournament_services.tournament_start(actor=org, tournament_id=t.pk)
    assert scheduling.wait_idle(timeout=60)
    public = set(Table.objects.values_list("public_id", flat=True))
    data = gql("""query($id: ID!) { tournament(id: $id) { rounds { tables {
        tableId table { id } } } } }""", {"id": str(t.pk)})["tournament"]
    (link,) = [x for r in data["rounds"] for x in r["tables"]]
    assert link["tableId"] == link["table"]["id"] and link["tableId"] in public
    board = gql('{ leaderboard(game: "kato") { rating { history { tableId } } } }')
    assert {h["tableId"] for e in board["leaderboard"] for h in e["rating"]["history"]} == {
        link["tableId"]}
    rnd = TournamentRound.objects.get(tournament=t)
    payload = webhooks._data(t, "tournament.round_started", round=rnd,
                             tables=list(rnd.tables.select_related("table")))
    assert [x["tableId"] for x in payload["tables"]] == [link["tableId"]]


@pytest.mark.skipif(connection.vendor != "postgresql", reason=(
    "SQLite cannot migrate games back to 0005: Django drops the spectator delay column with "
    "ALTER TABLE DROP COLUMN, which SQLite refuses while a CHECK constraint names it; the "
    "half-migrated database then failed every later test of the run"))
def test_the_migration_gives_existing_tables_unique_public_ids():
    executor = MigrationExecutor(connection)
    executor.migrate([("games", "0005_log_entry_status")])
    old = executor.loader.project_state([("games", "0005_log_entry_status")]).apps
    creator = old.get_model("accounts", "Player").objects.create(username="old", password="!")
    OldTable = old.get_model("games", "Table")
    for n in range(3):
        OldTable.objects.create(game="kato", seat_count=2, creator=creator,
                                invite_code=f"code{n}")
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    ids = list(Table.objects.values_list("public_id", flat=True))
    assert len(ids) == 3 == len(set(ids)) and all(PUBLIC_ID.fullmatch(i) for i in ids)
