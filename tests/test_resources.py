"""Tests never touch data that is not theirs: the Redis database they are given must be
empty or already theirs, and never database 0 unless told to (tests/resources.py)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import redis

from tests import resources

ROOT = Path(__file__).resolve().parents[1]


def test_redis_database_0_is_refused_unless_allowed():
    with pytest.raises(resources.ForeignRedisData, match="database 0"):
        resources.redis_url({"REDIS_URL": "redis://127.0.0.1:6379/0"})
    with pytest.raises(resources.ForeignRedisData, match="database 0"):
        resources.redis_url({"REDIS_URL": "redis://127.0.0.1:6379"})
    allowed = {"REDIS_URL": "redis://127.0.0.1:6379/0", resources.ALLOW_DB0_ENV: "1"}
    assert resources.redis_url(allowed) == "redis://127.0.0.1:6379/0"
    assert resources.redis_url({"REDIS_URL": "redis://h:1/7"}) == "redis://h:1/7"


def test_a_database_holding_foreign_keys_is_never_claimed_nor_flushed(own_redis):
    foreign = redis.Redis.from_url(own_redis.url(4))
    foreign.set("my-own-data", "precious")
    with pytest.raises(resources.ForeignRedisData, match="did not make"):
        resources.redis_reset(own_redis.url(4))
    assert foreign.get("my-own-data") == b"precious"

    resources.redis_reset(own_redis.url(5))  # empty: claimed, then the run's to flush
    mine = redis.Redis.from_url(own_redis.url(5))
    mine.set("left-by-a-test", "1")
    resources.redis_reset(own_redis.url(5))
    assert not mine.exists("left-by-a-test") and mine.exists(resources.MARKER_KEY)


@pytest.mark.parametrize("db", [0, 3])
def test_a_test_run_pointed_at_a_developers_redis_stops_before_writing(own_redis, db):
    developer = redis.Redis.from_url(own_redis.url(db))
    developer.set("session:ada", "keep me")
    env = {**os.environ, "REDIS_URL": own_redis.url(db)}
    env.pop(resources.ALLOW_DB0_ENV, None)
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "--co", "-p", "no:cacheprovider",
                          "tests/engine/test_kato.py"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 4, run.stdout + run.stderr
    assert "refusing to run" in run.stdout + run.stderr
    assert developer.get("session:ada") == b"keep me"
    assert developer.dbsize() == 1
