"""Real processes for integration tests: an ASGI server (uvicorn) and a Celery worker, both
on the test database in PostgreSQL and on Redis. Only runs when DATABASE_URL and REDIS_URL
are set (CI); see tests/conftest.py."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def service_env(**extra) -> dict:
    db = settings.DATABASES["default"]
    url = (f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/"
           f"{db['NAME']}")
    env = {**os.environ, "DATABASE_URL": url, "SECRET_KEY": "integration",
           "BOT_PAUSE_SECONDS": "0", "ROUND_PAUSE_SECONDS": "0",
           "PYTHONUNBUFFERED": "1", "SWEEP_SECONDS": "1",
           # The test server speaks plain http: admin session and CSRF cookies must not be
           # marked Secure, or clients would never send them back.
           "SECURE_COOKIES": "0",
           # Webhook receivers of tests listen on 127.0.0.1; retries come fast.
           "WEBHOOK_ALLOWED_NETWORKS": "127.0.0.1/32", "WEBHOOK_RETRY_BASE_SECONDS": "0.3",
           "WEBHOOK_MAX_ATTEMPTS": "3", "WEBHOOK_DISABLE_AFTER_FAILURES": "4",
           # Every client of the test servers comes from 127.0.0.1 (see config/test_settings).
           **{f"RATE_LIMIT_{name}": "100000 per minute" for name in (
               "CREATE_GUEST", "REGISTER", "LOGIN_ADDRESS", "CREATE_TABLE", "WS_CONNECT",
               "WS_OPERATION", "TOKEN", "ADDRESS")},
           **{f"RATE_LIMIT_{name}": "100000000 per minute"
              for name in ("QUERY_COST", "QUERY_COST_ANONYMOUS")},
           "DJANGO_SETTINGS_MODULE": "config.settings"}
    env.pop("CELERY_TASK_ALWAYS_EAGER", None)
    env.update({k: str(v) for k, v in extra.items()})
    return env


class Proc:
    def __init__(self, args, env, log_path):
        self.log = open(log_path, "w")  # noqa: SIM115
        self.proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=self.log,
                                     stderr=subprocess.STDOUT, start_new_session=True)

    def stop(self, sig=signal.SIGTERM, timeout=10):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.log.close()


def start_server(tmp_dir: Path, env: dict, workers: int = 1) -> tuple[Proc, str]:
    port = _free_port()
    proc = Proc([sys.executable, "-m", "uvicorn", "config.asgi:application", "--host",
                 "127.0.0.1", "--port", str(port), "--workers", str(workers),
                 "--log-level", "warning"],
                env, tmp_dir / f"server-{port}.log")
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            if httpx.get(url + "/health/", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        if proc.proc.poll() is not None:
            break
        time.sleep(0.1)
    proc.stop()
    raise RuntimeError(f"server did not start: {(tmp_dir / f'server-{port}.log').read_text()}")


def start_worker(tmp_dir: Path, env: dict, name: str = "w1", concurrency: int = 2) -> Proc:
    proc = Proc([sys.executable, "-m", "celery", "-A", "config", "worker", "-l", "info",
                 "-c", str(concurrency), "-n", f"{name}@%h", "--without-gossip",
                 "--without-mingle", "--without-heartbeat"],
                env, tmp_dir / f"worker-{name}.log")
    log = tmp_dir / f"worker-{name}.log"
    for _ in range(300):
        if "ready." in log.read_text():
            return proc
        if proc.proc.poll() is not None:
            break
        time.sleep(0.1)
    proc.stop()
    raise RuntimeError(f"worker did not start: {log.read_text()}")


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    path = ROOT / "test-artifacts"
    path.mkdir(exist_ok=True)
    return path


@pytest.fixture(scope="session")
def live_server_url(django_db_setup, django_db_blocker, artifacts_dir):
    from tests import resources

    resources.redis_reset()
    proc, url = start_server(artifacts_dir, service_env())
    yield url
    proc.stop()


@pytest.fixture(scope="session")
def celery_worker_proc(live_server_url, artifacts_dir):
    proc = start_worker(artifacts_dir, service_env())
    yield proc
    proc.stop()


SETTLING_TASKS = (b'"games.round_end"', b'"tournaments.')


@pytest.fixture(autouse=True)
def _worker_settles(request):
    """After a test with a worker, wait (briefly) for the work a finished match sets off: the
    round end and the rating/tournament task it queues on commit. The database flush that
    follows takes exclusive locks on every table and would deadlock with them."""
    yield
    if "celery_worker_proc" not in request.fixturenames:
        return
    from tests import resources

    r = resources.redis_claim(resources.redis_url())
    end = time.monotonic() + 5
    while time.monotonic() < end:
        pending = r.lrange("celery", 0, -1) + list(r.hvals("unacked"))
        if not any(name in message for message in pending for name in SETTLING_TASKS):
            return
        time.sleep(0.05)
