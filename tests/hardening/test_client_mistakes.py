"""Findings 2 and 3: a client's mistake is answered as one (a GraphQL validation or coercion
error, ``invalid_input`` naming the field, or a 400 JSON body with a code), never as
``internal_error``, an HTML 500 or a traceback in the log; a websocket frame that is not a
protocol message closes that socket with 4400."""

import json

import pytest
from channels.testing import WebsocketCommunicator

from config.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)

TABLES = "query($n: Int!) { tables(first: $n) { items { id } } }"
ACT = """mutation($id: ID!, $a: ActionInput!, $v: Int!, $k: String) {
  act(tableId: $id, action: $a, expectedVersion: $v, idempotencyKey: $k) { errors { code } } }"""
STATUS = "query($s: TableStatusEnum) { tables(status: $s) { items { id } } }"


@pytest.fixture
def authed(gql, guest_token):
    gql.token = guest_token
    gql.client.raise_request_exception = False
    return gql


def assert_no_faults(caplog):
    faults = [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL") or r.exc_info]
    assert not faults, [r.getMessage() for r in faults]


@pytest.mark.parametrize("query,variables", [
    (TABLES, {"n": "abc"}),
    (TABLES, {}),  # a missing Int!
    (TABLES, {"n": 1.5}),
    (ACT, {"id": "1", "a": {"draw": {}}, "v": "3"}),
    (ACT, {"id": "1", "a": {"zzz": {}}, "v": 1}),
    (ACT, {"id": "1", "a": "draw", "v": 1}),
    (ACT, {"id": {"x": 1}, "a": {"draw": {}}, "v": 1}),
    (STATUS, {"s": "NOPE"}),
    (STATUS, {"s": 5}),
])
def test_variables_of_the_wrong_type_are_a_validation_error(authed, caplog, query, variables):
    body = authed.raw(query, variables).json()
    assert body["data"] is None
    assert {e["extensions"]["code"] for e in body["errors"]} == {"graphql_validation_failed"}
    assert_no_faults(caplog)


@pytest.mark.parametrize("raw", ['{"n": 1e999}', '{"n": NaN}', '{"n": -Infinity}',
                                 '{"n": ' + "9" * 5000 + "}"])
def test_numbers_json_cannot_carry_are_a_400_with_a_code(authed, caplog, raw):
    response = authed.client.generic(
        "POST", "/graphql/", '{"query": "' + TABLES + '", "variables": ' + raw + '}',
        content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {authed.token}")
    assert response.status_code == 400
    assert response.json()["errors"][0]["extensions"]["code"] == "bad_request"
    assert_no_faults(caplog)


BAD_TEXT = ["a\x00b", "a\ud800b", "\udfff"]
STRING_ARGUMENTS = [
    ('mutation($s: String!) { createGuest(displayName: $s) { token } }', "displayName"),
    ('mutation($s: String!) { login(username: $s, password: "x") { token } }', "username"),
    ('mutation($s: String!) { login(username: "x", password: $s) { token } }', "password"),
    ('mutation($s: String!) { createApiToken(name: $s) { token } }', "name"),
    ('mutation($s: String) { joinTable(inviteCode: $s) { errors { code } } }', "inviteCode"),
    ('mutation($s: String!) { reportPlayer(playerId: "1", reason: $s) { errors { code } } }',
     "reason"),
    ('mutation($s: String!) { sendChatMessage(tableId: "1", text: $s) { errors { code } } }',
     "text"),
    ('mutation($s: String) { act(tableId: "1", action: {draw: true}, expectedVersion: 1, '
     'idempotencyKey: $s) { errors { code } } }', "idempotencyKey"),
    ('query($s: String!) { leaderboard(game: $s) { rank } }', "game"),
    ('query($s: String) { tables(game: $s) { items { id } } }', "game"),
    ('mutation($s: String!) { createTable(input: {game: $s}) { errors { code } } }',
     "input.game"),
    ('mutation($s: JSON) { createTable(input: {game: "kato", options: $s}) '
     '{ errors { code } } }', "input.options"),
]


@pytest.mark.parametrize("query,field", STRING_ARGUMENTS)
@pytest.mark.parametrize("text", BAD_TEXT)
def test_nul_and_lone_surrogates_are_invalid_input_naming_the_field(authed, caplog, query,
                                                                    field, text):
    value = {"rounds": text} if "JSON" in query else text
    body = authed.raw(query, {"s": value}).json()
    (error,) = body["errors"]
    assert error["extensions"]["code"] == "invalid_input"
    assert error["extensions"]["field"].startswith(field)
    assert_no_faults(caplog)


def test_a_nul_in_a_literal_argument_is_invalid_input_too(authed, caplog):
    body = authed.raw('mutation { createGuest(displayName: "a\\u0000b") { token } }').json()
    assert body["errors"][0]["extensions"] == {"code": "invalid_input", "field": "displayName"}
    assert_no_faults(caplog)


@pytest.mark.parametrize("body", [b"null", b'"x"', b"42", b"[]", b"[1]", b'{"query": "\xff"}',
                                  b"[" * 30000 + b"]" * 30000,
                                  b'{"query": "{ games { id } }", "variables": 5}',
                                  b'{"query": 5}', b"", b"{"])
def test_bodies_that_are_not_one_request_are_a_json_400(client, caplog, body):
    client.raise_request_exception = False
    response = client.generic("POST", "/graphql/", body, content_type="application/json")
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert response.json()["errors"][0]["extensions"]["code"] == "bad_request"
    assert_no_faults(caplog)


def test_a_syntax_error_over_http_is_an_answer(gql, caplog):
    body = gql.raw("{ me { ").json()
    assert body["errors"][0]["extensions"]["code"] == "graphql_validation_failed"
    assert_no_faults(caplog)


def test_a_wrong_content_type_is_a_json_400(client):
    response = client.generic("POST", "/graphql/", b"query=x", content_type="text/plain")
    assert response.status_code == 400
    assert response.json()["errors"][0]["extensions"]["code"] == "bad_request"


def test_a_subscription_over_http_is_refused_with_a_code(authed, caplog):
    response = authed.raw("subscription { lobbyEvents { tableId } }")
    assert response.status_code == 400
    assert response.json()["errors"][0]["extensions"]["code"] == "subscription_over_http"
    assert_no_faults(caplog)


# --- websockets ------------------------------------------------------------------------------

async def _socket(token):
    comm = WebsocketCommunicator(application, "/graphql/", subprotocols=["graphql-transport-ws"])
    connected, _ = await comm.connect()
    assert connected
    await comm.send_json_to({"type": "connection_init", "payload": {"token": token}})
    assert (await comm.receive_json_from(timeout=5))["type"] == "connection_ack"
    return comm


async def test_a_websocket_upgrade_on_another_path_is_refused_not_a_fault(caplog):
    comm = WebsocketCommunicator(application, "/admin/")
    connected, _ = await comm.connect()
    assert not connected
    await comm.disconnect()
    assert_no_faults(caplog)


@pytest.mark.parametrize("frame", ['"x"', "[1]", "5", "null", "true",
                                   '{"type": 5}', '{"type": "nope"}',
                                   '{"id": {"a": 1}, "type": "subscribe", '
                                   '"payload": {"query": "{ me { id } }"}}',
                                   '{"id": "1", "type": "subscribe", "payload": "x"}',
                                   '{"id": "1", "type": "subscribe", "payload": {"query": 5}}',
                                   '{"id": "1", "type": "subscribe", '
                                   '"payload": {"query": "{ me { id } }", "variables": [1]}}',
                                   '{"type": "complete"}', '{"type": "ping", "payload": 7}',
                                   "not json", '{"type": "ping", "payload": NaN}',
                                   "[" * 5000 + "]" * 5000])
async def test_a_frame_that_is_not_a_protocol_message_closes_with_4400(guest_token, caplog,
                                                                       frame):
    comm = await _socket(guest_token)
    await comm.send_to(text_data=frame)
    out = await comm.receive_output(timeout=5)
    assert out["type"] == "websocket.close" and out["code"] == 4400, out
    await comm.disconnect()
    assert_no_faults(caplog)


async def test_a_syntax_error_gets_an_error_message_and_the_socket_stays(guest_token, caplog):
    comm = await _socket(guest_token)
    await comm.send_json_to({"id": "1", "type": "subscribe", "payload": {"query": "{ me { "}})
    msg = await comm.receive_json_from(timeout=5)
    assert msg["type"] == "error" and msg["id"] == "1"
    assert msg["payload"][0]["extensions"]["code"] == "graphql_validation_failed"
    await comm.send_json_to({"id": "2", "type": "subscribe",
                             "payload": {"query": "{ me { displayName } }"}})
    msg = await comm.receive_json_from(timeout=5)
    assert msg["payload"]["data"]["me"]["displayName"] == "Guest"
    await comm.disconnect()
    assert_no_faults(caplog)


@pytest.mark.parametrize("variables,code", [({"n": "abc"}, "graphql_validation_failed"),
                                            ({"n": 1}, None)])
async def test_wrong_variables_over_the_websocket_are_a_validation_error(guest_token, caplog,
                                                                         variables, code):
    comm = await _socket(guest_token)
    await comm.send_json_to({"id": "1", "type": "subscribe",
                             "payload": {"query": TABLES, "variables": variables}})
    msg = await comm.receive_json_from(timeout=5)
    # Variables are coerced as execution starts: the answer is a `next` with errors.
    assert msg["type"] == "next"
    errors = msg["payload"].get("errors") or []
    assert [e["extensions"]["code"] for e in errors] == ([code] if code else [])
    await comm.disconnect()
    assert_no_faults(caplog)


async def test_a_nul_over_the_websocket_is_invalid_input(guest_token, caplog):
    comm = await _socket(guest_token)
    await comm.send_json_to({"id": "1", "type": "subscribe", "payload": {
        "query": "mutation($s: String!) { createApiToken(name: $s) { token } }",
        "variables": {"s": "x\x00"}}})
    msg = await comm.receive_json_from(timeout=5)
    assert msg["type"] == "error"
    assert msg["payload"][0]["extensions"] == {"code": "invalid_input", "field": "name"}
    await comm.disconnect()
    assert_no_faults(caplog)


async def test_a_frame_over_the_http_body_limit_closes_the_socket(guest_token, settings):
    comm = await _socket(guest_token)
    big = json.dumps({"id": "1", "type": "subscribe",
                      "payload": {"query": "{ me { id } }",
                                  "variables": {"x": "y" * settings.DATA_UPLOAD_MAX_MEMORY_SIZE}}})
    await comm.send_to(text_data=big)
    out = await comm.receive_output(timeout=5)
    assert out["type"] == "websocket.close" and out["code"] == 1009
    await comm.disconnect()


@pytest.mark.parametrize("method,status,code", [("put", 405, "method_not_allowed"),
                                                ("delete", 405, "method_not_allowed"),
                                                ("get", 400, "bad_request")])
def test_other_methods_and_an_empty_get_are_json_with_a_code(client, method, status, code):
    response = getattr(client, method)("/graphql/")
    assert response.status_code == status
    assert response.json()["errors"][0]["extensions"]["code"] == code


def test_a_mutation_over_get_is_refused_with_a_code(client):
    response = client.get('/graphql/?query=mutation{createGuest(displayName:"x"){token}}')
    assert response.status_code == 400
    assert response.json()["errors"][0]["extensions"]["code"] == "bad_request"
