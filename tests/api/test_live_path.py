"""The compiled live path (games/api/live.py) answers exactly as strawberry does: the same
frames for `tableEvents` (replay and live, whatever the selection: aliases, fragments, type
conditions, merged fields) and the same payloads for `act`, errors included."""

import asyncio

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import override_settings

from config.asgi import application
from games import scheduling, services
from games.api import live
from games.engine import GAMES
from games.models import Table
from tests.api.test_tables import guest, two_player_table

pytestmark = pytest.mark.django_db(transaction=True)

KATO_VIEW = """view { __typename ... on KatoView { game seat version deadline legalActions hand
  handCounts actors top color direction phase turn pendingDraw drawCount discardCount players
  scores over raw } }"""

DOCUMENTS = [
    "subscription($id: ID!) { tableEvents(tableId: $id) { tableId seq kind version status "
    "events { type data } " + KATO_VIEW + " } }",
    # aliases, a named fragment, __typename at every level, a condition on the union itself
    """subscription Watch($id: ID!, $after: Int! = 0) {
         e: tableEvents(tableId: $id, afterSeq: $after) {
           __typename s: seq ...Head
           view { ... on GameView { __typename } ... on KatoView { h: hand top } } } }
       fragment Head on TableUpdate { kind st: status events { __typename type } }""",
    # the same key twice with different sub-selections is merged; another game's fragment
    # selects nothing here
    """subscription($id: ID!) { tableEvents(tableId: $id) { seq
         view { ... on KatoView { hand } } view { ... on KatoView { actors } }
         view { ... on KarmaView { pile } } } }""",
]

ACT = """mutation($id: ID!, $a: ActionInput!, $v: Int!, $k: String) {
  move: act(tableId: $id, action: $a, expectedVersion: $v, idempotencyKey: $k) {
    __typename version seq replayed errors { code message field retryAfter } } }"""


async def connect(token):
    comm = WebsocketCommunicator(application, "/graphql/", subprotocols=["graphql-transport-ws"])
    assert (await comm.connect())[0]
    await comm.send_json_to({"type": "connection_init", "payload": {"token": token}})
    assert (await comm.receive_json_from(timeout=5))["type"] == "connection_ack"
    return comm


async def frames_until(comm, op_id, seq):
    out = []
    while True:
        msg = await comm.receive_json_from(timeout=10)
        assert msg["id"] == op_id, msg
        out.append(msg)
        data = msg["payload"]["data"]
        update = next(iter(data.values()))
        if update.get("seq", update.get("s")) >= seq:
            return out


@pytest.fixture
def players(gql):
    return guest(gql, "Alice"), guest(gql, "Bob")


def _setup(alice, bob):
    table_id = two_player_table(alice, bob)
    scheduling.wait_idle(timeout=10)
    return table_id


def _move(table_id, alice_id, bob_id):
    from accounts.models import Player

    table = Table.objects.get(public_id=table_id)
    engine = GAMES[table.game]
    seat = engine.actors(table.state)[0]
    player = Player.objects.get(pk=alice_id if seat == 0 else bob_id)
    action = engine.legal_actions(table.state, seat)[0]
    return services.act(player=player, table_id=table.pk, action=action,
                        expected_version=table.version).seq


@pytest.mark.parametrize("document", DOCUMENTS)
async def test_table_events_frames_are_the_same_on_both_paths(players, document):
    alice, bob = players
    table_id = await database_sync_to_async(_setup)(alice, bob)
    last = await database_sync_to_async(
        lambda: Table.objects.values_list("last_seq", flat=True).get(public_id=table_id))()
    received = {}
    sockets = {}
    for fast in (True, False):
        with override_settings(STAPEL_LIVE_FAST_PATH=fast):
            comm = await connect(bob.token)
            await comm.send_json_to({"id": "w", "type": "subscribe", "payload": {
                "query": document, "variables": {"id": table_id}}})
            received[fast] = await frames_until(comm, "w", last)
            sockets[fast] = comm
    assert live.plan_for(document, None) is not None, "the document should compile"
    assert received[True] == received[False]
    # A live change reaches both the same way (both sockets listen now).
    seq = await database_sync_to_async(_move_by_tokens)(table_id, alice, bob)
    live_frames = {fast: await frames_until(comm, "w", seq) for fast, comm in sockets.items()}
    assert live_frames[True] == live_frames[False]
    assert live_frames[True][-1]["type"] == "next"
    for comm in sockets.values():
        await comm.disconnect()


def _move_by_tokens(table_id, alice, bob):
    from accounts.models import Player

    alice_id = Player.objects.get(display_name="Alice").pk
    bob_id = Player.objects.get(display_name="Bob").pk
    return _move(table_id, alice_id, bob_id)


