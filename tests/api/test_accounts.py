"""Accounts over GraphQL: guests, registration, login, tokens, bans, and bad input."""

import json

import pytest
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from accounts.models import ApiToken, Player
from config.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)

ME = "{ me { id displayName isGuest username } }"
GUEST = 'mutation($n: String!) { createGuest(displayName: $n) { token me { id displayName isGuest } errors { code message field } } }'
REGISTER = """mutation($u: String!, $p: String!, $d: String!) {
  register(username: $u, password: $p, displayName: $d) {
    token me { id username displayName isGuest } errors { code field } } }"""
LOGIN = """mutation($u: String!, $p: String!) { login(username: $u, password: $p) {
  token me { username } errors { code message } } }"""


def test_guest_gets_a_token_that_signs_in(gql):
    data = gql(GUEST, {"n": "  Ada   Lovelace "})["createGuest"]
    assert data["errors"] == [] and data["token"].startswith("stp_")
    assert data["me"]["displayName"] == "Ada Lovelace" and data["me"]["isGuest"]
    gql.token = data["token"]
    assert gql(ME)["me"]["id"] == data["me"]["id"]


def test_anonymous_me_is_null(gql):
    assert gql(ME)["me"] is None


def test_guest_display_name_is_validated(gql):
    data = gql(GUEST, {"n": "   "})["createGuest"]
    assert data["token"] is None
    assert data["errors"][0]["code"] == "invalid_display_name"
    assert data["errors"][0]["field"] == "displayName"


def test_token_is_stored_hashed(gql):
    token = gql(GUEST, {"n": "Bob"})["createGuest"]["token"]
    stored = ApiToken.objects.get()
    assert token not in (stored.key_hash, stored.prefix) and token.startswith(stored.prefix)


def test_register_then_login(gql):
    data = gql(REGISTER, {"u": "ada", "p": "correct horse battery", "d": "Ada"})["register"]
    assert data["errors"] == [] and data["me"]["username"] == "ada"
    data = gql(LOGIN, {"u": "ADA", "p": "correct horse battery"})["login"]
    assert data["errors"] == [] and data["token"]
    gql.token = data["token"]
    assert gql(ME)["me"]["username"] == "ada"


def test_register_rejects_weak_password_and_taken_name(gql):
    data = gql(REGISTER, {"u": "ada", "p": "123", "d": "Ada"})["register"]
    assert data["errors"][0]["code"] == "invalid_password"
    gql(REGISTER, {"u": "ada", "p": "correct horse battery", "d": "Ada"})
    data = gql(REGISTER, {"u": "Ada", "p": "correct horse battery", "d": "Ada 2"})["register"]
    assert data["errors"][0] == {"code": "username_taken", "field": "username"}


def test_guest_upgrades_to_registered_and_keeps_identity(gql, guest_token):
    gql.token = guest_token
    guest_id = gql(ME)["me"]["id"]
    data = gql(REGISTER, {"u": "grace", "p": "correct horse battery", "d": "Grace"})["register"]
    assert data["me"]["id"] == guest_id and not data["me"]["isGuest"]


def test_wrong_password_and_unknown_user_look_the_same(gql):
    gql(REGISTER, {"u": "ada", "p": "correct horse battery", "d": "Ada"})
    a = gql(LOGIN, {"u": "ada", "p": "wrong password!"})["login"]["errors"]
    b = gql(LOGIN, {"u": "nobody", "p": "wrong password!"})["login"]["errors"]
    assert a == b == [{"code": "invalid_credentials", "message": "wrong username or password"}]


def test_create_list_and_revoke_api_token(gql, guest_token):
    gql.token = guest_token
    data = gql('mutation { createApiToken(name: "bot script") { token apiToken { id name prefix } errors { code } } }')
    created = data["createApiToken"]
    assert created["token"].startswith(created["apiToken"]["prefix"])
    listed = gql("{ apiTokens { id name revokedAt } }")["apiTokens"]
    assert {t["name"] for t in listed} == {"guest", "bot script"}
    assert all("token" not in t for t in listed)
    data = gql('mutation($id: ID!) { revokeApiToken(id: $id) { apiToken { revokedAt } errors { code } } }',
               {"id": created["apiToken"]["id"]})
    assert data["revokeApiToken"]["apiToken"]["revokedAt"]
    gql.token = created["token"]
    response = gql.raw(ME)
    assert response.status_code == 401
    assert response.json()["errors"][0]["extensions"]["code"] == "invalid_token"


def test_cannot_revoke_someone_elses_token(gql, guest_token):
    other = gql(GUEST, {"n": "Other"})["createGuest"]["token"]
    other_id = ApiToken.objects.get(prefix=other[:12]).pk
    gql.token = guest_token
    data = gql('mutation($id: ID!) { revokeApiToken(id: $id) { errors { code } } }', {"id": str(other_id)})
    assert data["revokeApiToken"]["errors"] == [{"code": "not_found"}]
    assert ApiToken.objects.get(pk=other_id).revoked_at is None


def test_mutations_needing_a_player_say_so(gql):
    data = gql('mutation { createApiToken(name: "x") { token errors { code } } }')
    assert data["createApiToken"]["errors"] == [{"code": "unauthenticated"}]


