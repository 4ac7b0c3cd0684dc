"""Findings 8, 9 and 11: an `afterSeq` beyond the last seq is refused typed (it hung); replayed
updates carry the status as of their seq (they read today's); an idempotency key reused with
another action answers the stored result and says so."""

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from config.asgi import application
from games import scheduling, services
from games.models import Table
from games.selectors import table_pk_from_public
from tests.api.test_tables import ACT, VIEW, guest, two_player_table

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def alice(gql):
    return guest(gql, "Alice")


@pytest.fixture
def bob(gql):
    return guest(gql, "Bob")


async def test_after_seq_beyond_the_last_seq_is_bad_after_seq_with_the_last_seq(alice, bob):
    table_id = await database_sync_to_async(two_player_table)(alice, bob)
    await database_sync_to_async(scheduling.wait_idle)(timeout=10)
    last = await database_sync_to_async(
        lambda: Table.objects.values_list("last_seq", flat=True).get(public_id=table_id))()
    comm = WebsocketCommunicator(application, "/graphql/", subprotocols=["graphql-transport-ws"])
    await comm.connect()
    await comm.send_json_to({"type": "connection_init", "payload": {"token": bob.token}})
    assert (await comm.receive_json_from(timeout=5))["type"] == "connection_ack"
    for op_id, after in (("1", last + 5), ("2", last)):
        await comm.send_json_to({"id": op_id, "type": "subscribe", "payload": {
            "query": "subscription($id: ID!, $a: Int!) { tableEvents(tableId: $id, "
                     "afterSeq: $a) { seq } }", "variables": {"id": table_id, "a": after}}})
    msg = await comm.receive_json_from(timeout=5)
    assert msg["id"] == "1"
    (error,) = msg["payload"]["errors"]
    assert error["extensions"] == {"code": "bad_after_seq", "field": "afterSeq",
                                   "lastSeq": last}
    assert (await comm.receive_json_from(timeout=5)) == {"id": "1", "type": "complete"}
    # afterSeq equal to the last seq is fine: it waits for what comes next.
    assert await comm.receive_nothing(timeout=0.3)
    await comm.disconnect()


def test_replayed_updates_carry_the_status_as_of_their_seq(alice, bob):
    table_id = two_player_table(alice, bob)
    scheduling.wait_idle(timeout=10)
    services.table_abort(actor=None, table_id=table_pk_from_public(table_id), reason="test")
    events = alice("query($id: ID!) { table(id: $id) { status events { seq kind status } } }",
                   {"id": table_id})["table"]
    assert events["status"] == "ABORTED"
    by_kind = [(e["kind"], e["status"]) for e in events["events"]]
    assert ("start", "PLAYING") in by_kind, by_kind
    assert by_kind[-1] == ("abort", "ABORTED")
    before_start = by_kind[:by_kind.index(("start", "PLAYING"))]
    assert before_start and all(status == "OPEN" for _, status in before_start)
    assert all(status == "PLAYING" for _, status in by_kind[len(before_start):-1])


def test_an_idempotency_key_reused_for_another_action_answers_the_stored_result(alice, bob):
    table_id = two_player_table(alice, bob)
    for client in (alice, bob):
        view = client(VIEW, {"id": table_id})["table"]
        if len(view["view"]["legalActions"]) > 1:
            break
    else:
        pytest.skip("no seat with two legal actions in this deal")
    first, other = view["view"]["legalActions"][:2]
    version = view["version"]
    done = client(ACT, {"id": table_id, "a": first, "v": version, "k": "k-1"})["act"]
    assert done["errors"] == [] and not done["replayed"]
    again = client(ACT, {"id": table_id, "a": first, "v": version, "k": "k-1"})["act"]
    assert again == {**done, "replayed": True}
    reused = client(ACT, {"id": table_id, "a": other, "v": version, "k": "k-1"})["act"]
    assert (reused["version"], reused["seq"], reused["replayed"]) == (done["version"],
                                                                      done["seq"], True)
    assert [(e["code"], e["field"]) for e in reused["errors"]] == [
        ("idempotency_key_reused", "idempotencyKey")]
    scheduling.wait_idle(timeout=10)
