"""Rate limits (config/ratelimit.py) in one process: a 429 with Retry-After over HTTP,
``rate_limited`` with ``retryAfter`` in payloads and over the websocket, a brute force of a
password stopped while its owner gets in after the window, and never a seated player's move."""

import time

import pytest
from channels.testing import WebsocketCommunicator

from config.asgi import application

from .test_tables import ACT, JOIN, VIEW, create, guest, two_player_table

pytestmark = pytest.mark.django_db(transaction=True)

GUEST = """mutation($n: String!) { createGuest(displayName: $n) {
  token errors { code message retryAfter } } }"""
REGISTER = """mutation($u: String!, $p: String!) { register(username: $u, password: $p,
  displayName: "Real Owner") { token errors { code } } }"""
LOGIN = """mutation($u: String!, $p: String!) { login(username: $u, password: $p) {
  token errors { code retryAfter } } }"""


@pytest.fixture
def limits(settings):
    def set_(**rates):
        settings.STAPEL_RATE_LIMITS = {**settings.STAPEL_RATE_LIMITS, **rates}
    return set_


def test_create_guest_over_http_answers_429_with_retry_after(gql, limits):
    limits(create_guest="2 per minute")
    for n in range(2):
        assert gql.raw(GUEST, {"n": f"G{n}"}).status_code == 200
    response = gql.raw(GUEST, {"n": "G3"})
    assert response.status_code == 429
    retry = int(response["Retry-After"])
    assert 55 <= retry <= 60
    assert response["RateLimit-Policy"] == '"create_guest";q=2;w=60'
    assert response["RateLimit"] == f'"create_guest";r=0;t={retry}'
    payload = response.json()["data"]["createGuest"]
    assert payload["token"] is None
    assert payload["errors"][0]["code"] == "rate_limited"
    assert payload["errors"][0]["retryAfter"] == retry


def test_forty_wrong_passwords_are_not_all_answered_and_the_owner_gets_in_after(gql, limits):
    limits(login_username="3 per 2 seconds")
    assert gql(REGISTER, {"u": "owner", "p": "correct horse battery"})["register"]["errors"] == []
    answers = [gql(LOGIN, {"u": "Owner ", "p": f"guess-{n}"})["login"]["errors"][0]
               for n in range(40)]
    assert [a["code"] for a in answers[:3]] == ["invalid_credentials"] * 3
    assert {a["code"] for a in answers[3:]} == {"rate_limited"}
    assert all(1 <= a["retryAfter"] <= 2 for a in answers[3:])
    # During the window even the right password is refused: the account is shut, not guessed.
    locked = gql(LOGIN, {"u": "owner", "p": "correct horse battery"})["login"]
    assert locked["errors"][0]["code"] == "rate_limited" and locked["token"] is None
    time.sleep(locked["errors"][0]["retryAfter"] + 0.1)
    owner = gql(LOGIN, {"u": "owner", "p": "correct horse battery"})["login"]
    assert owner["errors"] == [] and owner["token"]


def test_login_per_address_counts_every_attempt(gql, limits):
    limits(login_address="2 per minute")
    for n in range(2):
        assert gql(LOGIN, {"u": f"user{n}", "p": "x"})["login"]["errors"][0]["code"] == (
            "invalid_credentials")
    assert gql.raw(LOGIN, {"u": "user9", "p": "x"}).status_code == 429


def test_invite_code_guesses_are_limited(gql, limits):
    limits(invite_guess="2 per minute")
    alice, mallory = guest(gql, "Alice"), guest(gql, "Mallory")
    table = create(alice, seatCount=3, visibility="PRIVATE")["table"]
    codes = [mallory(JOIN, {"code": f"WRONG{n}"})["joinTable"]["errors"][0]["code"]
             for n in range(3)]
    assert codes == ["wrong_invite_code", "wrong_invite_code", "rate_limited"]
    # The right code is refused too until the window passes: guessing must not pay.
    right = mallory(JOIN, {"code": table["inviteCode"]})["joinTable"]["errors"]
    assert right[0]["code"] == "rate_limited"


def test_create_table_is_limited_per_player(gql, limits):
    limits(create_table="2 per minute")
    alice, bob = guest(gql, "Alice"), guest(gql, "Bob")
    assert [bool(create(alice, seatCount=2)["errors"]) for _ in range(3)] == [False, False, True]
    assert create(bob, seatCount=2)["errors"] == []


