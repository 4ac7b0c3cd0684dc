"""The one place that chooses what a test run or a benchmark may touch.

PostgreSQL: pytest-django makes and drops its own ``test_<name>`` beside ``DATABASE_URL``'s
database; benchmarks make and drop ``<name>_bench``. Nothing else is created or dropped.

Redis: the run uses the database number in ``REDIS_URL`` and nothing else, and only once it
owns it: an empty database is claimed with a marker key; a database that holds keys but no
marker belongs to someone else, and the run stops before writing a byte. Database 0 (where a
developer's own Redis data usually lives) is refused unless ``STAPEL_TESTS_MAY_USE_REDIS_DB0=1``.
Flushing is only ever done here, and only of a database the run owns.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit

ALLOW_DB0_ENV = "STAPEL_TESTS_MAY_USE_REDIS_DB0"
MARKER_KEY = "stapel:owned-by-tests"


class ForeignRedisData(RuntimeError):
    """The Redis database the tests were pointed at is not theirs to write or flush."""


def redis_db_number(url: str) -> int:
    path = urlsplit(url).path.strip("/")
    return int(path) if path else 0


def redis_url(env: dict | None = None) -> str:
    """The Redis URL of this run, refusing database 0 unless told to."""
    env = os.environ if env is None else env
    url = env.get("REDIS_URL", "")
    if not url:
        raise ForeignRedisData("REDIS_URL is not set")
    if redis_db_number(url) == 0 and env.get(ALLOW_DB0_ENV) != "1":
        raise ForeignRedisData(
            f"REDIS_URL names Redis database 0; the tests flush the database they use, so give "
            f"them their own, e.g. redis://127.0.0.1:6379/15 (or set {ALLOW_DB0_ENV}=1 when "
            f"database 0 is theirs)")
    return url


def redis_claim(url: str):
    """Make sure the run owns the database at ``url``; return a client on it."""
    import redis

    client = redis.Redis.from_url(url)
    if not client.exists(MARKER_KEY):
        if client.dbsize():
            raise ForeignRedisData(
                f"Redis database {redis_db_number(url)} holds keys the tests did not make; "
                f"point REDIS_URL at an empty database number (the tests will not flush it)")
        # SET NX: two runs racing for one empty database both pass only if neither wrote yet.
        client.set(MARKER_KEY, "1", nx=True)
    return client


def redis_reset(url: str | None = None) -> None:
    """Empty the run's own Redis database (and keep it marked as the run's)."""
    client = redis_claim(url or redis_url())
    client.flushdb()
    client.set(MARKER_KEY, "1")


def database_url_beside(url: str, name: str) -> str:
    """``url`` with its database name replaced (same server, user and options)."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/" + name))


def bench_database_name(url: str) -> str:
    """The benchmark's own database: ``<name of DATABASE_URL's database>_bench``."""
    return (urlsplit(url).path.strip("/") or "stapel") + "_bench"


class RedisServer:
    """A redis-server of the test's own on a free loopback port, without persistence: for
    tests that stop Redis or fill it with foreign data (never the shared server)."""

    def __init__(self, prefix: tuple = ()) -> None:
        """``prefix``: words before the command (e.g. ``("taskset", "-c", "1")``)."""
        import shutil
        import socket
        import subprocess
        import time

        exe = shutil.which("redis-server")
        if exe is None:
            raise FileNotFoundError("redis-server is not installed")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.proc = subprocess.Popen(
            [*prefix, exe, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        import redis

        for _ in range(100):
            try:
                redis.Redis(port=self.port).ping()
                return
            except redis.ConnectionError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("redis-server did not start")

    def url(self, db: int) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
