"""Bots and turn clocks in one process: the in-process scheduler runs the same tasks a
Celery worker runs in production."""

import time

import pytest

from games import scheduling
from games.models import Seat, Table, TableLogEntry
from games.selectors import table_pk_from_public

from .test_tables import ACT, CREATE, START, VIEW, guest

pytestmark = pytest.mark.django_db(transaction=True)

ADD_BOT = """mutation($id: ID!, $level: String!, $seat: Int) { addBot(tableId: $id, level: $level, seat: $seat) {
  table { seats { position isBot botLevel player { displayName isBot } } } errors { code field } } }"""
REMOVE_BOT = """mutation($id: ID!, $seat: Int!) { removeBot(tableId: $id, seat: $seat) {
  table { seats { position } } errors { code } } }"""


@pytest.fixture
def alice(gql):
    return guest(gql, "Alice")


@pytest.fixture
def turn_clocks(settings):
    """Beat's deadline sweep on the in-process timer queue, as the embedded default runs it:
    a move only writes its table's deadline, and the sweep queues the timeouts."""
    settings.STAPEL_IN_PROCESS_BEAT = True
    settings.STAPEL_DEADLINE_SWEEP_SECONDS = 0.2
    settings.CELERY_BEAT_SCHEDULE = {"games-deadlines": {"task": "games.deadlines",
                                                         "schedule": 0.2}}
    assert scheduling.beat_start() == ["games-deadlines"]
    yield
    scheduling.beat_stop()


