"""The admin for moderators: every page and action works for a moderator, through the
moderation services (so the audit log has each step), and is refused to a plain player."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts import services as account_services
from accounts.models import ApiToken
from games import moderation, services
from games.models import (
    AuditLog,
    ChatMessage,
    PlayerStats,
    Report,
    ReportStatus,
    Table,
    TableStatus,
)

from .conftest import person

pytestmark = pytest.mark.django_db


def pages(table, message, report, troll):
    audit = AuditLog.objects.create(actor=None, action="test", reason="seed")
    stats = PlayerStats.objects.create(player=troll, game="kato", rounds_played=3, rounds_won=1)
    return [
        reverse("admin:index"),
        reverse("admin:accounts_player_changelist"),
        reverse("admin:accounts_player_changelist") + "?q=troll&standing=banned",
        reverse("admin:accounts_player_change", args=[troll.pk]),
        reverse("admin:games_table_changelist"),
        reverse("admin:games_table_changelist") + "?status__exact=playing",
        reverse("admin:games_table_change", args=[table.pk]),
        reverse("admin:games_table_log", args=[table.pk]),
        reverse("admin:games_table_log", args=[table.pk]) + "?step=3",
        reverse("admin:games_chatmessage_changelist"),
        reverse("admin:games_chatmessage_change", args=[message.pk]),
        reverse("admin:games_report_changelist"),
        reverse("admin:games_report_changelist") + "?status=all",
        reverse("admin:games_report_change", args=[report.pk]),
        reverse("admin:games_auditlog_changelist"),
        reverse("admin:games_auditlog_change", args=[audit.pk]),
        reverse("admin:games_playerstats_changelist") + "?game=kato&q=troll",
        reverse("admin:games_playerstats_change", args=[stats.pk]),
        reverse("admin:accounts_player_do", args=[troll.pk, "ban"]),
        reverse("admin:games_table_do", args=[table.pk, "abort"]),
        reverse("admin:games_chatmessage_do", args=[message.pk, "hide"]),
        reverse("admin:games_report_do", args=[report.pk, "resolve"]),
    ]


@pytest.fixture
def report(troll, plain, table, message):
    return moderation.report_create(reporter=plain, player_id=troll.pk, reason="insults",
                                    table_id=table.pk, message_id=message.pk)


def test_every_page_opens_for_a_moderator(client, moderator, table, message, report, troll):
    client.force_login(moderator)
    for url in pages(table, message, report, troll):
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)


def test_every_page_is_refused_to_a_plain_player(client, plain, table, message, report, troll):
    client.force_login(plain)
    for url in pages(table, message, report, troll):
        response = client.get(url)
        assert response.status_code == 302 and "/admin/login/" in response["Location"], url


def test_staff_without_a_group_sees_no_moderation_page(client, staff_without_group, table,
                                                       message, report, troll):
    client.force_login(staff_without_group)
    for url in pages(table, message, report, troll)[1:]:
        assert client.get(url).status_code == 403, url


def test_an_organiser_may_look_at_tables_but_not_ban(client, organiser, table, troll):
    client.force_login(organiser)
    assert client.get(reverse("admin:games_table_change", args=[table.pk])).status_code == 200
    assert client.get(reverse("admin:accounts_player_do", args=[troll.pk, "ban"])).status_code == 403
    assert client.get(reverse("admin:games_chatmessage_changelist")).status_code == 403
    assert client.get(reverse("admin:games_playerstats_changelist")).status_code == 200


def test_a_moderator_sees_every_hand_of_a_table(client, moderator, table):
    client.force_login(moderator)
    html = client.get(reverse("admin:games_table_change", args=[table.pk])).content.decode()
    table.refresh_from_db()
    for hand in table.state["hands"]:
        for card in hand:
            assert f'<span class="stapel-card">{card}</span>' in html
    assert "Abort table" in html and "Step through the log" in html


def test_the_log_steps_through_the_states_of_the_match(client, moderator, table):
    client.force_login(moderator)
    table.refresh_from_db()
    html = client.get(reverse("admin:games_table_log", args=[table.pk]) +
                      f"?step={table.last_seq}").content.decode()
    assert "match_started" in html and f"State after step {table.last_seq}" in html
    first_hand = table.state["hands"][0]
    assert all(f'<span class="stapel-card">{c}</span>' in html for c in first_hand)


def action_post(client, url, action, ids, **form):
    """Pick a changelist action (the intermediate form), then apply it."""
    data = {"action": action, "_selected_action": [str(i) for i in ids], "index": "0"}
    response = client.post(url, data)
    assert response.status_code == 200, response
    assert b'name="apply"' in response.content
    response = client.post(url, {**data, **form, "apply": "1"})
    assert response.status_code == 302, response.content.decode()[:2000]
    return response


def test_ban_from_the_player_list_with_reason_and_until(client, moderator, troll, table, plain):
    waiting = services.table_create(creator=plain, game="kato", seat_count=3)
    services.table_join(player=troll, table_id=waiting.pk)
    client.force_login(moderator)
    action_post(client, reverse("admin:accounts_player_changelist"), "ban", [troll.pk],
                reason="insulting everyone", duration="7d")
    troll.refresh_from_db()
    assert troll.is_banned() and troll.ban_reason == "insulting everyone"
    assert timedelta(days=6) < troll.banned_until - timezone.now() <= timedelta(days=7)
    seat = table.seats.get(player=troll)
    assert seat.taken_over_by_bot
    entry = AuditLog.objects.get(action="player_ban")
    assert (entry.actor, entry.target_player, entry.reason) == (moderator, troll,
                                                                "insulting everyone")
    assert entry.extra["seats_handed_to_bots"] == 1
    assert entry.extra["open_tables_left"] == [waiting.pk]
    assert not waiting.seats.filter(player=troll).exists()
    with pytest.raises(Exception, match="banned"):
        account_services.player_for_token(troll.raw_token)


def test_ban_needs_a_reason_and_a_future_date(client, moderator, troll):
    client.force_login(moderator)
    url = reverse("admin:accounts_player_do", args=[troll.pk, "ban"])
    response = client.post(url, {"reason": "", "duration": "custom", "until": "2000-01-01 00:00"})
    assert response.status_code == 200
    assert response.context["form"].errors.keys() == {"reason", "until"}
    troll.refresh_from_db()
    assert not troll.is_banned() and not AuditLog.objects.exists()


def test_ban_for_good_unban_mute_unmute_and_revoke_from_the_player_page(client, moderator, troll):
    client.force_login(moderator)
    change = reverse("admin:accounts_player_change", args=[troll.pk])
    html = client.get(change).content.decode()
    assert "Ban" in html and "Mute" in html and "Revoke all tokens" in html

    def do(name, **form):
        response = client.post(reverse("admin:accounts_player_do", args=[troll.pk, name]), form)
        assert response.status_code == 302 and response["Location"] == change
        troll.refresh_from_db()

    do("ban", reason="spam", duration="forever")
    assert troll.is_banned() and troll.banned_until is None
    do("unban", reason="appeal granted")
    assert not troll.is_banned()
    do("mute", reason="caps lock", duration="24h")
    assert troll.is_muted()
    do("unmute")
    assert not troll.is_muted()
    do("revoke_tokens", reason="token leaked")
    assert not ApiToken.objects.filter(player=troll, revoked_at=None).exists()
    assert list(AuditLog.objects.order_by("id").values_list("action", flat=True)) == [
        "player_ban", "player_unban", "player_mute", "player_unmute", "player_tokens_revoke"]


def test_abort_a_table_with_a_reason(client, moderator, table):
    client.force_login(moderator)
    action_post(client, reverse("admin:games_table_changelist"), "abort", [table.pk],
                reason="collusion")
    table.refresh_from_db()
    assert table.status == TableStatus.ABORTED and table.abort_reason == "collusion"
    assert AuditLog.objects.get(action="table_abort").target_table_id == table.pk


def test_hide_and_unhide_chat(client, moderator, message):
    client.force_login(moderator)
    url = reverse("admin:games_chatmessage_changelist")
    action_post(client, url, "hide", [message.pk], reason="slur")
    message.refresh_from_db()
    assert message.hidden and message.hidden_reason == "slur"
    action_post(client, url, "unhide", [message.pk], reason="")
    message.refresh_from_db()
    assert not message.hidden
    assert list(AuditLog.objects.order_by("id").values_list("action", flat=True)) == [
        "chat_hide", "chat_unhide"]


def test_the_report_queue_shows_open_reports_with_their_links_and_resolves(
        client, moderator, report, troll, table, message):
    client.force_login(moderator)
    url = reverse("admin:games_report_changelist")
    html = client.get(url).content.decode()
    assert "insults" in html and "you all stink" in html and f"#{table.pk} kato" in html
    assert reverse("admin:accounts_player_change", args=[troll.pk]) in html
    action_post(client, url, "resolve", [report.pk], note="muted for a day")
    report.refresh_from_db()
    assert (report.status, report.resolution_note, report.handled_by) == (
        ReportStatus.RESOLVED, "muted for a day", moderator)
    assert "insults" not in client.get(url).content.decode()  # the queue shows open ones
    assert AuditLog.objects.get(action="report_resolve").target_report_id == report.pk
    # Handled once only.
    other = moderation.report_create(reporter=troll, player_id=moderator.pk, reason="unfair")
    action_post(client, url, "dismiss", [other.pk], note="nothing to see")
    assert Report.objects.get(pk=other.pk).status == ReportStatus.DISMISSED


def test_actions_are_refused_to_a_plain_player(client, plain, troll, table, message):
    client.force_login(plain)
    for url, data in [
        (reverse("admin:accounts_player_changelist"),
         {"action": "ban", "_selected_action": [troll.pk], "apply": "1", "reason": "x",
          "duration": "7d"}),
        (reverse("admin:accounts_player_do", args=[troll.pk, "ban"]),
         {"reason": "x", "duration": "7d"}),
        (reverse("admin:games_table_do", args=[table.pk, "abort"]), {"reason": "x"}),
        (reverse("admin:games_chatmessage_do", args=[message.pk, "hide"]), {"reason": "x"}),
    ]:
        response = client.post(url, data)
        assert response.status_code == 302 and "/admin/login/" in response["Location"]
    troll.refresh_from_db()
    message.refresh_from_db()
    assert not troll.is_banned() and not message.hidden
    assert Table.objects.get(pk=table.pk).status == TableStatus.PLAYING
    assert not AuditLog.objects.exists()


def test_a_staff_member_without_the_permission_cannot_act(client, staff_without_group, troll):
    client.force_login(staff_without_group)
    response = client.post(reverse("admin:accounts_player_do", args=[troll.pk, "ban"]),
                           {"reason": "x", "duration": "7d"})
    assert response.status_code == 403
    with pytest.raises(moderation.ModerationError, match="may not"):
        moderation.player_ban(actor=staff_without_group, player_id=troll.pk, reason="x")


def test_the_audit_log_is_never_editable(client, moderator, troll):
    superuser = person("root", staff=True)
    superuser.is_superuser = True
    superuser.save()
    moderation.player_mute(actor=moderator, player_id=troll.pk, reason="spam",
                           until=timezone.now() + timedelta(hours=1))
    entry = AuditLog.objects.get()
    for user in (moderator, superuser):
        client.force_login(user)
        assert client.get(reverse("admin:games_auditlog_add")).status_code == 403
        assert client.get(reverse("admin:games_auditlog_delete", args=[entry.pk])).status_code == 403
        change = client.get(reverse("admin:games_auditlog_change", args=[entry.pk]))
        assert change.status_code == 200 and b'name="_save"' not in change.content
        response = client.post(reverse("admin:games_auditlog_change", args=[entry.pk]),
                               {"reason": "rewritten"})
        assert response.status_code == 403
        listing = client.get(reverse("admin:games_auditlog_changelist"))
        assert b'name="action"' not in listing.content  # no bulk delete
    entry.refresh_from_db()
    assert entry.reason == "spam"
    with pytest.raises(RuntimeError):
        entry.save()
    with pytest.raises(RuntimeError):
        entry.delete()


def test_chat_messages_and_reports_cannot_be_added_or_edited(client, moderator, message):
    client.force_login(moderator)
    assert client.get(reverse("admin:games_chatmessage_add")).status_code == 403
    assert client.post(reverse("admin:games_chatmessage_change", args=[message.pk]),
                       {"text": "edited"}).status_code == 403
    assert ChatMessage.objects.get(pk=message.pk).text == "you all stink"


def test_the_records_list_shows_each_persons_rates(client, moderator, troll):
    PlayerStats.objects.create(player=troll, game="kato", rounds_played=3, rounds_won=1,
                               matches_played=0)
    client.force_login(moderator)
    page = client.get(reverse("admin:games_playerstats_changelist")).content.decode()
    assert "Player records" in page and "Troll" in page
    assert "1 of 3 (33 %)" in page and "none played" in page
    assert 'href="/admin/games/playerstats/add/' not in page
