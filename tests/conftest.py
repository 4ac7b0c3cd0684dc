"""Shared fixtures. API tests talk GraphQL to the real ASGI/Django stack; they run on
PostgreSQL and Redis when DATABASE_URL/REDIS_URL are set (CI), else on the embedded default."""

import os

os.environ.setdefault("FAST_PASSWORD_HASHER", "1")
os.environ.setdefault("DB_CONN_MAX_AGE", "0")

import json  # noqa: E402

import pytest  # noqa: E402
from django.conf import settings  # noqa: E402

REAL_SERVICES = bool(os.environ.get("DATABASE_URL")) and bool(os.environ.get("REDIS_URL"))


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


@pytest.fixture
def settings_snapshot():
    return settings
