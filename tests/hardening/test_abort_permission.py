"""Finding 5: any staff member could abort any table over GraphQL, with no permission check
and no audit row. Now the creator ends a table that has not started; anything else is a
moderator's action through games.moderation: the permission, a reason, an audit row."""

import pytest

from accounts import services as account_services
from games import services
from games.models import AuditLog, Table
from tests.conftest import GraphQLClient
from tests.moderation.conftest import person, playing_table

pytestmark = pytest.mark.django_db(transaction=True)

ABORT = """mutation($id: ID!, $r: String!) { abortTable(tableId: $id, reason: $r) {
  table { status } errors { code field } } }"""


def _as(client, player):
    _, raw = account_services.api_token_create(player=player, name="test")
    return GraphQLClient(client, raw)


def _abort(client, player, table, reason="cheating"):
    return _as(client, player)(ABORT, {"id": table.public_id, "r": reason})["abortTable"]


def test_an_organiser_cannot_abort_a_strangers_table(client):
    alice, bob = person("alice"), person("bob")
    table = playing_table(alice, bob)
    organiser = person("otto", staff=True, group="organiser")
    assert _abort(client, organiser, table)["errors"] == [{"code": "forbidden", "field": None}]
    assert Table.objects.get(pk=table.pk).status == "playing"
    assert not AuditLog.objects.exists()


def test_a_moderator_aborts_through_moderation_with_an_audit_row(client):
    alice, bob = person("alice"), person("bob")
    table = playing_table(alice, bob)
    moderator = person("mona", staff=True, group="moderator")
    assert _abort(client, moderator, table, reason="")["errors"][0]["code"] == "reason_required"
    assert _abort(client, moderator, table)["table"] == {"status": "ABORTED"}
    audit = AuditLog.objects.get(action="table_abort")
    assert (audit.actor_id, audit.target_table_id, audit.reason) == (moderator.pk, table.pk,
                                                                     "cheating")


def test_the_creator_aborts_an_open_table_but_not_a_started_one(client):
    alice, bob = person("alice"), person("bob")
    open_table = services.table_create(creator=alice, game="kato", seat_count=2)
    assert _abort(client, bob, open_table)["errors"][0]["code"] == "not_creator"
    assert _abort(client, alice, open_table)["table"] == {"status": "ABORTED"}
    started = playing_table(alice, bob)
    assert _abort(client, alice, started)["errors"][0]["code"] == "not_creator"
    assert Table.objects.get(pk=started.pk).status == "playing"
    assert not AuditLog.objects.exists()
