"""Structured logs (config/logs.py): one JSON line per request through the real ASGI app,
with its request id, and nothing secret in any line. The request id's way into a worker's
task is tested on a real worker in tests/integration/test_logs_live.py."""

from __future__ import annotations

import io
import json
import logging

import httpx
import pytest
import structlog

from config import logs

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct horse battery staple"
REGISTER = """mutation($u: String!, $p: String!) {
  register(username: $u, password: $p, displayName: "Dora") { token errors { code } } }"""
LOGIN = """mutation($u: String!, $p: String!) {
  login(username: $u, password: $p) { token errors { code } } }"""


@pytest.fixture
def log_lines():
    """Every line the process logs meanwhile, rendered exactly as on stderr; each must be one
    JSON object."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    structured = logs.logging_settings()["formatters"]["structured"]
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        processors=structured["processors"], foreign_pre_chain=structured["foreign_pre_chain"]))
    handler.addFilter(logs.NoTraceback())
    root = logging.getLogger()
    root.addHandler(handler)

    def lines() -> list[dict]:
        raw = stream.getvalue().splitlines()
        return [json.loads(line) for line in raw]  # fails on any line that is not JSON

    lines.text = stream.getvalue
    yield lines
    root.removeHandler(handler)


@pytest.fixture
async def asgi():
    from config.asgi import application

    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=application),
                                 base_url="http://testserver") as client:
        yield client


def _of(lines, request_id):
    return [line for line in lines if line.get("request_id") == request_id]


async def test_one_json_line_per_request_with_its_request_id_and_no_secret(asgi, log_lines):
    registered = await asgi.post("/graphql/", json={"query": REGISTER, "variables": {
        "u": "dora", "p": PASSWORD}}, headers={"X-Request-ID": "req-register-1"})
    token = registered.json()["data"]["register"]["token"]
    assert registered.headers["X-Request-ID"] == "req-register-1"
    logged_in = await asgi.post("/graphql/", json={"query": LOGIN, "variables": {
        "u": "dora", "p": PASSWORD}}, headers={"X-Request-ID": "req-login-1"})
    login_token = logged_in.json()["data"]["login"]["token"]
    me = await asgi.post("/graphql/", json={"query": "{ me { displayName } }"},
                         headers={"Authorization": f"Bearer {token}"})

    lines = log_lines()
    [line] = [li for li in _of(lines, "req-login-1") if li["event"] == "request"]
    assert line == {**line, "method": "POST", "path": "/graphql/", "status": 200,
                    "operation": "login", "outcome": "ok", "level": "info",
                    "logger": "stapel.access"}
    assert line["duration_ms"] >= 0 and line["ts"].endswith("Z")
    # Without a header the id is made, sent back, and on the line.
    made = me.headers["X-Request-ID"]
    assert len(made) == 32 and [li["operation"] for li in _of(lines, made)] == ["me"]
    text = log_lines.text()
    for secret in (PASSWORD, token, login_token, token[4:], "Bearer"):
        assert secret not in text


async def test_expected_client_errors_are_one_line_without_traceback(asgi, log_lines):
    answers = {
        "bad-token": await asgi.post("/graphql/", json={"query": "{ me { id } }"},
                                     headers={"Authorization": "Bearer stp_nope",
                                              "X-Request-ID": "bad-token"}),
        "not-found": await asgi.get("/no/such/page", headers={"X-Request-ID": "not-found"}),
        "bad-json": await asgi.post("/graphql/", content=b"{", headers={
            "X-Request-ID": "bad-json", "Content-Type": "application/json"}),
        "bad-host": await asgi.get("/admin/login/", headers={"X-Request-ID": "bad-host",
                                                             "Host": "evil.example"}),
    }
    assert {k: r.status_code for k, r in answers.items()} == {
        "bad-token": 401, "not-found": 404, "bad-json": 400, "bad-host": 400}
    lines = log_lines()
    for request_id, response in answers.items():
        mine = _of(lines, request_id)
        if request_id == "bad-host":  # Django's security log says which host was refused
            assert [li["logger"] for li in mine] == ["django.security.DisallowedHost",
                                                     "stapel.access"]
        else:
            assert [li["event"] for li in mine] == ["request"], mine
        assert all("exception" not in li for li in mine)
        assert mine[-1]["status"] == response.status_code and mine[-1]["level"] == "info"
    assert "stp_nope" not in log_lines.text()


@pytest.mark.parametrize("sent", ["a b", "x" * 200, "id\nforged", "<script>"])
async def test_an_unsafe_request_id_is_replaced(asgi, log_lines, sent):
    response = await asgi.get("/health/live", headers={"X-Request-ID": sent})
    made = response.headers["X-Request-ID"]
    assert made != sent and len(made) == 32
    assert _of(log_lines(), made)[0]["path"] == "/health/live"


def test_redaction_covers_fields_text_and_tracebacks(log_lines):
    log = structlog.get_logger("stapel.test")
    log.info("dealt", hand=["K♠", "7♥"], cards=["A♣"], api_token="stp_abcdefghijklmnop",
             payload={"password": "hunter22", "seat": 1})
    logging.getLogger("stapel.test").warning("header was Authorization: Bearer abc.def-ghi")
    try:
        raise ValueError("token stp_zyxwvutsrqponmlk was refused")
    except ValueError:
        logging.getLogger("stapel.test").exception("failed")
    text = log_lines.text()
    for secret in ("K♠", "A♣", "abcdefghijklmnop", "hunter22", "abc.def-ghi",
                   "zyxwvutsrqponmlk"):
        assert secret not in text
    dealt, header, failed = log_lines()
    assert dealt["payload"] == {"password": "[redacted]", "seat": 1}
    assert "Traceback" in failed["exception"] and failed["level"] == "error"


async def test_a_frontend_on_another_origin_may_read_the_request_id(asgi, settings):
    settings.CORS_ALLOWED_ORIGINS = ["https://cards.example.org"]
    response = await asgi.post("/graphql/", json={"query": "{ games { id } }"}, headers={
        "Origin": "https://cards.example.org", "X-Request-ID": "from-the-frontend"})
    assert response.headers["X-Request-ID"] == "from-the-frontend"
    exposed = response.headers["Access-Control-Expose-Headers"].lower()
    assert "x-request-id" in exposed and "retry-after" in exposed
