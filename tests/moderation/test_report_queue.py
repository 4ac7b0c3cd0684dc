"""The scored report queue: duplicates on one player fold into one case, the score weighs the
reporters' standing, how many reported lately and earlier moderator actions; the admin sorts
by it; a moderator opening a reported table sees the whole replay beside the chat, logged."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts import services as account_services
from games import chat, moderation, reports
from games.models import AuditLog, Report, ReportStatus

from .conftest import person, playing_table
from .test_admin import action_post

pytestmark = pytest.mark.django_db(transaction=True)


def _guest(name):
    return account_services.guest_create(display_name=name)[0]


def _old_account(name):
    player = person(name)
    player.date_joined = timezone.now() - timedelta(days=30)
    player.save(update_fields=["date_joined"])
    return player


def test_reports_on_one_player_fold_into_one_case_scored_by_distinct_reporters(troll):
    a, b, c = _old_account("ann"), _old_account("ben"), _old_account("cid")
    first = moderation.report_create(reporter=a, player_id=troll.pk, reason="insults")
    assert (first.case_id, first.reporter_count) == (None, 1)
    one = Report.objects.get(pk=first.pk).score
    again = moderation.report_create(reporter=a, player_id=troll.pk, reason="more insults")
    assert again.case_id == first.pk
    assert Report.objects.get(pk=first.pk).reporter_count == 1  # the same reporter twice
    moderation.report_create(reporter=b, player_id=troll.pk, reason="insults")
    moderation.report_create(reporter=c, player_id=troll.pk, reason="cheating?")
    case = Report.objects.get(pk=first.pk)
    assert case.reporter_count == 3 and case.score == pytest.approx(3 * one)
    assert case.folded.count() == 3
    # Someone else's report is a case of its own.
    other = moderation.report_create(reporter=a, player_id=b.pk, reason="rude")
    assert other.case_id is None and Report.objects.get(pk=other.pk).score == one


def test_the_score_weighs_the_reporters_standing_and_earlier_moderator_actions(
        troll, moderator):
    trusted, fresh = _old_account("tess"), _guest("New")
    target_a, target_b = _old_account("aaron"), _old_account("bert")
    # Two of tess' earlier reports were upheld.
    for _ in range(2):
        earlier = moderation.report_create(reporter=trusted, player_id=troll.pk, reason="x")
        moderation.report_resolve(actor=moderator, report_id=earlier.pk, note="muted")
    assert reports.reporter_standing(trusted) == 1.5
    assert reports.reporter_standing(fresh) == 0.5
    by_trusted = moderation.report_create(reporter=trusted, player_id=target_a.pk, reason="y")
    by_fresh = moderation.report_create(reporter=fresh, player_id=target_b.pk, reason="y")
    assert Report.objects.get(pk=by_trusted.pk).score == 3 * Report.objects.get(
        pk=by_fresh.pk).score
    # A moderator acted on bert before: his next case starts higher.
    moderation.player_mute(actor=moderator, player_id=target_b.pk, reason="spam",
                           until=timezone.now() + timedelta(hours=1))
    moderation.report_resolve(actor=moderator, report_id=by_fresh.pk, note="done")
    later = moderation.report_create(reporter=fresh, player_id=target_b.pk, reason="again")
    # (fresh's report on him was upheld meanwhile: a quarter more standing)
    assert Report.objects.get(pk=later.pk).score == 5 + 10 * 0.75


def test_the_admin_queue_sorts_cases_by_score_and_a_resolution_closes_the_whole_case(
        client, moderator, troll):
    a, b = _old_account("ann"), _old_account("ben")
    lone = moderation.report_create(reporter=a, player_id=b.pk, reason="lone report")
    case = moderation.report_create(reporter=a, player_id=troll.pk, reason="first of many")
    folded = moderation.report_create(reporter=b, player_id=troll.pk, reason="second one")
    client.force_login(moderator)
    url = reverse("admin:games_report_changelist")
    html = client.get(url).content.decode()
    assert html.index("first of many") < html.index("lone report")  # higher score first
    assert "second one" not in html  # folded into the case
    page = client.get(reverse("admin:games_report_change", args=[case.pk])).content.decode()
    assert "second one" in page and "Full replay and chat" not in page  # no table here
    action_post(client, url, "resolve", [case.pk], note="muted a day")
    assert set(Report.objects.filter(pk__in=[case.pk, folded.pk])
               .values_list("status", flat=True)) == {ReportStatus.RESOLVED}
    assert Report.objects.get(pk=lone.pk).status == ReportStatus.OPEN
    audit = AuditLog.objects.get(action="report_resolve")
    assert audit.extra["folded"] == [folded.pk] and audit.actor == moderator


def test_a_moderator_sees_the_full_replay_next_to_the_chat_and_it_is_logged(
        client, moderator, troll, plain):
    table = playing_table(troll, plain)
    said = chat.chat_message_send(player=troll, table_id=table.pk, text="you all stink")
    chat.chat_message_send(player=plain, table_id=table.pk, text="please stop")
    moderation.chat_message_hide(actor=moderator, message_id=said.pk, reason="rude")
    report = moderation.report_create(reporter=plain, player_id=troll.pk, reason="insults",
                                      table_id=table.pk)
    client.force_login(moderator)
    change = client.get(reverse("admin:games_report_change", args=[report.pk])).content.decode()
    assert reverse("admin:games_report_replay", args=[report.pk]) in change
    html = client.get(reverse("admin:games_report_replay", args=[report.pk])).content.decode()
    table.refresh_from_db()
    for hand in table.state["hands"]:  # the match runs: staff still see every hand
        for card in hand:
            assert f'<span class="stapel-card">{card}</span>' in html
    assert "you all stink" in html and "please stop" in html
    assert 'stapel-badge red">hidden' in html
    assert str(table.seed) in html and "dealt" in html
    view = AuditLog.objects.get(action="table_replay_view")
    assert (view.actor, view.target_table_id, view.target_report_id, view.target_player) == (
        moderator, table.pk, report.pk, troll)
    # Without the permission to see hands: refused, and nothing logged.
    organiser = person("otto", staff=True, group="organiser")
    client.force_login(organiser)
    assert client.get(reverse("admin:games_report_replay", args=[report.pk])).status_code == 403
    assert AuditLog.objects.filter(action="table_replay_view").count() == 1