def test_the_token_ceiling_never_counts_a_seated_players_move(gql, limits):
    alice, bob = guest(gql, "Alice"), guest(gql, "Bob")
    table_id = two_player_table(alice, bob)
    view = alice(VIEW, {"id": table_id})["table"]
    actor = alice if 0 in view["view"]["actors"] else bob
    me = actor(VIEW, {"id": table_id})["table"]
    limits(token="1 per minute")
    assert actor.raw("{ me { id } }").status_code == 200
    refused = actor.raw("{ me { id } }")
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    error = refused.json()["errors"][0]
    assert error["extensions"]["code"] == "rate_limited" and error["extensions"]["retryAfter"] >= 1
    # Spent ceiling, yet the move goes through.
    action = me["view"]["legalActions"][0]
    moved = actor.raw(ACT, {"id": table_id, "a": action, "v": me["version"]})
    assert moved.status_code == 200
    assert moved.json()["data"]["act"]["errors"] == []


async def _ws(token):
    comm = WebsocketCommunicator(application, "/graphql/", subprotocols=["graphql-transport-ws"])
    connected, _ = await comm.connect()
    assert connected
    await comm.send_json_to({"type": "connection_init",
                             "payload": {"authorization": f"Bearer {token}"}})
    assert (await comm.receive_json_from(timeout=5))["type"] == "connection_ack"
    return comm


async def test_websocket_operations_get_rate_limited_with_retry_after(guest_token, settings):
    settings.STAPEL_RATE_LIMITS = {**settings.STAPEL_RATE_LIMITS, "ws_operation": "2 per minute"}
    comm = await _ws(guest_token)
    for n in range(2):
        await comm.send_json_to({"id": str(n), "type": "subscribe",
                                 "payload": {"query": "{ me { displayName } }"}})
        assert (await comm.receive_json_from(timeout=5))["type"] == "next"
        assert (await comm.receive_json_from(timeout=5))["type"] == "complete"
    await comm.send_json_to({"id": "9", "type": "subscribe",
                             "payload": {"query": "{ me { displayName } }"}})
    refused = await comm.receive_json_from(timeout=5)
    assert refused["type"] == "error" and refused["id"] == "9"
    ext = refused["payload"][0]["extensions"]
    assert ext["code"] == "rate_limited" and 55 <= ext["retryAfter"] <= 60
    await comm.disconnect()


async def test_websocket_connects_per_address_are_limited(guest_token, settings):
    settings.STAPEL_RATE_LIMITS = {**settings.STAPEL_RATE_LIMITS, "ws_connect": "1 per minute"}
    comm = await _ws(guest_token)
    second = WebsocketCommunicator(application, "/graphql/",
                                   subprotocols=["graphql-transport-ws"])
    connected, _ = await second.connect()
    assert connected
    closed = await second.receive_output(timeout=5)
    assert closed["type"] == "websocket.close" and closed["code"] == 4429
    assert "retry after" in closed.get("reason", "")
    await comm.disconnect()


async def test_chat_over_the_websocket_returns_rate_limited_in_its_payload(guest_token,
                                                                           settings):
    from channels.db import database_sync_to_async

    from accounts.models import Player
    from games import services

    settings.STAPEL_RATE_LIMITS = {**settings.STAPEL_RATE_LIMITS, "chat": "1 per minute"}
    player = await database_sync_to_async(Player.objects.get)(display_name="Guest")
    table = await database_sync_to_async(services.table_create)(creator=player, game="kato",
                                                                seat_count=2)
    comm = await _ws(guest_token)
    say = ('mutation($t: ID!) { sendChatMessage(tableId: $t, text: "hi") '
           '{ errors { code retryAfter } } }')
    answers = []
    for n in range(2):
        await comm.send_json_to({"id": str(n), "type": "subscribe",
                                 "payload": {"query": say, "variables": {"t": table.public_id}}})
        msg = await comm.receive_json_from(timeout=5)
        answers.append(msg["payload"]["data"]["sendChatMessage"]["errors"])
        await comm.receive_json_from(timeout=5)  # complete
    assert answers[0] == []
    assert answers[1][0]["code"] == "rate_limited" and 55 <= answers[1][0]["retryAfter"] <= 60
    await comm.disconnect()


async def test_a_subscribe_frame_is_decoded_once(guest_token, monkeypatch):
    # The limit looks into every subscribe; the protocol handler takes that decoded copy
    # instead of parsing the frame a second time (config/ratelimit.py, config/graphql.py).
    from config import graphql, validation

    decoded = []
    real = validation.decode_body

    def counted(data):
        decoded.append(data)
        return real(data)

    monkeypatch.setattr(validation, "decode_body", counted)
    monkeypatch.setattr(graphql, "decode_body", counted)
    comm = await _ws(guest_token)
    decoded.clear()
    for n in range(3):
        await comm.send_json_to({"id": str(n), "type": "subscribe",
                                 "payload": {"query": "{ me { displayName } }"}})
        assert (await comm.receive_json_from(timeout=5))["type"] == "next"
        assert (await comm.receive_json_from(timeout=5))["type"] == "complete"
    assert len(decoded) == 3
    await comm.disconnect()
