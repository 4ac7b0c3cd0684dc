"""Finding 6: a private table answered outsiders with its seats, options, status and result.
To an outsider (not seated, not its creator, not staff, no invite code) it answers exactly as
a table that does not exist, in every query, subscription and mutation."""

import pytest
from channels.testing import WebsocketCommunicator

from accounts.models import Player
from config.asgi import application
from games.models import Table, new_public_id
from tests.api.test_tables import ACT, CREATE, JOIN, guest

pytestmark = pytest.mark.django_db(transaction=True)

TABLE = "query($id: ID!) { table(id: $id) { id status seats { player { displayName } } } }"
MUTATIONS = [
    (JOIN, {}),
    ("mutation($id: ID!) { leaveTable(tableId: $id) { errors { code field } } }", {}),
    ("mutation($id: ID!) { startTable(tableId: $id) { errors { code field } } }", {}),
    ("mutation($id: ID!) { abortTable(tableId: $id) { errors { code field } } }", {}),
    ("mutation($id: ID!) { addBot(tableId: $id) { errors { code field } } }", {}),
    ("mutation($id: ID!) { removeBot(tableId: $id, seat: 1) { errors { code field } } }", {}),
    (ACT, {"a": {"draw": True}, "v": 1}),
    ("mutation($id: ID!) { sendChatMessage(tableId: $id, text: \"hi\") "
     "{ errors { code field } } }", {}),
]


@pytest.fixture
def alice(gql):
    return guest(gql, "Alice")


@pytest.fixture
def mallory(gql):
    return guest(gql, "Mallory")


@pytest.fixture
def private_id(alice, gql):
    bob = guest(gql, "Bob")
    table = alice(CREATE, {"input": {"game": "kato", "seatCount": 3, "visibility": "PRIVATE",
                                     "options": {"rounds": 1}}})["createTable"]["table"]
    assert bob(JOIN, {"id": table["id"], "code": table["inviteCode"]})["joinTable"]["errors"] == []
    return table["id"]


def _missing_id():
    """Shaped like a table's id, but no table has it."""
    while Table.objects.filter(public_id=(candidate := new_public_id())).exists():
        pass
    return candidate


def _errors(data):
    (payload,) = data.values()
    return [(e["code"], e.get("field")) for e in payload["errors"]]


def test_an_outsider_reads_a_private_table_as_a_missing_one(alice, mallory, private_id, gql):
    assert mallory(TABLE, {"id": private_id}) == {"table": None}
    assert mallory(TABLE, {"id": _missing_id()}) == {"table": None}
    anonymous = type(gql)(gql.client)
    assert anonymous(TABLE, {"id": private_id}) == {"table": None}
    # Its players and its creator still see it.
    assert alice(TABLE, {"id": private_id})["table"]["id"] == private_id


@pytest.mark.parametrize("mutation,extra", MUTATIONS)
def test_every_mutation_answers_an_outsider_as_for_a_missing_table(mallory, private_id,
                                                                   mutation, extra):
    private = _errors(mallory(mutation, {"id": private_id, **extra}))
    missing = _errors(mallory(mutation, {"id": _missing_id(), **extra}))
    assert private == missing == [("not_found", "tableId")]


def test_staff_and_the_invite_code_still_open_a_private_table(mallory, private_id, alice):
    code = alice(TABLE.replace("status", "status inviteCode"), {"id": private_id})
    code = code["table"]["inviteCode"]
    joined = mallory(JOIN, {"id": private_id, "code": code})["joinTable"]
    assert joined["errors"] == [] and joined["table"]["mySeat"] == 2
    Player.objects.filter(display_name="Mallory").update(is_staff=True)
    assert mallory(TABLE, {"id": private_id})["table"]["id"] == private_id


def test_a_report_pointing_at_a_private_table_answers_as_for_a_missing_one(mallory,
                                                                          private_id):
    bob = Player.objects.get(display_name="Bob")
    query = """mutation($p: ID!, $t: ID) { reportPlayer(playerId: $p, reason: "rude",
        tableId: $t) { errors { code field } } }"""
    assert (_errors(mallory(query, {"p": str(bob.pk), "t": private_id}))
            == _errors(mallory(query, {"p": str(bob.pk), "t": _missing_id()}))
            == [("not_found", "tableId")])


async def test_the_subscription_answers_an_outsider_as_for_a_missing_table(mallory,
                                                                           private_id):
    from channels.db import database_sync_to_async

    missing = await database_sync_to_async(_missing_id)()
    comm = WebsocketCommunicator(application, "/graphql/", subprotocols=["graphql-transport-ws"])
    await comm.connect()
    await comm.send_json_to({"type": "connection_init", "payload": {"token": mallory.token}})
    assert (await comm.receive_json_from(timeout=5))["type"] == "connection_ack"
    answers = []
    for op_id, table_id in (("1", private_id), ("2", missing)):
        await comm.send_json_to({"id": op_id, "type": "subscribe", "payload": {
            "query": "subscription($id: ID!) { tableEvents(tableId: $id) { seq } }",
            "variables": {"id": table_id}}})
        msg = await comm.receive_json_from(timeout=5)
        answers.append([(e["extensions"]["code"], e["message"])
                        for e in msg["payload"]["errors"]])
        assert (await comm.receive_json_from(timeout=5))["type"] == "complete"
    assert answers[0] == answers[1] and answers[0][0][0] == "not_found"
    await comm.disconnect()

