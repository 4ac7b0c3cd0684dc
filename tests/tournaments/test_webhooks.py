"""Webhooks in one process: signing per Standard Webhooks, the address guard, delivery to a
real receiver on 127.0.0.1 (retries under one id, no redirects, timeouts), disabling after
repeated failures, and the endpoints over GraphQL (secret shown once)."""

from __future__ import annotations

import json

import pytest
from django.test import override_settings
from standardwebhooks.webhooks import Webhook

from accounts.models import Player
from tournaments import services, webhooks
from tournaments.errors import TournamentError
from tournaments.models import DeliveryStatus, WebhookDelivery, WebhookEndpoint

from .helpers import bots, organiser
from .webhook_receiver import Receiver

SPEC_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"


def test_signature_matches_the_standard_webhooks_test_vector():
    assert webhooks.sign(SPEC_SECRET, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330,
                         b'{"test": 2432232314}') == (
        "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")


def test_verify_refuses_a_changed_body_an_old_timestamp_and_a_missing_header():
    body = b'{"a":1}'
    headers = {"webhook-id": "msg_1", "webhook-timestamp": "1000",
               "webhook-signature": webhooks.sign(SPEC_SECRET, "msg_1", 1000, body)}
    assert webhooks.verify(SPEC_SECRET, headers, body, now=1000)
    assert not webhooks.verify(SPEC_SECRET, headers, b'{"a":2}', now=1000)
    assert not webhooks.verify(SPEC_SECRET, headers, body, now=1000 + 301)
    assert not webhooks.verify(SPEC_SECRET, {**headers, "webhook-id": "msg_2"}, body, now=1000)
    assert not webhooks.verify(SPEC_SECRET, {"webhook-id": "msg_1"}, body, now=1000)


@pytest.mark.parametrize("url", [
    "ftp://example.org/x", "javascript:alert(1)", "http://", "http://user:pw@127.0.0.1/x",
    "http://127.0.0.2/x", "http://10.1.2.3/x", "http://192.168.0.1/x", "http://172.16.0.1/",
    "http://169.254.169.254/latest/meta-data", "http://[::1]/x", "http://[fe80::1]/x",
    "http://[::ffff:10.0.0.1]/x", "http://0.0.0.0/x", "http://100.64.0.1/x",
    "http://224.0.0.1/x", "http://127.0.0.1:notaport/x",
])
def test_refused_urls(url):
    with pytest.raises(TournamentError) as exc:
        webhooks.check_url(url)
    assert exc.value.code == "invalid_url"


def test_loopback_only_where_the_setting_allows_it():
    assert webhooks.check_url("http://127.0.0.1:9/x") == "http://127.0.0.1:9/x"
    with override_settings(STAPEL_WEBHOOK_ALLOWED_NETWORKS=[]):
        with pytest.raises(TournamentError):
            webhooks.check_url("http://127.0.0.1:9/x")
    assert webhooks.check_url("https://93.184.215.14/hook")  # a global address


@pytest.fixture
def receiver():
    with Receiver() as r:
        yield r


def _endpoint(owner, url, **kw):
    endpoint, secret = webhooks.endpoint_create(owner=owner, url=url, **kw)
    return endpoint, secret


def _tournament(org, **kw):
    return services.tournament_create(organiser=org, name="Webhook Cup", game="kato",
                                      format="swiss", table_size=2, options={"rounds": 1},
                                      rounds=1, **kw)


@pytest.mark.django_db
def test_an_event_is_delivered_signed_and_logged(receiver):
    org = organiser()
    endpoint, secret = _endpoint(org, receiver.url)
    t = _tournament(org)
    d = WebhookDelivery.objects.get(endpoint=endpoint)
    assert d.event_type == "tournament.registration_opened" and d.status == "pending"
    assert webhooks.delivery_attempt(delivery_id=d.pk) is None
    d.refresh_from_db()
    assert (d.status, d.attempts, d.last_status_code, d.last_error) == ("succeeded", 1, 204, "")
    [req] = receiver.requests
    assert req.path == "/hooks" and req.headers["content-type"] == "application/json"
    assert req.headers["webhook-id"] == d.message_id
    # The reference implementation agrees with our signature.
    payload = Webhook(secret).verify(req.body, req.headers)
    assert payload["type"] == "tournament.registration_opened"
    assert payload["data"]["tournament"] == {
        "id": str(t.pk), "name": "Webhook Cup", "game": "kato", "format": "swiss",
        "status": "registration", "round": 0}
    # A second call (a task run twice) sends nothing more.
    assert webhooks.delivery_attempt(delivery_id=d.pk) is None
    assert len(receiver.requests) == 1


