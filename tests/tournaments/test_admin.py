"""The tournament admin: pages render; "Disqualify" goes through the service."""

import pytest
from django.urls import reverse

from accounts.models import Player
from tournaments import services
from tournaments.models import Registration

from .helpers import bot_tournament

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def admin_client(client):
    admin = Player.objects.create_superuser(username="root", password="pw-123456",
                                            display_name="Root")
    client.force_login(admin)
    return client


def test_tournament_pages_render(admin_client):
    _, t = bot_tournament(game="kato", format="swiss", players=4, options={"rounds": 1},
                          table_size=2)
    for name, args in [("tournament_changelist", []), ("tournament_change", [t.pk]),
                       ("tournament_add", []), ("registration_changelist", []),
                       ("rating_changelist", []), ("tournamentround_changelist", [])]:
        response = admin_client.get(reverse(f"admin:tournaments_{name}", args=args))
        assert response.status_code == 200, name


def test_disqualify_action_uses_the_service(admin_client):
    _, t = bot_tournament(game="kato", format="swiss", players=4, options={"rounds": 1},
                          table_size=2)
    reg = Registration.objects.filter(tournament=t).first()
    response = admin_client.post(reverse("admin:tournaments_registration_changelist"), {
        "action": "disqualify", "_selected_action": [reg.pk]})
    assert response.status_code == 302
    reg.refresh_from_db()
    assert reg.status == "disqualified" and reg.reason.startswith("disqualified by")
    services.tournament_start(actor=None, tournament_id=t.pk)
    assert reg.player_id not in [p for x in t.rounds_set.get().tables.all() for p in x.players]
