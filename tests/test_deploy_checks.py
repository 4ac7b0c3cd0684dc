"""`manage.py check --deploy` with production settings: Django's own checks find the real
security, clickjacking and CSRF middleware (W001-W003), and with TLS configured nothing is
left to warn about. The API's handler still runs without them (config/middleware.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[1]


def _check_deploy(**env) -> subprocess.CompletedProcess:
    environment = {"PATH": os.environ["PATH"], "DJANGO_SETTINGS_MODULE": "config.settings",
                   "SECRET_KEY": "k" * 20 + "9fQ2-w_Zr7mXp4Lt8vN1cB6yH3jD5sA0eKuGiOoPq",
                   "STAPEL_DATA_DIR": os.environ.get("STAPEL_DATA_DIR", str(ROOT / "db")),
                   **env}
    return subprocess.run([sys.executable, "manage.py", "check", "--deploy",
                           "--fail-level", "WARNING"], cwd=ROOT, env=environment,
                          capture_output=True, text=True, timeout=120)


def test_the_middleware_checks_pass_on_plain_http():
    result = _check_deploy(HTTPS="false")
    for check in ("security.W001", "security.W002", "security.W003"):
        assert check not in result.stderr + result.stdout
    # What is left is only what plain http means (no HSTS, no redirect, no Secure cookies).
    assert set(_ids(result.stderr)) == {"security.W004", "security.W008", "security.W012",
                                        "security.W016"}


def test_with_tls_configured_check_deploy_is_clean():
    result = _check_deploy(HTTPS="true", HSTS_INCLUDE_SUBDOMAINS="true", HSTS_PRELOAD="true")
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def _ids(text: str) -> list[str]:
    import re

    return re.findall(r"security\.W\d+", text)


@pytest.mark.django_db(transaction=True)
async def test_the_api_passes_the_admin_middleware_by_and_the_admin_has_it():
    from config.asgi import application

    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=application),
                                 base_url="http://testserver") as client:
        admin = await client.get("/admin/login/")
        api = await client.post("/graphql/", json={"query": "{ games { id } }"})
    assert admin.headers["X-Frame-Options"] == "DENY" and "csrftoken" in admin.cookies
    assert api.status_code == 200 and api.json()["data"]["games"]
    assert "X-Frame-Options" not in api.headers and "csrftoken" not in api.cookies
    assert "Set-Cookie" not in api.headers


@pytest.mark.django_db(transaction=True)
async def test_static_files_come_with_cache_headers_and_revalidate():
    from config.asgi import application

    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=application),
                                 base_url="http://testserver") as client:
        first = await client.get("/static/admin/css/base.css")
        again = await client.get("/static/admin/css/base.css", headers={
            "If-Modified-Since": first.headers["Last-Modified"]})
    assert first.status_code == 200
    assert first.headers["Cache-Control"] == "public, max-age=3600"
    assert again.status_code == 304
