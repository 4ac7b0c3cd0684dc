"""Manual control: pause and resume, re-pair the pending round, move a player, award a bye —
through the API and the admin, each in the audit log with who and why."""

import pytest
from django.urls import reverse

from accounts import services as account_services
from accounts.models import Player
from games import scheduling
from games.models import AuditLog
from tests.conftest import GraphQLClient
from tournaments import services
from tournaments.models import Registration, RoundStatus, Standing, Tournament

from .helpers import bot_tournament

pytestmark = pytest.mark.django_db(transaction=True)

PAYLOAD = "tournament { id pausedAt pauseReason currentRound rounds { number status byes planned tables { players } } } errors { code field }"
PAUSE = f"mutation($t: ID!, $r: String!) {{ pauseTournament(tournamentId: $t, reason: $r) {{ {PAYLOAD} }} }}"
RESUME = f"mutation($t: ID!, $r: String!) {{ resumeTournament(tournamentId: $t, reason: $r) {{ {PAYLOAD} }} }}"
REPAIR = f"mutation($t: ID!, $r: String!) {{ repairTournamentRound(tournamentId: $t, reason: $r) {{ {PAYLOAD} }} }}"
MOVE = f"""mutation($t: ID!, $p: ID!, $n: Int!, $s: ID, $r: String!) {{ moveTournamentPlayer(
  tournamentId: $t, playerId: $p, tableNumber: $n, swapWithPlayerId: $s, reason: $r) {{ {PAYLOAD} }} }}"""
BYE = f"""mutation($t: ID!, $p: ID!, $r: String!) {{ awardTournamentBye(tournamentId: $t,
  playerId: $p, reason: $r) {{ {PAYLOAD} }} }}"""


def _client(client, player) -> GraphQLClient:
    return GraphQLClient(client, account_services.api_token_create(player=player, name="t")[1])


def _audit():
    return list(AuditLog.objects.order_by("id").values_list("action", "actor_id", "reason"))


def test_pause_prepares_the_round_which_the_organiser_changes_then_starts(client):
    org, t = bot_tournament(game="kato", format="swiss", players=9, options={"rounds": 1},
                            table_size=4, rounds=2)
    api = _client(client, org)
    tid = str(t.pk)
    paused = api(PAUSE, {"t": tid, "r": "venue not ready"})["pauseTournament"]
    assert paused["errors"] == [] and paused["tournament"]["pausedAt"]
    services.tournament_start(actor=org, tournament_id=t.pk)
    # Paired, but nothing plays: the round waits for the organiser.
    (rnd,) = api("query($t: ID!) { tournament(id: $t) { rounds { number status byes planned tables { players } } } }",
                 {"t": tid})["tournament"]["rounds"]
    assert rnd["status"] == "pending" and rnd["tables"] == []
    assert [len(x) for x in rnd["planned"]] == [4, 4] and len(rnd["byes"]) == 1

    # Move a player to the other table, in exchange with one sitting there.
    a, b = rnd["planned"][0][0], rnd["planned"][1][0]
    moved = api(MOVE, {"t": tid, "p": a, "n": 2, "s": b, "r": "friends apart"})[
        "moveTournamentPlayer"]
    assert moved["errors"] == []
    planned = moved["tournament"]["rounds"][0]["planned"]
    assert a in planned[1] and b in planned[0]
    # A full table needs someone to swap with; a player is not moved to where they sit.
    full = api(MOVE, {"t": tid, "p": b, "n": 2, "r": "x"})["moveTournamentPlayer"]["errors"]
    assert full == [{"code": "table_full", "field": "tableNumber"}]
    same = api(MOVE, {"t": tid, "p": a, "n": 2, "s": b, "r": "x"})["moveTournamentPlayer"]
    assert same["errors"][0]["code"] == "same_table"
    mate = next(p for p in planned[1] if p != a)
    wrong = api(MOVE, {"t": tid, "p": a, "n": 1, "s": mate, "r": "x"})["moveTournamentPlayer"]
    assert wrong["errors"] == [{"code": "not_at_table", "field": "swapWithPlayerId"}]

    # The bye-holder takes a seat at table 1 (for a player who goes to the byes)...
    bye_holder = rnd["byes"][0]
    swapped = api(MOVE, {"t": tid, "p": bye_holder, "n": 1, "s": b, "r": "had a bye before"})[
        "moveTournamentPlayer"]["tournament"]["rounds"][0]
    assert bye_holder in swapped["planned"][0] and swapped["byes"] == [b]
    # ...and a bye for one more leaves a table of three (enough for KaTO).
    c = swapped["planned"][1][0]
    awarded = api(BYE, {"t": tid, "p": c, "r": "doctor's appointment"})["awardTournamentBye"]
    assert awarded["errors"] == []
    round_ = awarded["tournament"]["rounds"][0]
    assert sorted(round_["byes"]) == sorted([b, c]) and len(round_["planned"][1]) == 3
    again = api(BYE, {"t": tid, "p": c, "r": "x"})["awardTournamentBye"]["errors"]
    assert again == [{"code": "already_bye", "field": "playerId"}]

    resumed = api(RESUME, {"t": tid, "r": "ready"})["resumeTournament"]
    assert resumed["errors"] == [] and resumed["tournament"]["pausedAt"] is None
    first = resumed["tournament"]["rounds"][0]
    assert first["status"] == "playing" and first["planned"] == []
    assert [x["players"] for x in first["tables"]] == round_["planned"]
    assert sorted(first["byes"]) == sorted([b, c])
    assert scheduling.wait_idle(timeout=180)
    t.refresh_from_db()
    assert t.status == "finished"
    standings = {str(s.player_id): s for s in Standing.objects.filter(tournament=t)}
    assert standings[c].byes == 1 and standings[b].byes >= 1

    assert [(action, actor, reason) for action, actor, reason in _audit()] == [
        ("tournament_pause", org.pk, "venue not ready"),
        ("tournament_player_move", org.pk, "friends apart"),
        ("tournament_player_move", org.pk, "had a bye before"),
        ("tournament_bye_award", org.pk, "doctor's appointment"),
        ("tournament_resume", org.pk, "ready")]
    move = AuditLog.objects.filter(action="tournament_player_move").order_by("id").first()
    assert move.extra["tournament_id"] == t.pk and move.extra["to_table"] == 2
    assert move.extra["swapped_with"] == int(b)


