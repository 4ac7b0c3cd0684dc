"""/health/live, /health/ready and /metrics (config/health.py, config/metrics.py)."""

import pytest
from prometheus_client.parser import text_string_to_metric_families

from .test_tables import ACT, VIEW, guest, two_player_table

pytestmark = pytest.mark.django_db(transaction=True)


def _samples(client):
    response = client.get("/metrics")
    assert response.status_code == 200
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(response.content.decode())
            for s in family.samples}


def test_live_and_ready_answer_with_each_check(client):
    assert client.get("/health/live").json() == {"status": "ok"}
    body = client.get("/health/ready").json()
    assert body["status"] == "ok"
    assert set(body["checks"]) == {"database", "redis", "worker"}
    assert all("latency_ms" in c for c in body["checks"].values())


def test_metrics_parse_and_count_a_played_move(gql, client):
    alice, bob = guest(gql, "Alice"), guest(gql, "Bob")
    table_id = two_player_table(alice, bob)
    actor = alice if 0 in alice(VIEW, {"id": table_id})["table"]["view"]["actors"] else bob
    me = actor(VIEW, {"id": table_id})["table"]
    key = ("stapel_moves_applied_total", (("game", "kato"), ("kind", "action")))
    before = _samples(client).get(key, 0)
    moved = actor(ACT, {"id": table_id, "a": me["view"]["legalActions"][0], "v": me["version"]})
    assert moved["act"]["errors"] == []
    after = _samples(client)
    assert after[key] == before + 1
    assert after[("stapel_tables", (("status", "playing"),))] >= 1
    assert after[("stapel_graphql_requests_total", (("operation", "act"), ("outcome", "ok")))] >= 1


def test_metrics_refuse_other_addresses_unless_allowed(client, settings):
    assert client.get("/metrics", REMOTE_ADDR="10.1.2.3").status_code == 403
    settings.STAPEL_METRICS_TOKEN = "s3cret"
    assert client.get("/metrics", REMOTE_ADDR="10.1.2.3",
                      headers={"Authorization": "Bearer s3cret"}).status_code == 200
    settings.STAPEL_METRICS_ALLOWED_ADDRESSES = ["10.0.0.0/8"]
    assert client.get("/metrics", REMOTE_ADDR="10.1.2.3").status_code == 200
