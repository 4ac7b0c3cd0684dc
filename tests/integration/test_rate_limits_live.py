"""Rate limits are shared by every web node through Redis: two uvicorn processes count the
same login attempts, and over HTTP a refusal is a 429 with Retry-After."""

import uuid

import httpx
import pytest

from .conftest import service_env, start_server

pytestmark = pytest.mark.integration

LOGIN = """mutation($u: String!, $p: String!) { login(username: $u, password: $p) {
  token errors { code retryAfter } } }"""


def test_two_web_processes_share_the_login_limit(django_db_setup, artifacts_dir):
    env = service_env(RATE_LIMIT_LOGIN_USERNAME="4 per minute")
    nodes = [start_server(artifacts_dir, env) for _ in range(2)]
    try:
        urls = [url for _, url in nodes]
        victim = f"victim-{uuid.uuid4().hex[:8]}"  # counters outlive a run in Redis
        codes, statuses = [], []
        for n in range(8):  # alternating nodes: each sees only half of the attempts
            response = httpx.post(urls[n % 2] + "/graphql/", json={
                "query": LOGIN, "variables": {"u": victim, "p": f"guess{n}"}},
                timeout=10)
            statuses.append(response.status_code)
            codes.append(response.json()["data"]["login"]["errors"][0]["code"])
        assert codes == ["invalid_credentials"] * 4 + ["rate_limited"] * 4
        assert statuses == [200] * 4 + [429] * 4
        assert 1 <= int(response.headers["Retry-After"]) <= 60
    finally:
        for proc, _ in nodes:
            proc.stop()
