"""The spectator delay's settings: per table (createTable) and per tournament (its tables
inherit it), validated with a typed error. The live fan-out applies it (see docs/api.md)."""

import pytest

from games import scheduling
from games.models import Table
from tests.api.test_tables import CREATE, guest
from tests.tournaments.helpers import bot_tournament
from tournaments import services as tournament_services
from tournaments.models import TournamentTable

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_table_takes_a_spectator_delay_of_up_to_an_hour(gql):
    alice = guest(gql, "Alice")
    made = alice(CREATE.replace("seatCount options", "seatCount options spectatorDelaySeconds"),
                 {"input": {"game": "kato", "spectatorDelaySeconds": 90}})["createTable"]
    assert made["errors"] == [] and made["table"]["spectatorDelaySeconds"] == 90
    assert Table.objects.get(public_id=made["table"]["id"]).spectator_delay_seconds == 90
    for bad in (-1, 3601):
        refused = alice(CREATE, {"input": {"game": "kato", "spectatorDelaySeconds": bad}})[
            "createTable"]
        assert refused["errors"][0]["code"] == "invalid_spectator_delay"
        assert refused["errors"][0]["field"] == "spectatorDelaySeconds"
    default = alice(CREATE.replace("seatCount options", "seatCount spectatorDelaySeconds"),
                    {"input": {"game": "kato"}})["createTable"]["table"]
    assert default["spectatorDelaySeconds"] == 0


def test_a_tournaments_tables_inherit_its_spectator_delay():
    org, t = bot_tournament(game="kato", format="swiss", players=4, options={"rounds": 1},
                            table_size=4, rounds=1, spectator_delay_seconds=120)
    tournament_services.tournament_start(actor=org, tournament_id=t.pk)
    link = TournamentTable.objects.get(round__tournament=t)
    assert link.table.spectator_delay_seconds == 120
    assert scheduling.wait_idle(timeout=120)


def test_a_tournament_refuses_a_delay_over_an_hour():
    from tournaments.errors import TournamentError

    with pytest.raises(TournamentError) as refused:
        bot_tournament(game="kato", format="swiss", players=4, options={}, table_size=4,
                       spectator_delay_seconds=4000)
    assert refused.value.code == "invalid_spectator_delay"
