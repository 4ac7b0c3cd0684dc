"""A committed move stands when the broker is down: the mover gets success, and the bot's
turn that the move made due runs once the broker is back (the sweep derives it from the
stored state)."""

import contextlib
import socket

import pytest
from django.test import override_settings

from config.celery import app as celery_app
from games import scheduling, services
from games.engine import GAMES
from games.models import Table

from .test_tables import ACT, CREATE, START, VIEW, guest

pytestmark = pytest.mark.django_db(transaction=True)

ADD_BOT = """mutation($id: ID!) { addBot(tableId: $id, level: "heuristic") { errors { code } } }"""


@contextlib.contextmanager
def broker_down():
    """Celery on a real broker connection to a port where nothing listens."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    saved = celery_app.conf.broker_url
    celery_app.conf.broker_url = f"redis://127.0.0.1:{port}/0"
    celery_app._pool = None
    try:
        with override_settings(CELERY_TASK_ALWAYS_EAGER=False):
            yield
    finally:
        celery_app.conf.broker_url = saved
        celery_app._pool = None


def _bot_to_act(table: Table) -> bool:
    seats = {s.position: s for s in table.seats.all()}
    return any(seats[a].plays_as_bot for a in GAMES[table.game].actors(table.state))


def test_a_move_committed_while_the_broker_is_down_answers_success_and_the_bot_plays_later(
        gql):
    alice = guest(gql, "Alice")
    table = alice(CREATE, {"input": {"game": "kato", "seatCount": 2,
                                     "options": {"rounds": 1}}})["createTable"]["table"]
    assert alice(ADD_BOT, {"id": table["id"]})["addBot"]["errors"] == []
    assert alice(START, {"id": table["id"]})["startTable"]["errors"] == []
    scheduling.wait_idle(timeout=30)

    with broker_down():
        for attempt in range(6):  # moves until the turn passes to the bot
            view = alice(VIEW, {"id": table["id"]})["table"]
            assert view["view"]["actors"] == [view["mySeat"]]
            legal = view["view"]["legalActions"]
            move = next((a for a in legal if "draw" in a or "pass" in a), legal[0])
            answer = alice(ACT, {"id": table["id"], "a": move, "v": view["version"],
                                 "k": f"outage-{attempt}"})["act"]
            # Committed, and said so, although the bot's turn could not be queued.
            assert answer["errors"] == [] and answer["version"] == view["version"] + 1
            stored = Table.objects.get(public_id=table["id"])
            assert stored.version == answer["version"]
            if _bot_to_act(stored):
                break
        else:
            pytest.fail("the turn never passed to the bot")
    scheduling.wait_idle(timeout=5)
    assert Table.objects.get(public_id=table["id"]).version == stored.version  # nothing queued

    # The broker is back: the sweep queues what the table waits for, and the bot plays.
    assert services.sweep_stalled(older_than=0) >= 1
    scheduling.wait_idle(timeout=30, horizon=5)
    assert Table.objects.get(public_id=table["id"]).version > stored.version