@pytest.mark.parametrize("header, code", [
    ("Bearer stp_unknown", "invalid_token"),
    ("Bearer", "malformed_authorization"),
    ("Basic dXNlcjpwYXNz", "malformed_authorization"),
    ("Bearer a b", "malformed_authorization"),
    ("Bearer not-a-stapel-token", "invalid_token"),
])
def test_bad_authorization_header_gets_401_with_code(gql, header, code):
    response = gql.raw(ME, headers={"Authorization": header})
    assert response.status_code == 401
    assert response.json()["errors"][0]["extensions"]["code"] == code


def test_banned_player_is_refused_over_http(gql, guest_token):
    Player.objects.update(banned_at=timezone.now(), ban_reason="spam")
    gql.token = guest_token
    response = gql.raw(ME)
    assert response.status_code == 403
    body = response.json()
    assert body["errors"][0]["extensions"]["code"] == "banned"
    assert "spam" not in json.dumps(body)


def test_expired_ban_lets_the_player_back(gql, guest_token):
    Player.objects.update(banned_at=timezone.now(),
                          banned_until=timezone.now() - timezone.timedelta(seconds=1))
    gql.token = guest_token
    assert gql(ME)["me"] is not None


def test_too_deep_query_is_refused_cleanly(gql):
    deep = "{ me { id } }"
    query = "query { " + "__schema { types { fields { type { ofType { " * 3 + "name" + " } } } } }" * 3 + " }"
    response = gql.raw(query)
    assert response.status_code in (200, 400)
    errors = response.json()["errors"]
    assert "depth" in errors[0]["message"].lower()
    assert gql.raw(deep).status_code == 200


def test_oversize_query_is_refused_cleanly(gql):
    query = "{ " + " ".join(f"a{i}: me {{ id }}" for i in range(1500)) + " }"
    response = gql.raw(query)
    assert response.status_code in (200, 400, 413)
    if response.status_code != 413:
        assert response.json()["errors"]


def test_too_many_aliases_are_refused(gql):
    query = "{ " + " ".join(f"a{i}: me {{ id }}" for i in range(30)) + " }"
    errors = gql.raw(query).json()["errors"]
    assert "alias" in errors[0]["message"].lower()


def test_malformed_json_body_is_a_clean_400(client):
    response = client.post("/graphql/", data="{not json", content_type="application/json")
    assert response.status_code == 400


def test_unknown_field_is_a_validation_error_with_code(gql):
    body = gql.raw("{ nope }").json()
    assert body["errors"][0]["extensions"]["code"] == "graphql_validation_failed"


# --- websockets ------------------------------------------------------------------------------

async def _ws_init(payload, subprotocol="graphql-transport-ws"):
    comm = WebsocketCommunicator(application, "/graphql/", subprotocols=[subprotocol])
    connected, _ = await comm.connect()
    if not connected:
        return comm, None
    await comm.send_json_to({"type": "connection_init", "payload": payload})
    return comm, await comm.receive_output(timeout=5)


def _closed_with(output, code):
    return output["type"] == "websocket.close" and output.get("code") == code


async def test_websocket_with_valid_token_is_acknowledged(guest_token):
    comm, out = await _ws_init({"authorization": f"Bearer {guest_token}"})
    assert out["type"] == "websocket.send" and json.loads(out["text"])["type"] == "connection_ack"
    await comm.send_json_to({"id": "1", "type": "subscribe",
                             "payload": {"query": "{ me { displayName } }"}})
    msg = await comm.receive_json_from(timeout=5)
    assert msg["payload"]["data"]["me"]["displayName"] == "Guest"
    await comm.disconnect()


@pytest.mark.parametrize("payload", [{}, {"authorization": "Bearer stp_nope"},
                                     {"token": "garbage"}, {"authorization": 5}])
async def test_websocket_without_valid_token_is_refused(payload):
    comm, out = await _ws_init(payload)
    assert _closed_with(out, 4403)
    await comm.disconnect()


async def test_websocket_refuses_banned_player(guest_token):
    from channels.db import database_sync_to_async as sync_to_async

    await sync_to_async(lambda: Player.objects.update(banned_at=timezone.now()))()
    comm, out = await _ws_init({"token": guest_token})
    assert _closed_with(out, 4403)
    await comm.disconnect()


async def test_legacy_graphql_ws_protocol_is_not_offered(guest_token):
    comm = WebsocketCommunicator(application, "/graphql/", subprotocols=["graphql-ws"])
    connected, _ = await comm.connect()
    assert not connected or (await comm.receive_output(timeout=5))["type"] == "websocket.close"
    await comm.disconnect()


def test_cors_preflight_allows_configured_origins_only(client, settings):
    settings.CORS_ALLOWED_ORIGINS = ["https://cards.example"]
    ok = client.options("/graphql/", headers={"Origin": "https://cards.example",
                                               "Access-Control-Request-Method": "POST",
                                               "Access-Control-Request-Headers": "authorization,content-type"})
    assert ok.headers["access-control-allow-origin"] == "https://cards.example"
    assert "authorization" in ok.headers["access-control-allow-headers"]
    other = client.options("/graphql/", headers={"Origin": "https://evil.example",
                                                  "Access-Control-Request-Method": "POST"})
    assert "access-control-allow-origin" not in other.headers


def test_expected_errors_leave_no_traceback_in_the_log(gql, caplog):
    with caplog.at_level("ERROR"):
        gql.raw("{ apiTokens { id } }")  # unauthenticated: a typed error, not a fault
        gql.raw("{ nope }")
    assert not [r for r in caplog.records if r.levelname == "ERROR"]
