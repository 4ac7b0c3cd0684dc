"""Finding 4: a revoked token kept working on a websocket opened before the revocation.
Revoking a token, revoking all of a player's, a password change (API or admin) close every
socket of those tokens at once (4403) and nothing more is sent on them; tokens may expire,
and ``me`` says when."""

import json
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from accounts import services as account_services
from accounts.models import ApiToken, Player
from config.asgi import application
from tests.conftest import GraphQLClient

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "a long and fine password"
REGISTER = """mutation($u: String!, $p: String!) { register(username: $u, password: $p,
  displayName: "Rita") { token me { tokenExpiresAt } errors { code } } }"""
LOGIN = """mutation($u: String!, $p: String!) { login(username: $u, password: $p) {
  token errors { code } } }"""
TOKENS = "{ apiTokens { id name revokedAt } }"
REVOKE = "mutation($id: ID!) { revokeApiToken(id: $id) { apiToken { revokedAt } errors { code } } }"


async def _socket(token):
    comm = WebsocketCommunicator(application, "/graphql/", subprotocols=["graphql-transport-ws"])
    connected, _ = await comm.connect()
    assert connected
    await comm.send_json_to({"type": "connection_init", "payload": {"token": token}})
    assert (await comm.receive_json_from(timeout=5))["type"] == "connection_ack"
    return comm


async def _me(comm, op_id="1"):
    await comm.send_json_to({"id": op_id, "type": "subscribe",
                             "payload": {"query": "{ me { id } }"}})
    return await comm.receive_output(timeout=5)


def _http(client, token=None):
    return GraphQLClient(client, token)


@pytest.fixture
def rita(client):
    data = _http(client)(REGISTER, {"u": "rita", "p": PASSWORD})["register"]
    return data["token"]


async def _call(client, token, query, variables=None):
    return await database_sync_to_async(lambda: _http(client, token)(query, variables))()


async def test_revoking_a_token_closes_its_open_socket_at_once(client, rita):
    phone = (await _call(client, rita, LOGIN, {"u": "rita", "p": PASSWORD}))["login"]["token"]
    on_phone = await _socket(phone)
    on_laptop = await _socket(rita)
    assert json.loads((await _me(on_phone))["text"])["type"] == "next"
    await on_phone.receive_json_from(timeout=5)  # complete

    tokens = (await _call(client, rita, TOKENS))["apiTokens"]
    phone_id = next(t["id"] for t in tokens if t["revokedAt"] is None and t["name"] == "login"
                    and t != tokens[-1])
    revoked = await _call(client, rita, REVOKE, {"id": phone_id})
    assert revoked["revokeApiToken"]["errors"] == []

    out = await on_phone.receive_output(timeout=5)
    assert out == {"type": "websocket.close", "code": 4403}
    # The other token's socket lives on and answers.
    assert json.loads((await _me(on_laptop, "9"))["text"])["payload"]["data"]["me"]["id"]
    await on_laptop.disconnect()


async def test_after_the_close_nothing_more_is_sent_on_that_socket(client, rita):
    comm = await _socket(rita)
    token = await database_sync_to_async(ApiToken.objects.select_related("player").get)()
    await database_sync_to_async(account_services.api_token_revoke)(player=token.player,
                                                                    token_id=token.pk)
    assert await comm.receive_output(timeout=5) == {"type": "websocket.close", "code": 4403}
    # A client that ignores the close and goes on (the consumer lives until it disconnects):
    # not even a new token comes back.
    await comm.send_json_to({"id": "2", "type": "subscribe", "payload": {
        "query": 'mutation { createApiToken(name: "x") { token } }'}})
    assert await comm.receive_nothing(timeout=0.5)
    await comm.disconnect()


