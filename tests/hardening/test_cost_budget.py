"""Finding 1 (per token over time): each request was priced on its own, so a client could
send query after query just under the maximum and add up to the load one refused query would
have been. Each token's player (and each address, without a token) now has a cost budget per
window that every operation but `act` spends; a spent budget answers `rate_limited` with
`retryAfter` (an HTTP 429 with `Retry-After`) before anything runs."""

import time

import pytest
from graphql import parse

from config.cost import query_cost
from config.schema import schema
from tests.api.test_tables import ACT, guest, two_player_table

pytestmark = pytest.mark.django_db(transaction=True)

QUERY = "{ tables(first: 100) { items { id seats { position } } } }"
COST = query_cost(schema._schema, parse(QUERY))


@pytest.fixture
def budget(settings):
    """Room for three of QUERY per 3 seconds, per player and per address."""
    settings.STAPEL_RATE_LIMITS = {**settings.STAPEL_RATE_LIMITS,
                                   "query_cost": f"{3 * COST + COST // 2} per 3 seconds",
                                   "query_cost_anonymous": f"{3 * COST} per 3 seconds"}


def _refusal(response):
    body = response.json()
    assert body["data"] is None
    (error,) = body["errors"]
    return error["extensions"]


def test_a_token_that_spent_its_budget_is_refused_until_the_window_moves(gql, budget):
    alice, bob = guest(gql, "Alice"), guest(gql, "Bob")
    assert 500 < COST
    for _ in range(3):
        assert "tables" in alice(QUERY)
    started = time.monotonic()
    response = alice.raw(QUERY)
    assert time.monotonic() - started < 0.5
    refused = _refusal(response)
    assert refused["code"] == "rate_limited" and refused["budget"] == "query_cost"
    assert refused["cost"] == COST and 1 <= refused["retryAfter"] <= 3
    assert response.status_code == 429 and response["Retry-After"] == str(refused["retryAfter"])
    # Another player's budget is their own; a cheap query still fits in what is left.
    assert "tables" in bob(QUERY)
    assert alice("{ me { id } }")["me"]
    time.sleep(refused["retryAfter"] + 0.2)
    assert "tables" in alice(QUERY)


def test_anonymous_requests_spend_their_address_budget(gql, budget):
    carol = guest(gql, "Carol")
    time.sleep(3.1)  # the guest's creation spent a little of the address budget
    for _ in range(3):
        assert "tables" in gql(QUERY)
    refused = _refusal(gql.raw(QUERY))
    assert refused["code"] == "rate_limited" and refused["budget"] == "query_cost_anonymous"
    # A token brings its own budget.
    assert "tables" in carol(QUERY)


def test_a_move_spends_nothing(gql, budget):
    alice, bob = guest(gql, "Alice"), guest(gql, "Bob")
    table_id = two_player_table(alice, bob)
    for _ in range(5):
        response = alice.raw(QUERY)
        if response.status_code == 429:
            break
    assert _refusal(response)["code"] == "rate_limited"
    answer = alice(ACT, {"id": table_id, "a": {"draw": True}, "v": 999})["act"]
    assert answer["errors"][0]["code"] == "stale_version"  # it ran: not refused for its cost
