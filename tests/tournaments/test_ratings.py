"""Which matches move ratings, and by how much (OpenSkill Plackett-Luce)."""

import pytest

from accounts.models import Player
from games import services as game_services
from games.models import Table
from tournaments import ratings
from tournaments.models import RatedMatch, Rating, RatingChange

pytestmark = pytest.mark.django_db(transaction=True)


def person(name):
    return Player.objects.create(username=name, display_name=name, password="!")


def finished_table(players, placings, *, bots=0):
    """A started table whose match we declare over (the rating code reads only the result)."""
    table = game_services.table_create_seated(creator=players[0], game="kato",
                                              options={"rounds": 1}, players=players,
                                              bots=bots)
    Table.objects.filter(pk=table.pk).update(status="finished",
                                             result={"placings": placings, "scores": [0] * len(placings)})
    return table.pk


def test_casual_table_of_people_is_rated_once():
    alice, bob, carol = person("alice"), person("bob"), person("carol")
    table_id = finished_table([alice, bob, carol], [2, 1, 3])
    assert ratings.ratings_record_table(table_id=table_id) is True
    assert ratings.ratings_record_table(table_id=table_id) is False  # idempotent
    r = {x.player_id: x for x in Rating.objects.filter(game="kato")}
    assert r[bob.pk].mu > r[alice.pk].mu > r[carol.pk].mu
    assert all(x.matches == 1 and x.ordinal == pytest.approx(x.mu - 3 * x.sigma)
               for x in r.values())
    assert RatingChange.objects.filter(match__table_id=table_id).count() == 3


def test_casual_table_with_a_bot_is_not_rated():
    alice, bob = person("alice"), person("bob")
    table_id = finished_table([alice, bob], [1, 2, 3], bots=1)
    assert ratings.ratings_record_table(table_id=table_id) is False
    assert not RatedMatch.objects.exists() and not Rating.objects.exists()


def test_aborted_table_is_not_rated():
    alice, bob = person("alice"), person("bob")
    table = game_services.table_create_seated(creator=alice, game="kato", options={},
                                              players=[alice, bob])
    game_services.table_abort(actor=None, table_id=table.pk)
    assert ratings.ratings_record_table(table_id=table.pk) is False


def test_the_sweep_rates_a_finished_match_whose_task_was_lost():
    from datetime import timedelta

    from django.utils import timezone

    alice, bob = person("alice"), person("bob")
    rated = finished_table([alice, bob], [1, 2])
    with_bot = finished_table([alice, bob], [1, 2, 3], bots=1)
    fresh = finished_table([bob, alice], [1, 2])
    Table.objects.filter(pk__in=[rated, with_bot]).update(
        finished_at=timezone.now() - timedelta(minutes=5))
    Table.objects.filter(pk=fresh).update(finished_at=timezone.now())  # its task may still run
    assert ratings.ratings_sweep() == 1
    assert list(RatedMatch.objects.values_list("table_id", flat=True)) == [rated]
    assert ratings.ratings_sweep() == 0  # nothing left, and nothing twice
