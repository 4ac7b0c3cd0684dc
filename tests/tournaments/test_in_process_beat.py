"""The embedded default has no beat process: the web process runs beat's schedule on its
in-process timer queue, so registration opens on time there too (games/scheduling.py)."""

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from games import scheduling
from tournaments import services
from tournaments.models import Tournament, TournamentStatus

from .helpers import organiser

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def in_process_beat(settings):
    settings.STAPEL_IN_PROCESS_BEAT = True
    settings.CELERY_BEAT_SCHEDULE = {
        "tournaments-tick": {"task": "tournaments.tick", "schedule": 0.2},
        "games-sweep": {"task": "games.sweep", "schedule": timedelta(seconds=0.2)}}
    yield
    scheduling.beat_stop()


def test_registration_opens_on_time_without_a_beat_process(in_process_beat):
    t = services.tournament_create(organiser=organiser(), name="Soon", game="kato",
                                   format="swiss", options={"rounds": 1},
                                   registration_opens_at=timezone.now() + timedelta(seconds=1))
    assert t.status == TournamentStatus.SCHEDULED
    assert sorted(scheduling.beat_start()) == ["games-sweep", "tournaments-tick"]
    assert sorted(scheduling.beat_start()) == ["games-sweep", "tournaments-tick"]  # once
    end = time.monotonic() + 10
    while time.monotonic() < end:
        if Tournament.objects.get(pk=t.pk).status == TournamentStatus.REGISTRATION:
            break
        time.sleep(0.05)
    assert Tournament.objects.get(pk=t.pk).status == TournamentStatus.REGISTRATION


def test_the_in_process_beat_stays_off_with_a_broker(settings, in_process_beat):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    assert scheduling.beat_start() == []
