"""A table whose row is held by a stuck transaction answers ``busy`` after a short, set wait,
and never delays a move at another table (real PostgreSQL row locks)."""

import threading
import time

import psycopg
import pytest
from django.db import connection

from .test_tables import ACT, VIEW, guest, two_player_table

pytestmark = pytest.mark.django_db(transaction=True)


def _holder():
    """A second session on the test database, as a stuck writer would hold it."""
    s = connection.settings_dict
    return psycopg.connect(host=s["HOST"] or "127.0.0.1", port=s["PORT"] or 5432,
                           user=s["USER"], dbname=s["NAME"], autocommit=False)


def _move(client, table_id, key):
    view = client(VIEW, {"id": table_id})["table"]
    seat = view["mySeat"]
    if seat not in view["view"]["actors"]:
        return None
    return {"id": table_id, "a": view["view"]["legalActions"][0], "v": view["version"], "k": key}


def test_a_stuck_lock_answers_busy_and_never_delays_another_table(gql):
    if connection.vendor != "postgresql":
        pytest.skip("row locks are PostgreSQL's")
    alice, bob = guest(gql, "Alice"), guest(gql, "Bob")
    stuck, free = two_player_table(alice, bob), two_player_table(alice, bob)
    mover = {}
    for table_id in (stuck, free):
        for client in (alice, bob):
            args = _move(client, table_id, f"lock-{table_id}")
            if args:
                mover[table_id] = (client, args)
    holder = _holder()
    holder.execute("SELECT id FROM games_table WHERE public_id = %s FOR UPDATE", [stuck])
    try:
        answers = {}

        def act_at_stuck():
            client, args = mover[stuck]
            answers["stuck"] = client(ACT, args)["act"]
            answers["stuck_done"] = time.monotonic()

        waiting = threading.Thread(target=act_at_stuck)
        waiting.start()
        time.sleep(0.2)  # the stuck table's move is waiting for its lock now
        client, args = mover[free]
        answers["free"] = client(ACT, args)["act"]
        free_done = time.monotonic()
        waiting.join(30)
        stuck_for_ever = waiting.is_alive()
    finally:
        holder.rollback()
        holder.close()
    assert not stuck_for_ever, "a move waited on a stuck lock for ever"
    waiting.join(30)
    assert answers["free"]["errors"] == []
    assert free_done < answers["stuck_done"]  # the other table did not wait behind it
    assert [e["code"] for e in answers["stuck"]["errors"]] == ["busy"]
    # Once the holder is gone, the same move goes through.
    client, args = mover[stuck]
    assert client(ACT, args)["act"]["errors"] == []
