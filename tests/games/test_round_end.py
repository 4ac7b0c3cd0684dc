"""The end of a round, as the ``round_end`` task runs it: the round's result is stored once,
the people's statistics add it up (bots have none), the match's end counts too, and on
PostgreSQL the whole end of a round is one transaction of six statements."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts import services as account_services
from accounts.models import Player
from games import services
from games.engine import GAMES
from games.models import PlayerStats, RoundResult, Table

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _no_tasks(monkeypatch):
    # The test runs each round's end itself.
    monkeypatch.setattr("games.scheduling.enqueue", lambda *args, **kwargs: None)


def a_match(rounds: int, *, bot: bool = False):
    alice = Player.objects.create(username="alice", display_name="Alice")
    table = services.table_create(creator=alice, game="kato", seat_count=2,
                                  options={"rounds": rounds})
    if bot:
        services.bot_add(player=alice, table_id=table.pk, level="random")
        players = {0: alice}
    else:
        bob = Player.objects.create(username="bob", display_name="Bob")
        services.table_join(player=bob, table_id=table.pk)
        players = {0: alice, 1: bob}
    services.table_start(player=alice, table_id=table.pk)
    return table.pk, players


def play_the_round(table_id, players) -> Table:
    """Moves until the round is over: each person plays their first legal action, a bot
    its own turn."""
    engine = GAMES["kato"]
    while True:
        table = Table.objects.get(pk=table_id)
        if engine.is_round_over(table.state):
            return table
        seat = engine.actors(table.state)[0]
        if seat in players:
            services.act(player=players[seat], table_id=table_id,
                         action=engine.legal_actions(table.state, seat)[0],
                         expected_version=table.version)
        else:
            assert services.bot_turn(table_id=table_id, expected_version=table.version)


def stats(player) -> tuple:
    row = PlayerStats.objects.get(player=player, game="kato")
    return row.rounds_played, row.rounds_won, row.matches_played, row.matches_won


def test_rounds_and_the_match_are_counted_once_for_each_person():
    table_id, players = a_match(2)
    first = play_the_round(table_id, players)
    assert services.round_end(table_id=table_id, expected_version=first.version)
    winner = GAMES["kato"].round_result(first.state)["placings"].index(1)
    assert stats(players[winner]) == (1, 1, 0, 0)
    assert stats(players[1 - winner]) == (1, 0, 0, 0)
    # The task again (a retry after its answer was lost): nothing is counted twice.
    assert not services.round_end(table_id=table_id, expected_version=first.version)
    assert stats(players[winner]) == (1, 1, 0, 0)

    second = play_the_round(table_id, players)
    assert services.round_end(table_id=table_id, expected_version=second.version)
    table = Table.objects.get(pk=table_id)
    assert table.status == "finished"
    won = table.result["placings"].index(1)
    assert RoundResult.objects.filter(table_id=table_id).count() == 2
    second_winner = GAMES["kato"].round_result(second.state)["placings"].index(1)
    for seat, player in players.items():
        rounds_won = (seat == winner) + (seat == second_winner)
        assert stats(player) == (2, rounds_won, 1, int(seat == won))


def test_a_stored_round_is_not_counted_again():
    """Where the round's result is stored already, the round is not added up again (the
    match's end still is)."""
    table_id, players = a_match(1)
    table = play_the_round(table_id, players)
    result = GAMES["kato"].round_result(table.state)
    RoundResult.objects.create(table_id=table_id, round_number=1, placings=result["placings"],
                               scores=result["scores"])
    assert services.round_end(table_id=table_id, expected_version=table.version)
    for player in players.values():
        assert stats(player)[0] == 0 and stats(player)[2] == 1


def test_bots_have_no_statistics():
    table_id, players = a_match(1, bot=True)
    table = play_the_round(table_id, players)
    assert services.round_end(table_id=table_id, expected_version=table.version)
    assert list(PlayerStats.objects.values_list("player__username", flat=True)) == ["alice"]
    assert RoundResult.objects.get(table_id=table_id).placings == (
        GAMES["kato"].round_result(table.state)["placings"])


def test_the_end_of_a_round_is_six_statements_in_one_transaction():
    if connection.vendor != "postgresql":
        pytest.skip("counted on PostgreSQL")
    table_id, players = a_match(3)
    for _ in range(2):
        table = play_the_round(table_id, players)
        with CaptureQueriesContext(connection) as queries:
            assert services.round_end(table_id=table_id, expected_version=table.version)
        sql = [q["sql"] for q in queries.captured_queries]
        # The lock, the result, the seats, the statistics, the log entry, the table row.
        assert sql[0] == "BEGIN" and sql[-1] == "COMMIT" and len(sql) == 8, sql


def test_a_persons_record_is_on_their_public_profile(gql):
    table_id, players = a_match(1)
    table = play_the_round(table_id, players)
    assert services.round_end(table_id=table_id, expected_version=table.version)
    won = Table.objects.get(pk=table_id).result["placings"].index(1)
    query = ("query($id: ID!) { player(id: $id) { displayName "
             "stats { game roundsPlayed roundsWon matchesPlayed matchesWon } } }")
    for seat, player in players.items():
        win = int(seat == won)
        assert gql(query, {"id": str(player.pk)})["player"] == {
            "displayName": player.display_name,
            "stats": [{"game": "kato", "roundsPlayed": 1, "roundsWon": win,
                       "matchesPlayed": 1, "matchesWon": win}]}
    newcomer, _ = account_services.guest_create(display_name="Newcomer")
    assert gql(query, {"id": str(newcomer.pk)})["player"]["stats"] == []
