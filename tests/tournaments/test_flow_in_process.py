"""A whole tournament of bots in one process (in-process task queue, SQLite or PostgreSQL)."""

import pytest

from games import scheduling
from tournaments import services
from tournaments.models import Rating, Standing, Tournament

from .helpers import bot_tournament

pytestmark = pytest.mark.django_db(transaction=True)


def test_swiss_kato_of_bots_runs_to_final_standings():
    org, t = bot_tournament(game="kato", format="swiss", players=8, options={"rounds": 1},
                            table_size=4, rounds=2)
    services.tournament_start(actor=org, tournament_id=t.pk)
    assert scheduling.wait_idle(timeout=60)
    t = Tournament.objects.get(pk=t.pk)
    assert t.status == "finished" and t.current_round == 2
    standings = list(Standing.objects.filter(tournament=t).order_by("rank"))
    assert [s.rank for s in standings] == list(range(1, 9))
    assert all(s.matches == 2 for s in standings)
    assert Rating.objects.filter(game="kato", matches=2).count() == 8