def wait_for(predicate, timeout=30.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def test_creator_adds_and_removes_bots_before_the_start(alice, gql):
    table = alice(CREATE, {"input": {"game": "kato", "seatCount": 3}})["createTable"]["table"]
    seats = alice(ADD_BOT, {"id": table["id"], "level": "heuristic"})["addBot"]["table"]["seats"]
    assert seats[1]["isBot"] and seats[1]["botLevel"] == "heuristic" and seats[1]["player"]["isBot"]
    bad = alice(ADD_BOT, {"id": table["id"], "level": "grandmaster"})["addBot"]["errors"][0]
    assert bad == {"code": "invalid_bot_level", "field": "level"}
    other = guest(gql, "Bob")
    assert other(ADD_BOT, {"id": table["id"], "level": "random"})["addBot"]["errors"][0]["code"] == "not_creator"
    assert alice(REMOVE_BOT, {"id": table["id"], "seat": 0})["removeBot"]["errors"][0]["code"] == "invalid_seat"
    assert alice(REMOVE_BOT, {"id": table["id"], "seat": 1})["removeBot"]["table"]["seats"] == [{"position": 0}]


def test_a_strong_bot_can_be_added_to_every_game(alice, gql):
    for game in ("kato", "aetsch", "karma", "krass_kariert"):
        table = alice(CREATE, {"input": {"game": game, "seatCount": 3}})["createTable"]["table"]
        added = alice(ADD_BOT, {"id": table["id"], "level": "strong"})["addBot"]
        assert added["errors"] == [] and added["table"]["seats"][1]["botLevel"] == "strong"


def test_two_bots_of_the_same_level_can_sit_at_one_table(alice):
    table = alice(CREATE, {"input": {"game": "kato", "seatCount": 3}})["createTable"]["table"]
    for _ in range(2):
        assert alice(ADD_BOT, {"id": table["id"], "level": "random"})["addBot"]["errors"] == []
    assert Seat.objects.filter(table__public_id=table["id"], is_bot=True).count() == 2


def test_bots_play_their_turns_and_a_person_plays_against_them_to_the_end(alice):
    table = alice(CREATE, {"input": {"game": "kato", "seatCount": 2,
                                     "options": {"rounds": 1}}})["createTable"]["table"]
    alice(ADD_BOT, {"id": table["id"], "level": "heuristic"})
    alice(START, {"id": table["id"]})
    for _ in range(500):
        scheduling.wait_idle(timeout=10)
        state = alice(VIEW, {"id": table["id"]})["table"]
        if state["status"] != "PLAYING":
            break
        view = state["view"]
        if 0 in view["actors"]:
            alice(ACT, {"id": table["id"], "a": view["legalActions"][0], "v": state["version"]})
    scheduling.wait_idle(timeout=10)
    table = Table.objects.get(public_id=table["id"])
    assert table.status == "finished"
    kinds = set(TableLogEntry.objects.filter(table=table).values_list("kind", flat=True))
    assert {"action", "bot", "next_round"} <= kinds


def test_a_seat_that_does_not_act_gets_the_default_action_then_a_bot(alice, gql, settings,
                                                                     turn_clocks):
    settings.STAPEL_EXPIRIES_BEFORE_BOT = 2
    bob = guest(gql, "Bob")
    table = alice(CREATE, {"input": {"game": "kato", "seatCount": 2, "turnClockSeconds": 1,
                                     "options": {"rounds": 1}}})["createTable"]["table"]
    bob("mutation($id: ID!) { joinTable(tableId: $id) { errors { code } } }", {"id": table["id"]})
    alice(START, {"id": table["id"]})
    view = alice(VIEW, {"id": table["id"]})["table"]
    assert view["view"]["deadline"] is not None
    # Nobody acts: the clock plays for whoever is due, then bots take both seats over.
    assert wait_for(lambda: TableLogEntry.objects.filter(table__public_id=table["id"], kind="timeout").exists())
    first = TableLogEntry.objects.filter(table__public_id=table["id"], kind="timeout").first()
    assert first.action["type"] in ("draw", "accept", "pass", "choose_color")
    assert wait_for(lambda: Seat.objects.filter(table__public_id=table["id"], taken_over_by_bot=True).count() == 2)
    takeovers = [e for entry in TableLogEntry.objects.filter(table__public_id=table["id"], kind="seats")
                 for e in entry.events if e["type"] == "bot_took_over"]
    assert {e["reason"] for e in takeovers} == {"missed_turns"}
    assert wait_for(lambda: Table.objects.get(public_id=table["id"]).status == "finished", timeout=60)


def test_a_person_who_acts_again_takes_the_seat_back(alice, gql, settings, turn_clocks):
    settings.STAPEL_EXPIRIES_BEFORE_BOT = 1
    settings.STAPEL_BOT_PAUSE_SECONDS = 2  # time for the person to come back
    bob = guest(gql, "Bob")
    table = alice(CREATE, {"input": {"game": "kato", "seatCount": 2, "turnClockSeconds": 1,
                                     "options": {"rounds": 1}}})["createTable"]["table"]
    bob("mutation($id: ID!) { joinTable(tableId: $id) { errors { code } } }", {"id": table["id"]})
    alice(START, {"id": table["id"]})
    assert wait_for(lambda: Seat.objects.filter(table__public_id=table["id"], taken_over_by_bot=True).exists())
    seat = Seat.objects.filter(table__public_id=table["id"], taken_over_by_bot=True).first()
    person = alice if seat.position == 0 else bob
    # From here one late clock must not hand the seat straight back to the bot (a loaded
    # machine may let the person's next turn expire before the seat is read below).
    settings.STAPEL_EXPIRIES_BEFORE_BOT = 50
    acted = False
    deadline = time.monotonic() + 40
    while not acted and time.monotonic() < deadline:
        state = person(VIEW, {"id": table["id"]})["table"]
        assert state["status"] == "PLAYING"
        view = state["view"]
        if seat.position in view["actors"]:
            result = person(ACT, {"id": table["id"], "a": view["legalActions"][0],
                                  "v": state["version"]})["act"]
            acted = not result["errors"]
        time.sleep(0.02)
    assert acted, "the person never got a move in"
    seat.refresh_from_db()
    assert not seat.taken_over_by_bot
    # The move set the count of missed turns back to 0; only a clock that ran out since
    # (the person may still be due, e.g. after a draw) may have counted one again.
    later_timeouts = TableLogEntry.objects.filter(table__public_id=table["id"], kind="timeout",
                                                  seat=seat.position,
                                                  version__gt=result["version"]).count()
    assert seat.missed_turns == later_timeouts


def test_bot_tasks_are_idempotent_by_version(alice, settings):
    from games import services

    settings.STAPEL_BOT_PAUSE_SECONDS = 60  # keep the queued bot turn from running

    table = alice(CREATE, {"input": {"game": "kato", "seatCount": 2, "join": False}})["createTable"]["table"]
    for _ in range(2):
        alice(ADD_BOT, {"id": table["id"], "level": "random"})
    scheduling.clear_local_queue()
    services.table_start(player=None, table_id=table_pk_from_public(table["id"]))
    scheduling.clear_local_queue()
    version = Table.objects.get(public_id=table["id"]).version
    assert services.bot_turn(table_id=table_pk_from_public(table["id"]), expected_version=version) is True
    assert services.bot_turn(table_id=table_pk_from_public(table["id"]), expected_version=version) is False
    assert TableLogEntry.objects.filter(table__public_id=table["id"], kind="bot").count() == 1


def test_a_strong_bot_is_given_its_seat_s_round_history_and_nothing_more(alice, monkeypatch):
    from games.bots import BOTS

    strong = BOTS["kato"]["strong"]
    heuristic = BOTS["kato"]["heuristic"]
    seen = []

    def choose(view, legal, rng, *, iterations=None, time_ms=None, history=()):
        seen.append(list(history))
        return heuristic.choose(view, legal, rng)

    monkeypatch.setattr(strong, "choose", choose)
    table = alice(CREATE, {"input": {"game": "kato", "seatCount": 2,
                                     "options": {"rounds": 1}}})["createTable"]["table"]
    alice(ADD_BOT, {"id": table["id"], "level": "strong"})
    alice(START, {"id": table["id"]})
    for _ in range(60):
        scheduling.wait_idle(timeout=10)
        state = alice(VIEW, {"id": table["id"]})["table"]
        if state["status"] != "PLAYING" or len(seen) >= 4:
            break
        view = state["view"]
        if 0 in view["actors"]:
            alice(ACT, {"id": table["id"], "a": view["legalActions"][0], "v": state["version"]})
    assert len(seen) >= 2
    last = seen[-1]
    # Alice's public moves are there; her own cards (dealt, drawn) and audiences are not.
    assert any(e.get("type") in ("played", "drew") and e.get("seat") == 0 for e in last)
    assert all("visible_to" not in e for e in last)
    assert not any(e.get("type") in ("dealt", "drew_cards") and e.get("seat") == 0
                   for e in last)
    assert any(e.get("type") == "dealt" and e.get("seat") == 1 for e in seen[0])
