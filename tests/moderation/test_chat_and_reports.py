"""Chat, reports and the moderation log over GraphQL: muted players cannot chat, hidden
messages disappear for players (live and in every replay), reports reach the admin, and the
audit log records every moderator action."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.models import Player
from games import moderation
from games.models import AuditLog, ChatMessage, LogKind, Report, Table, TableLogEntry
from games.selectors import table_pk_from_public

from .conftest import playing_table, staff_groups

pytestmark = pytest.mark.django_db(transaction=True)

SAY = """mutation($t: ID!, $text: String!) { sendChatMessage(tableId: $t, text: $text) {
  message { id seq text author { displayName } } errors { code message field retryAfter } } }"""
EVENTS = """query($t: ID!, $after: Int!) { table(id: $t) { version
  events(afterSeq: $after) { seq kind version events { type data } } } }"""
REPORT = """mutation($p: ID!, $r: String!, $t: ID, $m: ID) {
  reportPlayer(playerId: $p, reason: $r, tableId: $t, messageId: $m) {
    report { id status } errors { code field } } }"""
LOG = """query($first: Int!, $after: String) { moderationLog(first: $first, after: $after) {
  items { action reason actor { displayName } targetPlayer { displayName } tableId messageId
          reportId extra } nextCursor } }"""
CREATE = """mutation($input: CreateTableInput!) { createTable(input: $input) { table { id } errors { code } } }"""


def guest(gql, name):
    data = gql('mutation($n: String!) { createGuest(displayName: $n) { token me { id } } }',
               {"n": name})["createGuest"]
    client = type(gql)(gql.client, data["token"])
    client.player = Player.objects.get(pk=data["me"]["id"])
    return client


@pytest.fixture
def alice(gql):
    return guest(gql, "Alice")


@pytest.fixture
def bob(gql):
    return guest(gql, "Bob")


@pytest.fixture
def mod(db):
    from .conftest import person

    staff_groups()
    return person("mona", staff=True, group="moderator")


@pytest.fixture
def table_id(alice, bob):
    return playing_table(alice.player, bob.player).public_id


def say(client, table_id, text):
    return client(SAY, {"t": table_id, "text": text})["sendChatMessage"]


def chat_events(client, table_id, after=0):
    table = client(EVENTS, {"t": table_id, "after": after})["table"]
    return table, [(u, e) for u in table["events"] for e in u["events"]
                   if e["type"].startswith("chat")]


def test_a_seated_player_chats_and_everyone_reads_it_in_the_log(alice, bob, table_id):
    before = bob(EVENTS, {"t": table_id, "after": 0})["table"]["version"]
    sent = say(alice, table_id, "  good \n luck\x07 all  ")
    assert sent["errors"] == [] and sent["message"]["text"] == "good luck all"
    table, events = chat_events(bob, table_id)
    assert table["version"] == before  # chat does not bump the version
    (update, event), = events
    assert update["kind"] == "chat" and update["seq"] == sent["message"]["seq"]
    assert event["data"]["text"] == "good luck all"
    assert event["data"]["displayName"] == "Alice" and event["data"]["seat"] == 0
    # The log itself keeps no text (it is looked up when read).
    entry = TableLogEntry.objects.get(kind=LogKind.CHAT)
    assert "text" not in entry.events[0]


@pytest.mark.parametrize("text, code", [("", "invalid_text"), ("   \n\t ", "invalid_text"),
                                        ("x" * 501, "invalid_text")])
def test_chat_text_is_one_to_five_hundred_characters(alice, table_id, text, code):
    assert say(alice, table_id, text)["errors"][0]["code"] == code
    assert not ChatMessage.objects.exists()


def test_spectators_chat_only_where_the_table_allows_it(gql, alice, bob):
    carol = guest(gql, "Carol")
    closed = playing_table(alice.player, bob.player)
    assert say(carol, closed.public_id, "hi")["errors"][0]["code"] == "chat_not_allowed"
    open_id = alice(CREATE, {"input": {"game": "kato", "spectatorsMayChat": True,
                                       "seatCount": 2}})["createTable"]["table"]["id"]
    sent = say(carol, open_id, "hello from the stands")
    assert sent["errors"] == []
    _, events = chat_events(alice, open_id)
    assert events[0][1]["data"]["seat"] is None


def test_chat_is_rate_limited(alice, table_id, settings):
    settings.STAPEL_RATE_LIMITS = {**settings.STAPEL_RATE_LIMITS, "chat": "3 per minute"}
    for i in range(3):
        assert say(alice, table_id, f"message {i}")["errors"] == []
    error = say(alice, table_id, "one too many")["errors"][0]
    assert error["code"] == "rate_limited"
    assert 55 <= error["retryAfter"] <= 60
    assert ChatMessage.objects.count() == 3


def test_muted_players_cannot_chat_until_unmuted(alice, bob, table_id, mod):
    from games import chat

    until = timezone.now() + timedelta(hours=2)
    moderation.player_mute(actor=mod, player_id=alice.player.pk, reason="spam", until=until)
    # Also a player object read before the mute (a websocket's) is refused.
    with pytest.raises(chat.ChatError, match="muted until"):
        chat.chat_message_send(player=alice.player, table_id=table_pk_from_public(table_id),
                               text="stale me")
    error = say(alice, table_id, "let me talk")["errors"][0]
    assert error["code"] == "muted"
    assert until.strftime("%Y-%m-%dT%H:%M") in error["message"]
    assert alice("{ me { mutedUntil } }")["me"]["mutedUntil"] is not None
    assert not ChatMessage.objects.exists()
    moderation.player_unmute(actor=mod, player_id=alice.player.pk)
    assert say(alice, table_id, "thanks")["errors"] == []


def test_hidden_messages_disappear_for_players_in_every_replay(alice, bob, table_id, mod):
    sent = say(alice, table_id, "something nasty")["message"]
    say(alice, table_id, "something nice")
    moderation.chat_message_hide(actor=mod, message_id=sent["id"], reason="insult")
    for client in (alice, bob):
        table, events = chat_events(client, table_id)
        texts = [e["data"].get("text") for _, e in events]
        assert "something nasty" not in texts and "something nice" in texts
        hidden = [e for _, e in events if e["type"] == "chat_hidden"]
        assert hidden and hidden[0]["data"]["messageId"] == int(sent["id"])
        original = next(e for _, e in events if e["data"].get("messageId") == int(sent["id"])
                        and e["type"] == "chat")
        assert original["data"]["hidden"] is True and "text" not in original["data"]
    moderation.chat_message_unhide(actor=mod, message_id=sent["id"])
    _, events = chat_events(bob, table_id)
    assert "something nasty" in [e["data"].get("text") for _, e in events]
    assert [e["type"] for _, e in events][-1] == "chat_unhidden"


async def _socket(token):
    from channels.testing import WebsocketCommunicator

    from config.asgi import application

    ws = WebsocketCommunicator(application, "/graphql/", subprotocols=["graphql-transport-ws"])
    assert (await ws.connect())[0]
    await ws.send_json_to({"type": "connection_init", "payload": {"token": token}})
    assert (await ws.receive_json_from(timeout=5))["type"] == "connection_ack"
    return ws


async def test_chat_and_its_hiding_arrive_live_in_table_events(alice, bob, table_id, mod):
    from channels.db import database_sync_to_async

    last_seq = await database_sync_to_async(
        lambda: Table.objects.get(public_id=table_id).last_seq)()
    ws = await _socket(bob.token)
    await ws.send_json_to({"id": "1", "type": "subscribe", "payload": {
        "query": """subscription($t: ID!, $after: Int!) {
            tableEvents(tableId: $t, afterSeq: $after) { seq kind events { type data } } }""",
        "variables": {"t": table_id, "after": last_seq}}})
    await ws.receive_nothing(0.2)
    sent = await database_sync_to_async(say)(alice, table_id, "psst")
    first = (await ws.receive_json_from(timeout=5))["payload"]["data"]["tableEvents"]
    assert first["kind"] == "chat" and first["events"][0]["data"]["text"] == "psst"
    await database_sync_to_async(moderation.chat_message_hide)(
        actor=mod, message_id=sent["message"]["id"], reason="spoiler")
    second = (await ws.receive_json_from(timeout=5))["payload"]["data"]["tableEvents"]
    event = second["events"][0]
    assert event["type"] == "chat_hidden"
    assert event["data"]["messageId"] == int(sent["message"]["id"])
    assert "psst" not in str(second)
    await ws.disconnect()


async def test_a_ban_closes_every_websocket_of_the_player(alice, bob, mod):
    from channels.db import database_sync_to_async

    sockets = [await _socket(alice.token), await _socket(alice.token)]
    bystander = await _socket(bob.token)
    await database_sync_to_async(moderation.player_ban)(
        actor=mod, player_id=alice.player.pk, reason="cheating")
    for ws in sockets:
        out = await ws.receive_output(timeout=5)
        assert out["type"] == "websocket.close" and out["code"] == 4403
    assert await bystander.receive_nothing(0.3)
    await bystander.disconnect()


def test_reports_flow_from_the_api_to_the_admin_queue(client, alice, bob, table_id, mod):
    sent = say(bob, table_id, "you are terrible")["message"]
    data = alice(REPORT, {"p": str(bob.player.pk), "r": "insulted me", "t": table_id,
                          "m": sent["id"]})["reportPlayer"]
    assert data["errors"] == [] and data["report"]["status"] == "OPEN"
    report = Report.objects.get()
    assert (report.reporter, report.reported, report.table_id, report.message_id) == (
        alice.player, bob.player, table_pk_from_public(table_id), int(sent["id"]))
    assert alice(REPORT, {"p": str(alice.player.pk), "r": "me"})["reportPlayer"]["errors"][0][
        "code"] == "cannot_report_self"
    assert alice(REPORT, {"p": str(bob.player.pk), "r": " "})["reportPlayer"]["errors"][0][
        "code"] == "invalid_reason"
    assert alice(REPORT, {"p": str(alice.player.pk + 999), "r": "x"})["reportPlayer"][
        "errors"][0]["code"] == "not_found"
    client.force_login(mod)
    html = client.get(reverse("admin:games_report_changelist")).content.decode()
    assert "insulted me" in html and "you are terrible" in html
    moderation.report_resolve(actor=mod, report_id=report.pk, note="warned")
    with pytest.raises(moderation.ModerationError, match="resolved already"):
        moderation.report_resolve(actor=mod, report_id=report.pk, note="again")


def test_the_audit_log_records_every_moderator_action(gql, alice, bob, table_id, mod):
    message = ChatMessage.objects.get(pk=say(bob, table_id, "hm")["message"]["id"])
    report = moderation.report_create(reporter=alice.player, player_id=bob.player.pk,
                                      reason="rude")
    soon = timezone.now() + timedelta(days=1)
    moderation.player_mute(actor=mod, player_id=bob.player.pk, reason="r1", until=soon)
    moderation.player_unmute(actor=mod, player_id=bob.player.pk, reason="r2")
    moderation.chat_message_hide(actor=mod, message_id=message.pk, reason="r3")
    moderation.chat_message_unhide(actor=mod, message_id=message.pk, reason="r4")
    moderation.report_resolve(actor=mod, report_id=report.pk, note="r5")
    moderation.player_tokens_revoke(actor=mod, player_id=alice.player.pk, reason="r6")
    moderation.player_ban(actor=mod, player_id=bob.player.pk, reason="r7", until=soon)
    moderation.player_unban(actor=mod, player_id=bob.player.pk, reason="r8")
    other = playing_table(alice.player, bob.player)
    moderation.table_abort(actor=mod, table_id=other.pk, reason="r9")
    rows = list(AuditLog.objects.order_by("id"))
    assert [(r.action, r.reason) for r in rows] == [
        ("player_mute", "r1"), ("player_unmute", "r2"), ("chat_hide", "r3"),
        ("chat_unhide", "r4"), ("report_resolve", "r5"), ("player_tokens_revoke", "r6"),
        ("player_ban", "r7"), ("player_unban", "r8"), ("table_abort", "r9")]
    assert all(r.actor_id == mod.pk for r in rows)
    assert rows[2].target_message_id == message.pk and rows[4].target_report_id == report.pk
    assert rows[6].extra["seats_handed_to_bots"] == 1 and rows[8].target_table_id == other.pk

    # ...and moderators read it over the API, page by page; players may not.
    staff = type(gql)(gql.client, None)
    from accounts import services as account_services

    mod.set_password("a-long-moderator-password")
    mod.save()
    _, staff.token = account_services.player_login(username="mona",
                                                   password="a-long-moderator-password")
    page = staff(LOG, {"first": 5})["moderationLog"]
    assert [i["action"] for i in page["items"]] == [
        "table_abort", "player_unban", "player_ban", "player_tokens_revoke", "report_resolve"]
    assert page["items"][0]["tableId"] == other.public_id
    rest = staff(LOG, {"first": 5, "after": page["nextCursor"]})["moderationLog"]
    assert len(rest["items"]) == 4 and rest["nextCursor"] is None
    refused = bob.raw(LOG, {"first": 5}).json()
    assert refused["data"]["moderationLog"] is None
    assert refused["errors"][0]["extensions"]["code"] == "forbidden"


def test_only_moderators_may_use_the_moderation_services(alice, bob, table_id):
    for call in (
        lambda: moderation.player_ban(actor=alice.player, player_id=bob.player.pk, reason="x"),
        lambda: moderation.table_abort(actor=alice.player, table_id=table_pk_from_public(table_id),
                               reason="x"),
    ):
        with pytest.raises(moderation.ModerationError) as exc:
            call()
        assert exc.value.code == "forbidden"
    assert not AuditLog.objects.exists()
