"""A ban mid-match on the real server: the moderator bans from the admin, the player's
websocket is closed at once, their token is refused, and a bot (on the real Celery worker)
plays their seat while the match goes on to its end."""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async

from accounts.models import Player
from games.models import AuditLog, Seat, Table, TableLogEntry
from tests.moderation.conftest import PASSWORD, staff_groups

from .admin_client import AdminSession
from .client import GraphQLError, Http
from .play import START, new_guest, open_table
from .play import Seat as PlayingSeat

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


async def make_moderator(base_url: str, username: str = "mona") -> Player:
    """Registered through the server (so its password hasher is the server's), then made
    staff in the moderator group."""
    data = await Http(base_url)(
        """mutation($u: String!, $p: String!) { register(username: $u, password: $p,
             displayName: "Mona") { me { id } errors { code message } } }""",
        {"u": username, "p": PASSWORD})
    assert data["register"]["errors"] == [], data

    def promote():
        from django.contrib.auth.models import Group

        staff_groups()
        player = Player.objects.get(username=username)
        player.is_staff = True
        player.save(update_fields=["is_staff"])
        player.groups.add(Group.objects.get(name="moderator"))
        return player

    return await database_sync_to_async(promote)()


async def test_a_ban_mid_match_closes_the_socket_refuses_the_token_and_a_bot_plays_on(
        live_server_url, celery_worker_proc):
    moderator = await make_moderator(live_server_url)
    alice = await new_guest(live_server_url, "Alice")
    bob = await new_guest(live_server_url, "Bob")
    table_id = await open_table(alice, [bob], "kato", {"rounds": 1})
    a = PlayingSeat(live_server_url, alice, table_id, seed=1)
    b = PlayingSeat(live_server_url, bob, table_id, seed=2)
    await a.connect()
    await b.connect()
    await alice(START, {"id": table_id})
    # Both play a few moves; then Bob stops, and Alice keeps playing for herself.
    await asyncio.gather(a.play(until_seq=6), b.play(until_seq=6))
    alice_plays = asyncio.create_task(a.play(timeout=60))
    bob_id = (await bob("{ me { id } }"))["me"]["id"]

    admin = AdminSession(live_server_url)
    await admin.login("mona", PASSWORD)
    response = await admin.submit(f"/admin/accounts/player/{bob_id}/do/ban/",
                                  {"reason": "abusive chat", "duration": "7d"})
    assert response.status_code == 302, response.text[:500]
    await admin.close()

    # Every socket of Bob's is closed by the server, with 4403.
    await asyncio.wait_for(b.socket.closed.wait(), 10)
    assert b.socket.close_code == 4403
    # His token is refused from now on.
    with pytest.raises(GraphQLError) as refused:
        await bob("{ me { id } }")
    assert refused.value.args[0][0]["extensions"]["code"] == "banned"
    # The match goes on with a bot in his seat, to its end.
    await asyncio.wait_for(alice_plays, 90)
    await a.disconnect()
    table = await database_sync_to_async(Table.objects.get)(public_id=table_id)
    assert table.status == "finished"

    def facts():
        seat = Seat.objects.get(table__public_id=table_id, player_id=bob_id)
        took_over = TableLogEntry.objects.get(table__public_id=table_id, kind="seats",
                                              events__0__type="bot_took_over")
        bot_moves = TableLogEntry.objects.filter(table__public_id=table_id, kind="bot",
                                                 seat=seat.position,
                                                 seq__gt=took_over.seq).count()
        audit = AuditLog.objects.get(action="player_ban")
        return seat, took_over, bot_moves, audit

    seat, took_over, bot_moves, audit = await database_sync_to_async(facts)()
    assert seat.taken_over_by_bot and took_over.events[0]["reason"] == "banned"
    assert bot_moves > 0
    assert audit.actor_id == moderator.pk and str(audit.target_player_id) == bob_id
    assert any(e["type"] == "bot_took_over" for u in a.updates for e in u["events"])