def test_paused_between_rounds_the_next_waits_and_a_repair_sees_a_withdrawal(client):
    org, t = bot_tournament(game="kato", format="swiss", players=8, options={"rounds": 1},
                            table_size=4, rounds=2)
    services.tournament_start(actor=org, tournament_id=t.pk)
    services.tournament_pause(actor=org, tournament_id=t.pk, reason="lunch break")
    assert scheduling.wait_idle(timeout=120)
    t.refresh_from_db()
    second = t.rounds_set.get(number=2)
    assert t.status == "running" and second.status == RoundStatus.PENDING
    assert second.tables.count() == 0 and sum(len(x) for x in second.planned) == 8
    # Round one counts; round two does not yet.
    assert all(s.matches == 1 for s in Standing.objects.filter(tournament=t))
    # The exports publish the rounds that started, not the pending one.
    exported = client.get(f"/api/tournaments/{t.pk}/pairings.json").json()
    assert [r["number"] for r in exported["rounds"]] == [1]

    leaver = Registration.objects.filter(tournament=t).first()
    services.registration_disqualify(actor=org, tournament_id=t.pk,
                                     player_id=leaver.player_id, reason="cheating")
    services.round_repair(actor=org, tournament_id=t.pk, reason="after the disqualification")
    second = t.rounds_set.get(number=2)
    assert second.status == RoundStatus.PENDING
    assert leaver.player_id not in [p for x in second.planned for p in x] + second.byes
    repair = AuditLog.objects.get(action="tournament_round_repair")
    assert leaver.player_id in [p for x in repair.extra["before"]["tables"] for p in x]
    assert repair.actor == org and repair.reason == "after the disqualification"

    services.tournament_resume(actor=org, tournament_id=t.pk, reason="back")
    assert scheduling.wait_idle(timeout=120)
    t.refresh_from_db()
    assert t.status == "finished"


def test_only_the_organiser_or_staff_with_the_permission_and_always_with_a_reason(client):
    org, t = bot_tournament(game="kato", format="swiss", players=4, options={"rounds": 1},
                            table_size=4, rounds=1)
    stranger = Player.objects.create(username="s", display_name="S", password="!")
    api = _client(client, stranger)
    assert api(PAUSE, {"t": str(t.pk), "r": "mine now"})["pauseTournament"]["errors"] == [
        {"code": "not_organiser", "field": None}]
    own = _client(client, org)
    assert own(PAUSE, {"t": str(t.pk), "r": "  "})["pauseTournament"]["errors"] == [
        {"code": "reason_required", "field": "reason"}]
    assert own(RESUME, {"t": str(t.pk), "r": "x"})["resumeTournament"]["errors"][0][
        "code"] == "not_paused"
    assert own(REPAIR, {"t": str(t.pk), "r": "x"})["repairTournamentRound"]["errors"][0][
        "code"] == "no_pending_round"
    assert AuditLog.objects.count() == 0


def test_the_admin_pauses_resumes_and_awards_a_bye_with_a_reason(client):
    org, t = bot_tournament(game="kato", format="swiss", players=5, options={"rounds": 1},
                            table_size=4, rounds=1)
    staff = Player.objects.create_user(username="admin", password="pw-long-enough",
                                       display_name="Admin", is_staff=True, is_superuser=True)
    client.force_login(staff)
    url = reverse("admin:tournaments_tournament_do", args=[t.pk, "pause"])
    assert client.post(url, {"reason": "storm"}).status_code == 302
    t.refresh_from_db()
    assert t.paused_at is not None and t.pause_reason == "storm"
    services.tournament_start(actor=org, tournament_id=t.pk)
    rnd = t.rounds_set.get()
    seated = rnd.planned[0][0]
    reg = Registration.objects.get(tournament=t, player_id=seated)
    html = client.get(reverse("admin:tournaments_registration_change", args=[reg.pk]))
    assert b"Award a bye" in html.content
    bye = reverse("admin:tournaments_registration_do", args=[reg.pk, "bye"])
    assert client.post(bye, {"reason": "late train"}).status_code == 302
    rnd.refresh_from_db()
    assert seated in rnd.byes
    resume = reverse("admin:tournaments_tournament_do", args=[t.pk, "resume"])
    assert client.post(resume, {"reason": "sunny"}).status_code == 302
    assert Tournament.objects.get(pk=t.pk).paused_at is None
    assert [(a, r) for a, actor, r in _audit()] == [
        ("tournament_pause", "storm"), ("tournament_bye_award", "late train"),
        ("tournament_resume", "sunny")]
    assert {actor for _, actor, _ in _audit()} == {staff.pk}
    assert scheduling.wait_idle(timeout=120)