async def test_act_answers_the_same_on_both_paths_for_moves_and_mistakes(players):
    alice, bob = players
    table_id = await database_sync_to_async(_setup)(alice, bob)
    state = await database_sync_to_async(lambda: Table.objects.get(public_id=table_id))()
    engine = GAMES[state.game]
    seat = engine.actors(state.state)[0]
    mover, other = (alice, bob) if seat == 0 else (bob, alice)
    action = engine.legal_actions(state.state, seat)[0]
    from games.api.actions import to_api

    cases = [
        (other, {"a": to_api(action), "v": state.version}),  # not your turn
        (mover, {"a": to_api(action), "v": state.version + 5}),  # stale
        (mover, {"a": {"draw": False}, "v": state.version}),  # malformed
        (mover, {"a": to_api(action), "v": state.version, "k": "same-key"}),  # the move
        (mover, {"a": to_api(action), "v": state.version, "k": "same-key"}),  # replayed
        (mover, {"a": {"pass": True}, "v": state.version, "k": "same-key"}),  # key reused
    ]

    async def answer(who, variables, fast):
        with override_settings(STAPEL_LIVE_FAST_PATH=fast):
            comm = await connect(who.token)
            await comm.send_json_to({"id": "m", "type": "subscribe", "payload": {
                "query": ACT, "variables": {"id": table_id, **variables}}})
            reply = await comm.receive_json_from(timeout=10)
            assert await comm.receive_json_from(timeout=10) == {"id": "m", "type": "complete"}
            await comm.disconnect()
        return reply

    # Mistakes change nothing: each is asked of both paths.
    for who, variables in cases[:3]:
        assert await answer(who, variables, True) == await answer(who, variables, False)
    codes = [(await answer(w, v, True))["payload"]["data"]["move"]["errors"][0]["code"]
             for w, v in cases[:3]]
    assert codes == ["not_your_turn", "stale_version", "malformed_action"]
    # The move applies once (here on the compiled path); both paths then replay it alike.
    moved = await answer(*cases[3], True)
    assert moved["payload"]["data"]["move"]["replayed"] is False
    assert moved["payload"]["data"]["move"]["version"] == state.version + 1
    replayed = [await answer(*cases[4], fast) for fast in (True, False)]
    assert replayed[0] == replayed[1]
    assert replayed[0]["payload"]["data"]["move"] == {**moved["payload"]["data"]["move"],
                                                      "replayed": True}
    reused = [await answer(*cases[5], fast) for fast in (True, False)]
    assert reused[0] == reused[1]
    assert reused[0]["payload"]["data"]["move"]["errors"][0]["code"] == "idempotency_key_reused"


def test_act_over_http_answers_the_same_on_both_paths(players, settings):
    alice, bob = players
    table_id = _setup(alice, bob)
    table = Table.objects.get(public_id=table_id)
    engine = GAMES[table.game]
    seat = engine.actors(table.state)[0]
    mover, other = (alice, bob) if seat == 0 else (bob, alice)
    from games.api.actions import to_api

    action = to_api(engine.legal_actions(table.state, seat)[0])
    asked = [(other, {"a": action, "v": table.version}),
             (mover, {"a": action, "v": table.version + 3}),
             (mover, {"a": {"draw": False}, "v": table.version}),
             (mover, {"a": action, "v": "3"}),  # a variable of the wrong type: validation
             (mover, {"a": {"nope": True}, "v": table.version})]
    for who, variables in asked:
        answers = []
        for fast in (True, False):
            settings.STAPEL_LIVE_FAST_PATH = fast
            answers.append(who.raw(ACT, {"id": table_id, **variables}).json())
        assert answers[0] == answers[1], variables
    settings.STAPEL_LIVE_FAST_PATH = True
    moved = mover.raw(ACT, {"id": table_id, "a": action, "v": table.version, "k": "h"}).json()
    assert moved["data"]["move"]["version"] == table.version + 1
    settings.STAPEL_LIVE_FAST_PATH = False
    again = mover.raw(ACT, {"id": table_id, "a": action, "v": table.version, "k": "h"}).json()
    assert again["data"]["move"] == {**moved["data"]["move"], "replayed": True}


def test_documents_outside_the_hot_shape_are_left_to_strawberry():
    assert live.plan_for("subscription { lobbyEvents { tableId } }", None) is None
    assert live.plan_for(  # a resolver field (one more read) runs through strawberry
        "mutation($id: ID!, $a: ActionInput!) { act(tableId: $id, action: $a, "
        "expectedVersion: 1) { table { id } } }", None) is None
    assert live.plan_for(  # directives: strawberry
        "subscription($id: ID!, $x: Boolean!) { tableEvents(tableId: $id) "
        "{ seq @include(if: $x) } }", None) is None
    assert live.plan_for("subscription { tableEvents(tableId: 1) { nope } }", None) is None
    assert live.plan_for("subscription { tableEvents(tableId: 1) { seq } }", None) is not None


async def test_a_live_change_is_projected_once_per_process_for_every_local_socket(players):
    """Two spectators on one process with one document: the change's frame is projected from
    the published message and serialised once, and no typed update is built for it."""
    alice, bob = players
    table_id = await database_sync_to_async(_setup)(alice, bob)
    last = await database_sync_to_async(
        lambda: Table.objects.values_list("last_seq", flat=True).get(public_id=table_id))()
    carol = await database_sync_to_async(guest)(type(alice)(alice.client), "Carol")
    dave = await database_sync_to_async(guest)(type(alice)(alice.client), "Dave")
    doc = DOCUMENTS[0]
    sockets = []
    for who in (carol, dave):
        comm = await connect(who.token)
        await comm.send_json_to({"id": "w", "type": "subscribe", "payload": {
            "query": doc, "variables": {"id": table_id}}})
        await frames_until(comm, "w", last)
        sockets.append(comm)
    projected, typed = [], []
    original_project, original_of = live.Plan.message_frame_data, live.TableUpdate.of

    def counting_project(plan, message):
        projected.append(message["seq"])
        return original_project(plan, message)

    def counting_of(*args, **kwargs):
        typed.append(args[1])
        return original_of(*args, **kwargs)

    live.Plan.message_frame_data, live.TableUpdate.of = counting_project, counting_of
    try:
        seq = await database_sync_to_async(_move_by_tokens)(table_id, alice, bob)
        frames = [await frames_until(comm, "w", seq) for comm in sockets]
    finally:
        live.Plan.message_frame_data, live.TableUpdate.of = original_project, original_of
    assert frames[0] == frames[1]  # the spectators' frame, projected and serialised once
    assert projected.count(seq) == 1
    assert seq not in typed
    for comm in sockets:
        await comm.disconnect()
    await asyncio.sleep(0)
