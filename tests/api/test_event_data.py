"""Event data and results read as the rest of the schema: camelCase keys at every depth."""

import pytest

from games import scheduling

from .test_tables import ACT, START, create, guest

pytestmark = pytest.mark.django_db(transaction=True)

EVENTS = """query($id: ID!) { table(id: $id) { status version result
  events(limit: 500) { events { type data } }
  view { ... on KatoView { actors legalActions lastResult } } } }"""
PAGE = """query($id: ID!, $after: Int!) { table(id: $id) {
  events(afterSeq: $after, limit: 500) { seq events { type data } } } }"""
ADD_BOT = """mutation($id: ID!) { addBot(tableId: $id, level: "random") { errors { code } } }"""


def keys(value):
    if isinstance(value, dict):
        return set(value) | set().union(*(keys(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(set(), *(keys(v) for v in value))
    return set()


def test_event_data_and_results_have_camel_case_keys(gql):
    alice = guest(gql, "Alice")
    table_id = create(alice, seatCount=2, options={"rounds": 1})["table"]["id"]
    assert alice(ADD_BOT, {"id": table_id})["addBot"]["errors"] == []
    assert alice(START, {"id": table_id})["startTable"]["errors"] == []
    for _ in range(400):
        scheduling.wait_idle(timeout=10)
        table = alice(EVENTS, {"id": table_id})["table"]
        if table["status"] != "PLAYING":
            break
        if 0 in table["view"]["actors"]:
            alice(ACT, {"id": table_id, "a": table["view"]["legalActions"][0],
                        "v": table["version"]})
    assert table["status"] == "FINISHED"
    updates, after = [], 0
    while True:  # a long match has more than one page of log entries
        page = alice(PAGE, {"id": table_id, "after": after})["table"]["events"]
        if not page:
            break
        updates += page
        after = page[-1]["seq"]
    data = [e["data"] for update in updates for e in update["events"]]
    types = {e["type"] for update in updates for e in update["events"]}
    assert {"round_started", "played", "round_over", "match_over"} <= types
    found = keys(data) | keys(table["result"])
    assert {"handCounts", "pointsLeft", "roundsPlayed", "displayName"} <= found
    assert not [k for k in found if "_" in k]
