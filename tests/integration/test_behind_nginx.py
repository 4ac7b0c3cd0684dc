"""The shipped deploy/nginx.conf in front of a real uvicorn node: a moderator logs in to the
admin through it on plain http (the CSRF origin check needs the port in Host), the node sees
the client's address from X-Forwarded-For (trusted from the proxy only), the caller's
X-Request-ID reaches the node, and nginx serves the collected static files with cache
headers. Skipped where nginx is not installed (apt-get install nginx-light)."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from .conftest import ROOT, Proc, service_env, start_server
from .test_moderation_live import PASSWORD, make_moderator

NGINX = shutil.which("nginx") or (Path("/usr/sbin/nginx") if Path("/usr/sbin/nginx").exists()
                                  else None)
pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True),
              pytest.mark.skipif(NGINX is None, reason="nginx is not installed")]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _nginx_config(tmp: Path, listen: int, upstream: str, static_root: Path) -> Path:
    """deploy/nginx.conf as shipped, with only the addresses of this machine put in."""
    site = (ROOT / "deploy" / "nginx.conf").read_text()
    site = site.replace("server web1:8000; server web2:8000;", f"server {upstream};")
    site = site.replace("listen 80;", f"listen 127.0.0.1:{listen};")
    site = site.replace("alias /srv/static/;", f"alias {static_root}/;")
    assert f"127.0.0.1:{listen}" in site and str(static_root) in site
    config = tmp / "nginx.conf"
    # Started as root (CI), nginx's workers would drop to "nobody", who may not read tmp/.
    user = "user root;\n" if os.geteuid() == 0 else ""
    config.write_text(
        f"{user}daemon off; pid {tmp}/nginx.pid; error_log {tmp}/error.log;\n"
        "events { worker_connections 64; }\n"
        f"http {{ access_log {tmp}/access.log; client_body_temp_path {tmp}/body;\n"
        f"  proxy_temp_path {tmp}/proxy;\n{site}\n}}\n")
    return config


def _wait_port(port: int, timeout: float = 10) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError("nginx did not start")


async def test_admin_login_and_forwarded_headers_through_the_shipped_nginx(
        django_db_setup, artifacts_dir, tmp_path):
    static_root = tmp_path / "static"
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"], cwd=ROOT,
                   check=True, env={**service_env(), "STATIC_ROOT": str(static_root)})
    # Plain http, no CSRF_TRUSTED_ORIGINS: the Host nginx passes on must carry the port.
    env = service_env(FORWARDED_ALLOW_IPS="127.0.0.1")
    env.pop("CSRF_TRUSTED_ORIGINS", None)
    server, url = start_server(artifacts_dir, env)
    listen = _free_port()
    nginx = Proc([str(NGINX), "-p", str(tmp_path), "-c",
                  str(_nginx_config(tmp_path, listen, urlsplit(url).netloc, static_root))],
                 env, artifacts_dir / "nginx.log")
    try:
        _wait_port(listen)
        await make_moderator(url, "nadia")
        public = f"http://localhost:{listen}"
        async with httpx.AsyncClient(base_url=public, timeout=20) as browser:
            form = await browser.get("/admin/login/?next=/admin/")
            assert form.status_code == 200
            token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.text)[1]
            login = await browser.post(
                "/admin/login/?next=/admin/",
                data={"csrfmiddlewaretoken": token, "username": "nadia", "password": PASSWORD,
                      "next": "/admin/"},
                headers={"Origin": public, "Referer": f"{public}/admin/login/",
                         "X-Forwarded-For": "203.0.113.9", "X-Request-ID": "via-nginx-1"})
            assert login.status_code == 302, login.text[:500]
            assert login.headers["Location"] == "/admin/"
            assert "Secure" not in login.headers.get("set-cookie", "")  # no TLS: not Secure
            index = await browser.get("/admin/")
            assert index.status_code == 200 and "Stapel administration" in index.text

            static = await browser.get("/static/admin/css/base.css")
            assert static.status_code == 200
            assert "max-age=3600" in static.headers["Cache-Control"]
        lines = (artifacts_dir / f"server-{urlsplit(url).port}.log").read_text()
        [line] = [li for li in lines.splitlines() if '"via-nginx-1"' in li]
        assert '"client": "203.0.113.9"' in line and '"status": 302' in line
        assert "/static/admin/css/base.css" not in lines  # served by nginx, not the node
    finally:
        nginx.stop()
        server.stop()
