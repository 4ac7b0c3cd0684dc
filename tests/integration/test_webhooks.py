"""Webhooks on the real stack: a bot tournament run by a real worker and beat sends every
event, signed per Standard Webhooks, to receivers this test runs on 127.0.0.1: one that always
answers, one that fails twice first (retried under the same id), one that always fails
(disabled, and its owner sees why through the API)."""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from datetime import timedelta

import httpx
import pytest
from django.utils import timezone
from standardwebhooks.webhooks import Webhook

from accounts import services as account_services
from tests.tournaments.helpers import bots, organiser
from tests.tournaments.webhook_receiver import Receiver
from tournaments import services, webhooks
from tournaments.models import (
    Standing,
    Tournament,
    TournamentTable,
    WebhookDelivery,
    WebhookEndpoint,
)

from .test_tournaments import celery_beat_proc  # noqa: F401 - a fixture

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

EXPECTED = {"tournament.registration_opened": 1, "tournament.registration_closed": 1,
            "tournament.player_disqualified": 1, "tournament.started": 1,
            "tournament.round_started": 2, "tournament.table_finished": 4,
            "tournament.round_finished": 2, "tournament.finished": 1}


def _wait(predicate, timeout: float, what: str):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def _settled() -> bool:
    return not WebhookDelivery.objects.filter(status="pending").exists()


def test_a_bot_tournament_sends_every_event_signed_with_retries_and_disabling(
        live_server_url, celery_worker_proc, celery_beat_proc):  # noqa: F811
    org = organiser()
    players = bots(9)  # made before the clock starts: registration only has to sign them up
    now = timezone.now()
    # The window leaves a loaded machine time to see it open and sign nine players up.
    t = services.tournament_create(
        organiser=org, name="Hooked", game="kato", format="swiss", options={"rounds": 1},
        table_size=4, rounds=2, registration_opens_at=now + timedelta(seconds=1.5),
        registration_closes_at=now + timedelta(seconds=9),
        starts_at=now + timedelta(seconds=10))
    with (Receiver() as good, Receiver(answer=lambda n, _id: 500 if n < 2 else 204) as flaky,
          Receiver(answer=lambda n, _id: 500) as broken):
        every, every_secret = webhooks.endpoint_create(owner=org, url=good.url)
        retried, retried_secret = webhooks.endpoint_create(
            owner=org, url=flaky.url, tournament_id=t.pk,
            events=["tournament.round_started", "tournament.finished"])
        dead, _ = webhooks.endpoint_create(owner=org, url=broken.url, tournament_id=t.pk)

        _wait(lambda: Tournament.objects.get(pk=t.pk).status == "registration", 20,
              "the clock to open registration")
        for bot in players:
            services.tournament_register(player=bot, tournament_id=t.pk)
        services.registration_disqualify(actor=org, tournament_id=t.pk,
                                         player_id=players[-1].pk, reason="no show")
        _wait(lambda: Tournament.objects.get(pk=t.pk).status == "finished", 180,
              "the tournament to finish")
        _wait(_settled, 30, "every delivery to settle")

        # Every event reached the organiser-wide endpoint, signed; each id once or more.
        received = [Webhook(every_secret).verify(r.body, r.headers) for r in good.requests]
        by_id = {r.headers["webhook-id"]: p for r, p in zip(good.requests, received,
                                                             strict=True)}
        assert Counter(p["type"] for p in by_id.values()) == EXPECTED
        deliveries = WebhookDelivery.objects.filter(endpoint=every)
        assert {d.message_id for d in deliveries} == set(by_id)
        assert all(d.status == "succeeded" and d.attempts == 1 for d in deliveries)
        events = defaultdict(list)
        for p in by_id.values():
            assert p["data"]["tournament"]["id"] == str(t.pk)
            events[p["type"]].append(p["data"])
        for data in events["tournament.round_started"]:
            assert [len(x["players"]) for x in data["tables"]] == [4, 4]
            assert all(x["tableId"] for x in data["tables"]) and data["byes"] == []
        for data in events["tournament.table_finished"]:
            link = TournamentTable.objects.get(table__public_id=data["table"]["tableId"])
            assert {x["id"]: x["placing"] for x in data["table"]["placings"]} == link.placings
            assert len(link.placings) == 4
        assert events["tournament.player_disqualified"][0]["player"]["id"] == str(
            players[-1].pk)
        final = events["tournament.finished"][0]["standings"]
        assert [(s["rank"], s["player"]["id"], s["points"]) for s in final] == [
            (s.rank, str(s.player_id), s.points)
            for s in Standing.objects.filter(tournament=t).order_by("rank")]
        assert all(len(d["standings"]) == 9 for d in events["tournament.round_finished"])

        # The flaky receiver: two failures, each retried under its id until it succeeded.
        flaky_ids = [r.headers["webhook-id"] for r in flaky.requests]
        failed_ids = [r.headers["webhook-id"] for r in flaky.requests if r.status == 500]
        assert len(failed_ids) == 2
        for message_id in failed_ids:
            assert flaky_ids.count(message_id) >= 2
            assert any(r.status == 204 for r in flaky.requests
                       if r.headers["webhook-id"] == message_id)
        assert all(Webhook(retried_secret).verify(r.body, r.headers) for r in flaky.requests)
        rows = WebhookDelivery.objects.filter(endpoint=retried)
        assert Counter(d.event_type for d in rows) == {"tournament.round_started": 2,
                                                        "tournament.finished": 1}
        assert all(d.status == "succeeded" for d in rows)
        assert sum(d.attempts for d in rows) == len(flaky.requests) == 3 + 2

        # The broken receiver: disabled after 4 failed tries in a row, the rest not sent.
        dead.refresh_from_db()
        assert not dead.is_active and "4 failed tries in a row" in dead.disabled_reason
        assert len(broken.requests) == 4
        assert not WebhookDelivery.objects.filter(endpoint=dead, status="succeeded").exists()

    # Its owner is told through the API.
    _, token = account_services.api_token_create(player=org, name="site")
    body = httpx.post(live_server_url + "/graphql/", headers={"Authorization": f"Bearer {token}"},
                      json={"query": "{ webhookEndpoints { id isActive disabledReason } }"},
                      timeout=10).json()
    listed = {e["id"]: e for e in body["data"]["webhookEndpoints"]}
    assert listed[str(dead.pk)]["isActive"] is False
    assert "HTTP 500" in listed[str(dead.pk)]["disabledReason"]
    assert listed[str(every.pk)]["isActive"] is True
    assert WebhookEndpoint.objects.filter(owner=org).count() == 3
