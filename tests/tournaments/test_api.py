"""Tournaments over GraphQL in one process: the mutations, their typed errors, the queries."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import Player
from games import scheduling
from tournaments import services
from tournaments.models import Registration, Tournament

from .helpers import bots, organiser

pytestmark = pytest.mark.django_db(transaction=True)

CREATE = """mutation($input: CreateTournamentInput!) { createTournament(input: $input) {
  tournament { id name game format status tableSize plannedRounds organiser { displayName } }
  errors { code message field } } }"""
REGISTER = """mutation($id: ID!) { registerForTournament(tournamentId: $id) {
  tournament { id registeredCount isRegistered } errors { code field } } }"""
UNREGISTER = """mutation($id: ID!) { unregisterFromTournament(tournamentId: $id) {
  tournament { registeredCount isRegistered } errors { code } } }"""
START = """mutation($id: ID!) { startTournament(tournamentId: $id) {
  tournament { status currentRound } errors { code } } }"""
DETAIL = """query($id: ID!) { tournament(id: $id) { status currentRound plannedRounds
  rounds { number status byes tables { number tableId status players placings
           table { game status seats { isBot player { displayName } } } } }
  standings { rank points buchholz wins matches byes player { id displayName } } } }"""


def guest(gql, name):
    token = gql('mutation($n: String!) { createGuest(displayName: $n) { token } }',
                {"n": name})["createGuest"]["token"]
    return type(gql)(gql.client, token), Player.objects.get(display_name=name)


def as_client(gql, player):
    from accounts import services as account_services

    _, raw = account_services.api_token_create(player=player, name="test")
    return type(gql)(gql.client, raw)


@pytest.fixture
def org(gql):
    return as_client(gql, organiser())


def create(client, **input_):
    base = {"name": "Friday KaTO", "game": "kato", "format": "SWISS", "tableSize": 2,
            "options": {"rounds": 1}, "rounds": 2}
    return client(CREATE, {"input": {**base, **input_}})["createTournament"]


def test_organiser_creates_a_tournament(org):
    data = create(org)
    assert data["errors"] == []
    t = data["tournament"]
    assert (t["game"], t["format"], t["status"], t["tableSize"], t["plannedRounds"]) == (
        "kato", "SWISS", "REGISTRATION", 2, 2)


def test_a_player_without_the_permission_is_not_an_organiser(gql):
    alice, _ = guest(gql, "Alice")
    data = create(alice)
    assert data["tournament"] is None and data["errors"][0]["code"] == "not_organiser"
    assert not Tournament.objects.exists()


@pytest.mark.parametrize("extra, code, field", [
    ({"game": "chess"}, "unknown_game", "game"),
    ({"tableSize": 11}, "invalid_table_size", "tableSize"),
    ({"options": {"hand_size": 99}}, "invalid_options", "options.hand_size"),
    ({"format": "ARENA"}, "invalid_duration", "durationMinutes"),
    ({"format": "SINGLE_ELIMINATION", "advance": 2}, "invalid_advance", "advance"),
    ({"turnClockSeconds": 0}, "invalid_turn_clock", "turnClockSeconds"),
])
def test_create_tournament_typed_errors(org, extra, code, field):
    data = create(org, **extra)
    assert data["errors"][0]["code"] == code and data["errors"][0]["field"] == field


def test_schedule_must_be_in_order(org):
    now = timezone.now()
    data = create(org, registrationClosesAt=(now + timedelta(hours=2)).isoformat(),
                  startsAt=(now + timedelta(hours=1)).isoformat())
    assert data["errors"][0]["code"] == "invalid_schedule"


def test_register_unregister_and_their_errors(gql, org):
    tid = create(org, maxPlayers=2)["tournament"]["id"]
    alice, _ = guest(gql, "Alice")
    bob, _ = guest(gql, "Bob")
    carol, _ = guest(gql, "Carol")
    data = alice(REGISTER, {"id": tid})["registerForTournament"]
    assert data["errors"] == [] and data["tournament"]["isRegistered"] is True
    again = alice(REGISTER, {"id": tid})["registerForTournament"]
    assert again["errors"][0]["code"] == "already_registered"
    assert bob(REGISTER, {"id": tid})["registerForTournament"]["tournament"][
        "registeredCount"] == 2
    assert carol(REGISTER, {"id": tid})["registerForTournament"]["errors"][0]["code"] == (
        "tournament_full")
    left = alice(UNREGISTER, {"id": tid})["unregisterFromTournament"]
    assert left["errors"] == [] and left["tournament"]["registeredCount"] == 1
    assert alice(UNREGISTER, {"id": tid})["unregisterFromTournament"]["errors"][0]["code"] == (
        "not_registered")
    assert carol(REGISTER, {"id": tid})["registerForTournament"]["errors"] == []
    missing = alice(REGISTER, {"id": "999999"})["registerForTournament"]
    assert missing["errors"][0]["code"] == "not_found"


def test_registration_closed_after_the_window_and_before_it_opens(gql, org):
    alice, _ = guest(gql, "Alice")
    later = create(org, registrationOpensAt=(timezone.now() + timedelta(hours=1)).isoformat())
    assert later["tournament"]["status"] == "SCHEDULED"
    code = alice(REGISTER, {"id": later["tournament"]["id"]})["registerForTournament"]
    assert code["errors"][0]["code"] == "registration_closed"
    closed = create(org, registrationClosesAt=(timezone.now() - timedelta(seconds=1)).isoformat())
    code = alice(REGISTER, {"id": closed["tournament"]["id"]})["registerForTournament"]
    assert code["errors"][0]["code"] == "registration_closed"


def test_only_the_organiser_starts_and_only_with_enough_players(gql, org):
    tid = create(org)["tournament"]["id"]
    alice, _ = guest(gql, "Alice")
    alice(REGISTER, {"id": tid})
    assert alice(START, {"id": tid})["startTournament"]["errors"][0]["code"] == "not_organiser"
    assert org(START, {"id": tid})["startTournament"]["errors"][0]["code"] == (
        "not_enough_players")


def test_started_tournament_shows_rounds_tables_standings_and_refuses_late_entries(gql, org):
    tid = create(org)["tournament"]["id"]
    for bot in bots(3):
        services.tournament_register(player=bot, tournament_id=int(tid))
    started = org(START, {"id": tid})["startTournament"]
    assert started["errors"] == [] and started["tournament"]["status"] == "RUNNING"
    alice, _ = guest(gql, "Alice")
    assert alice(REGISTER, {"id": tid})["registerForTournament"]["errors"][0]["code"] == (
        "registration_closed")
    assert org(START, {"id": tid})["startTournament"]["errors"][0]["code"] == "already_started"
    assert scheduling.wait_idle(timeout=30)
    t = gql(DETAIL, {"id": tid})["tournament"]
    assert t["status"] == "FINISHED" and t["currentRound"] == 2
    assert [len(r["tables"]) for r in t["rounds"]] == [1, 1]
    assert [len(r["byes"]) for r in t["rounds"]] == [1, 1]
    assert t["rounds"][0]["byes"] != t["rounds"][1]["byes"]  # a bye goes round
    table = t["rounds"][0]["tables"][0]
    assert table["table"]["game"] == "kato" and table["status"] == "finished"
    assert sorted(table["placings"].values()) == [1, 2]
    assert [s["rank"] for s in t["standings"]] == [1, 2, 3]
    assert sum(s["matches"] + s["byes"] for s in t["standings"]) == 6


def test_tournaments_filter_leaderboard_and_player_ratings(gql, org):
    create(org)
    create(org, game="karma", options=None)
    assert len(gql('{ tournaments(game: "karma") { id } }')["tournaments"]) == 1
    assert len(gql("{ tournaments(status: REGISTRATION) { id } }")["tournaments"]) == 2
    assert gql("{ tournaments(status: FINISHED) { id } }")["tournaments"] == []
    _, t = None, Tournament.objects.filter(game="kato").get()
    for bot in bots(2):
        services.tournament_register(player=bot, tournament_id=t.pk)
    services.tournament_start(actor=None, tournament_id=t.pk)
    assert scheduling.wait_idle(timeout=30)
    board = gql('{ leaderboard(game: "kato") { rank player { id isBot } rating { ordinal '
                'matches history { placing tableId } } } }')["leaderboard"]
    assert [e["rank"] for e in board] == [1, 2]
    assert all(e["rating"]["matches"] == 2 and len(e["rating"]["history"]) == 2 for e in board)
    assert board[0]["rating"]["ordinal"] >= board[1]["rating"]["ordinal"]
    pid = board[0]["player"]["id"]
    profile = gql('query($id: ID!) { player(id: $id) { displayName ratings { game matches } } }',
                  {"id": pid})["player"]
    assert profile["ratings"] == [{"game": "kato", "matches": 2}]


def test_disqualified_player_is_not_paired_and_ranks_last():
    org_ = organiser()
    t = services.tournament_create(organiser=org_, name="dq", game="kato", format="swiss",
                                   options={"rounds": 1}, table_size=2, rounds=2)
    players = bots(4)
    for bot in players:
        services.tournament_register(player=bot, tournament_id=t.pk)
    services.registration_disqualify(actor=org_, tournament_id=t.pk, player_id=players[0].pk)
    services.tournament_start(actor=org_, tournament_id=t.pk)
    assert scheduling.wait_idle(timeout=30)
    t.refresh_from_db()
    assert t.status == "finished"
    ranks = dict(t.standings.values_list("player_id", "rank"))
    assert ranks[players[0].pk] == 4
    assert t.standings.get(player=players[0]).matches == 0
    assert Registration.objects.get(tournament=t, player=players[0]).status == "disqualified"
