"""deploy/: docker is not run here, so the recipe is checked as text: compose parses, starts
things in the right order on health, trusts forwarded headers from the proxy only, and the
image hides no failure. (A `docker compose config` run is the next step where docker is.)"""

from __future__ import annotations

import ipaddress
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"


def _compose() -> dict:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def test_compose_starts_in_order_on_health():
    services = _compose()["services"]
    for name in ("postgres", "redis", "web1", "web2"):
        assert services[name]["healthcheck"]["test"], name
    assert services["migrate"]["depends_on"] == {"postgres": {"condition": "service_healthy"}}
    for name in ("web1", "web2", "worker", "beat"):
        assert services[name]["depends_on"]["migrate"] == {
            "condition": "service_completed_successfully"}, name
        assert services[name]["depends_on"]["redis"] == {"condition": "service_healthy"}
    assert {d["condition"] for d in services["proxy"]["depends_on"].values()} == {
        "service_healthy"}
    for name, service in services.items():  # every dependency waits for a condition
        assert not isinstance(service.get("depends_on", {}), list), name


def test_forwarded_headers_are_trusted_from_the_proxy_alone():
    compose = _compose()
    services = compose["services"]
    proxy_ip = services["proxy"]["networks"]["stapel"]["ipv4_address"]
    assert services["web1"]["environment"]["FORWARDED_ALLOW_IPS"] == proxy_ip
    [pool] = compose["networks"]["stapel"]["ipam"]["config"]
    address = ipaddress.ip_address(proxy_ip)
    assert address in ipaddress.ip_network(pool["subnet"])
    assert address not in ipaddress.ip_network(pool["ip_range"])  # never given to another
    assert "--proxy-headers" in services["web1"]["command"]


def test_the_admin_login_works_behind_the_proxy_on_plain_http():
    services = _compose()["services"]
    published = services["proxy"]["ports"][0].split(":")[0]
    environment = services["web1"]["environment"]
    assert f"http://localhost:{published}" in environment["CSRF_TRUSTED_ORIGINS"]
    assert environment["HTTPS"] == "${HTTPS:-false}"  # no Secure cookies without TLS
    nginx = (DEPLOY / "nginx.conf").read_text()
    assert "proxy_set_header Host $http_host;" in nginx  # $host drops the port
    assert "X-Forwarded-Proto $scheme" in nginx and "location /static/" in nginx


def test_the_image_hides_no_failure_and_beat_writes_no_file():
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert "|| true" not in dockerfile
    assert re.search(r"^RUN pip install --no-cache-dir \.$", dockerfile, re.MULTILINE)
    assert re.search(r"^RUN python manage.py collectstatic", dockerfile, re.MULTILINE)
    assert "USER stapel" in dockerfile and "--ws " not in dockerfile
    for command in (_compose()["services"]["beat"]["command"],
                    (DEPLOY / "Procfile").read_text()):
        assert "--schedule" not in command
    assert "celerybeat-schedule" in (ROOT / ".gitignore").read_text()


def test_redbeat_keeps_the_schedule_in_redis_when_there_is_redis():
    from django.conf import settings

    if settings.REDIS_URL:
        assert settings.CELERY_BEAT_SCHEDULER == "redbeat.RedBeatScheduler"
        assert settings.CELERY_REDBEAT_REDIS_URL == settings.REDIS_URL


def test_every_web_launch_declines_permessage_deflate():
    """Compressing each ~1 KB frame cost more server CPU per move than the rest of the
    websocket stack (docs/api.md, "Compression"): every place that starts uvicorn declines it."""
    launches = {
        "deploy/Dockerfile": (DEPLOY / "Dockerfile").read_text(),
        "deploy/Procfile": (DEPLOY / "Procfile").read_text(),
        "deploy/compose.yaml": " ".join(s["command"] for n, s in _compose()["services"].items()
                                        if n.startswith("web")),
        "Makefile": (ROOT / "Makefile").read_text(),
    }
    for name, text in launches.items():
        assert "uvicorn" in text, name
        assert re.search(r'--ws-per-message-deflate"?,?\s*"?false', text), name