@pytest.mark.django_db
def test_a_failed_try_is_retried_later_under_the_same_id():
    with Receiver(answer=lambda n, _id: 500 if n < 2 else 200) as r:
        org = organiser()
        endpoint, secret = _endpoint(org, r.url)
        _tournament(org)
        d = WebhookDelivery.objects.get(endpoint=endpoint)
        with override_settings(STAPEL_WEBHOOK_RETRY_BASE_SECONDS=10):
            assert webhooks.delivery_attempt(delivery_id=d.pk) == 10
            d.refresh_from_db()
            assert (d.status, d.attempts, d.last_status_code) == ("pending", 1, 500)
            assert d.last_error == "HTTP 500"
            # Not due yet: nothing is sent.
            assert webhooks.delivery_attempt(delivery_id=d.pk) is None
            assert webhooks.delivery_attempt(delivery_id=d.pk,
                                             now=d.next_attempt_at) == 30
            d.refresh_from_db()
            assert webhooks.delivery_attempt(delivery_id=d.pk, now=d.next_attempt_at) is None
        d.refresh_from_db()
        assert (d.status, d.attempts) == ("succeeded", 3)
        assert [q.headers["webhook-id"] for q in r.requests] == [d.message_id] * 3
        assert all(Webhook(secret).verify(q.body, q.headers) for q in r.requests)
        endpoint.refresh_from_db()
        assert endpoint.consecutive_failures == 0 and endpoint.is_active


def test_backoff_grows_threefold_and_stays_below_the_visibility_timeout():
    with override_settings(STAPEL_WEBHOOK_RETRY_BASE_SECONDS=10):
        assert [webhooks.backoff_seconds(n) for n in range(1, 6)] == [10, 30, 90, 270, 810]
        assert webhooks.backoff_seconds(20) == 1800


@pytest.mark.django_db
def test_a_redirect_is_a_failure_and_is_not_followed(receiver):
    with Receiver(answer=lambda n, _id: 302, redirect_to=receiver.url) as r:
        org = organiser()
        endpoint, _ = _endpoint(org, r.url)
        _tournament(org)
        d = WebhookDelivery.objects.get(endpoint=endpoint)
        webhooks.delivery_attempt(delivery_id=d.pk)
        d.refresh_from_db()
        assert d.last_status_code == 302 and "redirects are not followed" in d.last_error
        assert receiver.requests == []


@pytest.mark.django_db
@override_settings(STAPEL_WEBHOOK_TIMEOUT_SECONDS=0.3)
def test_a_slow_receiver_times_out():
    with Receiver(delay=1.0) as r:
        org = organiser()
        endpoint, _ = _endpoint(org, r.url)
        _tournament(org)
        d = WebhookDelivery.objects.get(endpoint=endpoint)
        webhooks.delivery_attempt(delivery_id=d.pk)
        d.refresh_from_db()
        assert d.status == "pending" and d.last_error == "timed out"


@pytest.mark.django_db
@override_settings(STAPEL_WEBHOOK_MAX_ATTEMPTS=2, STAPEL_WEBHOOK_DISABLE_AFTER_FAILURES=3)
def test_repeated_failures_disable_the_endpoint_and_fail_what_is_pending():
    with Receiver(answer=lambda n, _id: 503) as r:
        org = organiser()
        endpoint, _ = _endpoint(org, r.url)
        t = _tournament(org)
        services.tournament_cancel(tournament_id=t.pk, reason="rain")
        first, second = WebhookDelivery.objects.filter(endpoint=endpoint).order_by("id")
        assert second.event_type == "tournament.cancelled"
        assert second.payload["data"]["reason"] == "rain"
        webhooks.delivery_attempt(delivery_id=first.pk)
        first.refresh_from_db()
        assert webhooks.delivery_attempt(delivery_id=first.pk, now=first.next_attempt_at) is None
        first.refresh_from_db()
        assert (first.status, first.attempts) == ("failed", 2)  # out of tries
        assert webhooks.delivery_attempt(delivery_id=second.pk) is None  # third failure
        endpoint.refresh_from_db()
        second.refresh_from_db()
        assert not endpoint.is_active and endpoint.disabled_at is not None
        assert "3 failed tries in a row" in endpoint.disabled_reason
        assert "HTTP 503" in endpoint.disabled_reason
        assert (second.status, second.last_error) == ("failed", "endpoint disabled")
        # Disabled: new events are not queued for it, a test event still is.
        _tournament(org)
        assert WebhookDelivery.objects.filter(endpoint=endpoint).count() == 2
        test = webhooks.endpoint_send_test(actor=org, endpoint_id=endpoint.pk)
        assert test.event_type == "webhook.test" and test.status == "pending"