async def test_a_socket_of_a_token_revoked_before_it_joined_is_refused(client, rita):
    await database_sync_to_async(lambda: ApiToken.objects.update(revoked_at=timezone.now()))()
    comm = WebsocketCommunicator(application, "/graphql/", subprotocols=["graphql-transport-ws"])
    await comm.connect()
    await comm.send_json_to({"type": "connection_init", "payload": {"token": rita}})
    out = await comm.receive_output(timeout=5)
    assert out["type"] == "websocket.close" and out["code"] == 4403
    await comm.disconnect()


async def test_a_password_change_closes_the_other_tokens_sockets_and_keeps_this_one(client,
                                                                                     rita):
    other = (await _call(client, rita, LOGIN, {"u": "rita", "p": PASSWORD}))["login"]["token"]
    on_other = await _socket(other)
    changed = await _call(client, rita, """mutation($c: String!, $n: String!) {
        changePassword(currentPassword: $c, newPassword: $n) { me { id } errors { code field } } }""",
                          {"c": PASSWORD, "n": "another long fine password"})
    assert changed["changePassword"]["errors"] == []
    assert await on_other.receive_output(timeout=5) == {"type": "websocket.close", "code": 4403}
    assert (await _call(client, rita, "{ me { username } }"))["me"]["username"] == "rita"
    body = await database_sync_to_async(lambda: _http(client, other).raw("{ me { id } }").json())()
    assert body["errors"][0]["extensions"]["code"] == "invalid_token"


def test_a_wrong_current_password_changes_nothing(client, rita):
    data = _http(client, rita)("""mutation { changePassword(currentPassword: "nope",
        newPassword: "another long fine password") { errors { code field } } }""")
    assert data["changePassword"]["errors"] == [{"code": "invalid_credentials",
                                                 "field": "currentPassword"}]


def test_a_password_set_in_the_admin_revokes_every_token(client, rita):
    admin = Player.objects.create_superuser(username="root", password=PASSWORD,
                                            display_name="Root")
    rita_id = Player.objects.get(username="rita").pk
    client.force_login(admin)
    response = client.post(f"/admin/accounts/player/{rita_id}/password/",
                           {"password1": "a brand new password", "password2":
                            "a brand new password", "usable_password": "true"})
    assert response.status_code == 302, response.content[:2000]
    client.logout()
    assert not ApiToken.objects.filter(player_id=rita_id, revoked_at=None).exists()
    assert admin.pk


def test_tokens_expire_after_the_configured_lifetime_and_me_says_when(client, settings):
    settings.API_TOKEN_LIFETIME_DAYS = 7
    token = _http(client)(REGISTER, {"u": "lena", "p": PASSWORD})["register"]["token"]
    me = _http(client, token)("{ me { tokenExpiresAt } }")["me"]
    expires = ApiToken.objects.get(player__username="lena").expires_at
    assert abs(expires - timezone.now() - timedelta(days=7)) < timedelta(minutes=1)
    assert me["tokenExpiresAt"].startswith(expires.isoformat()[:16])
    ApiToken.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    body = _http(client, token).raw("{ me { id } }").json()
    assert body["errors"][0]["extensions"]["code"] == "token_expired"


def test_a_guest_token_expires_after_a_time_unused(client, settings, guest_token):
    settings.GUEST_TOKEN_IDLE_DAYS = 30
    me = _http(client, guest_token)("{ me { tokenExpiresAt } }")["me"]
    assert me["tokenExpiresAt"] is not None
    ApiToken.objects.update(last_used_at=timezone.now() - timedelta(days=29),
                            created_at=timezone.now() - timedelta(days=60))
    assert _http(client, guest_token)("{ me { id } }")["me"]  # still in its window: used now
    ApiToken.objects.update(last_used_at=timezone.now() - timedelta(days=31))
    body = _http(client, guest_token).raw("{ me { id } }").json()
    assert body["errors"][0]["extensions"]["code"] == "token_expired"


def test_without_a_lifetime_a_registered_token_does_not_expire(client):
    token = _http(client)(REGISTER, {"u": "otto", "p": PASSWORD})["register"]["token"]
    assert _http(client, token)("{ me { tokenExpiresAt } }")["me"]["tokenExpiresAt"] is None
