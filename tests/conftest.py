"""Shared fixtures. API tests talk GraphQL to the real ASGI/Django stack; they run on
PostgreSQL and Redis when DATABASE_URL/REDIS_URL are set (CI), else on the embedded default."""

import json
import logging
import os

import pytest
from hypothesis import settings as hypothesis_settings

# Locally hypothesis explores new examples on every run; CI runs a fixed set, so a landing
# never depends on the luck of the draw (a failure found locally is kept in .hypothesis/).
# No deadline per example: it is a timed assertion, and on a slow or busy 2-core machine a
# 200 ms deadline failed a property that held (tests/api/test_compiled_variables.py).
hypothesis_settings.register_profile("local", deadline=None)
hypothesis_settings.register_profile("ci", derandomize=True, print_blob=True, deadline=None)
hypothesis_settings.load_profile("ci" if os.environ.get("CI") else "local")

REAL_SERVICES = bool(os.environ.get("DATABASE_URL")) and bool(os.environ.get("REDIS_URL"))


def pytest_sessionstart(session):
    """Before any test writes to Redis: the run must own the database REDIS_URL names (see
    tests/resources.py), or it stops here and leaves it untouched."""
    if not os.environ.get("REDIS_URL"):
        return
    from tests import resources

    try:
        resources.redis_claim(resources.redis_url())
    except resources.ForeignRedisData as exc:
        pytest.exit(f"refusing to run: {exc}", returncode=4)


def pytest_collection_modifyitems(config, items):
    if REAL_SERVICES:
        return
    skip = pytest.mark.skip(reason="needs DATABASE_URL and REDIS_URL (real PostgreSQL and Redis)")
    for item in items:
        if "integration" in item.keywords:
            item.add_marker(skip)


class GraphQLClient:
    """Posts GraphQL over Django's test client; `token` sets the bearer header."""

    def __init__(self, client, token=None):
        self.client = client
        self.token = token

    def raw(self, query, variables=None, headers=None):
        hdrs = {}
        if self.token:
            hdrs["Authorization"] = f"Bearer {self.token}"
        hdrs.update(headers or {})
        return self.client.post("/graphql/", data=json.dumps({"query": query,
                                                             "variables": variables or {}}),
                                content_type="application/json", headers=hdrs)

    def __call__(self, query, variables=None, **kw):
        response = self.raw(query, variables, **kw)
        body = response.json()
        assert "errors" not in body, body["errors"]
        return body["data"]


@pytest.fixture
def gql(client):
    return GraphQLClient(client)


@pytest.fixture
def guest_token(gql):
    data = gql('mutation { createGuest(displayName: "Guest") { token errors { code } } }')
    return data["createGuest"]["token"]


@pytest.fixture(autouse=True)
def _rate_limits_reset():
    """Each test starts with fresh rate-limit counters (config/ratelimit.py)."""
    from config import ratelimit

    ratelimit.reset()


@pytest.fixture(autouse=True)
def _tables_forgotten():
    """Each test starts with no table remembered from an earlier test's moves
    (``selectors.remembered``): a database made afresh may give a new table an old id."""
    from games import selectors

    selectors.forget_all()


@pytest.fixture(autouse=True)
def _drain_in_process_tasks():
    """Tasks queued in-process (bots, round ends) finish before the test's data goes."""
    yield
    from games import scheduling

    scheduling.wait_idle(timeout=30, horizon=1.0)
    scheduling.clear_local_queue()


logging.getLogger("httpx").setLevel(logging.WARNING)


@pytest.fixture
def own_redis():
    """A redis-server process of this test alone (see tests/resources.py)."""
    from tests import resources

    try:
        server = resources.RedisServer()
    except FileNotFoundError:
        pytest.skip("redis-server is not installed")
    yield server
    server.stop()