@pytest.mark.django_db
def test_endpoints_choose_their_events_and_their_scope(receiver):
    org, other = organiser(), organiser("other")
    only_finished, _ = _endpoint(org, receiver.url, events=["tournament.finished"])
    mine = _tournament(org)
    per_tournament, _ = _endpoint(org, receiver.url, tournament_id=mine.pk,
                                  events=["tournament.cancelled"])
    _tournament(other)
    services.tournament_cancel(tournament_id=mine.pk)
    assert list(WebhookDelivery.objects.filter(endpoint=only_finished)) == []
    assert list(WebhookDelivery.objects.filter(endpoint=per_tournament)
                .values_list("event_type", flat=True)) == ["tournament.cancelled"]
    with pytest.raises(TournamentError) as exc:
        _endpoint(other, receiver.url, tournament_id=mine.pk)
    assert exc.value.code == "not_organiser"
    with pytest.raises(TournamentError) as exc:
        _endpoint(org, receiver.url, events=["tournament.exploded"])
    assert exc.value.code == "invalid_events"
    guest = Player.objects.create(username="g", display_name="G", password="!")
    with pytest.raises(TournamentError) as exc:
        _endpoint(guest, receiver.url)
    assert exc.value.code == "not_organiser"


@pytest.mark.django_db
def test_a_disqualification_is_an_event_with_the_player(receiver):
    org = organiser()
    t = _tournament(org)
    endpoint, _ = _endpoint(org, receiver.url, tournament_id=t.pk)
    bot = bots(1)[0]
    services.tournament_register(player=bot, tournament_id=t.pk)
    services.registration_disqualify(actor=org, tournament_id=t.pk, player_id=bot.pk,
                                     reason="collusion")
    d = WebhookDelivery.objects.get(endpoint=endpoint)
    assert d.event_type == "tournament.player_disqualified"
    assert d.payload["data"]["player"] == {"id": str(bot.pk), "displayName": bot.display_name}
    assert d.payload["data"]["reason"] == "collusion"
    json.dumps(d.payload)


CREATE = """mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) {
  secret endpoint { id url events isActive tournamentId } errors { code field } } }"""
LIST = """{ webhookEndpoints { id isActive disabledReason consecutiveFailures
  deliveries { messageId eventType status attempts lastError } } }"""


@pytest.mark.django_db(transaction=True)
def test_endpoints_over_graphql_show_the_secret_once(gql):
    from accounts import services as account_services

    org = organiser()
    _, raw = account_services.api_token_create(player=org, name="t")
    client = type(gql)(gql.client, raw)
    data = client(CREATE, {"input": {"url": "http://127.0.0.1:9/hook",
                                     "events": ["FINISHED", "ROUND_STARTED"]}})
    data = data["createWebhookEndpoint"]
    assert data["errors"] == [] and data["secret"].startswith("whsec_")
    assert data["endpoint"]["events"] == ["tournament.finished", "tournament.round_started"]
    bad = client(CREATE, {"input": {"url": "http://10.0.0.1/x"}})["createWebhookEndpoint"]
    assert bad["errors"] == [{"code": "invalid_url", "field": "url"}]
    # The secret is in no query (the type has no such field).
    body = client.raw("{ webhookEndpoints { secret } }").json()
    assert body["errors"] and "secret" in body["errors"][0]["message"]
    endpoint = WebhookEndpoint.objects.get()
    endpoint.is_active = False
    endpoint.disabled_reason = "15 failed tries in a row; last: HTTP 500"
    endpoint.save()
    [listed] = client(LIST)["webhookEndpoints"]
    assert listed["isActive"] is False and "HTTP 500" in listed["disabledReason"]
    sent = client("""mutation($id: ID!) { sendTestWebhook(id: $id) {
      delivery { eventType status } errors { code } } }""", {"id": listed["id"]})
    assert sent["sendTestWebhook"]["delivery"]["eventType"] == "webhook.test"
    again = client("""mutation($id: ID!) { updateWebhookEndpoint(input: {id: $id, active: true}) {
      endpoint { isActive disabledReason } } }""", {"id": listed["id"]})
    assert again["updateWebhookEndpoint"]["endpoint"] == {"isActive": True, "disabledReason": ""}
    # Another organiser sees none of it.
    _, raw2 = account_services.api_token_create(player=organiser("other"), name="t")
    other = type(gql)(gql.client, raw2)
    assert other(LIST)["webhookEndpoints"] == []
    nope = other("""mutation($id: ID!) { sendTestWebhook(id: $id) { errors { code } } }""",
                 {"id": listed["id"]})["sendTestWebhook"]
    assert nope["errors"] == [{"code": "not_found"}]
    assert WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING).count() <= 1
