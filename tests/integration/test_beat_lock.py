"""Exactly one beat: two `celery beat` processes on one Redis (RedBeat) send the schedule
once, not twice, write no schedule file, and the second takes over when the first stops."""

from __future__ import annotations

import json
import sys
import time
import uuid

import pytest

from tests import resources

from .conftest import ROOT, Proc, service_env

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _beat(artifacts_dir, env, name) -> Proc:
    return Proc([sys.executable, "-m", "celery", "-A", "config", "beat", "-l", "info"], env,
                artifacts_dir / f"beat-{name}.log")


def _sweeps(client, queue) -> int:
    return sum(json.loads(m)["headers"]["task"] == "games.sweep"
               for m in client.lrange(queue, 0, -1))


def _wait(predicate, timeout=30.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.2)
    return False


def test_two_beats_send_the_schedule_once_and_the_second_takes_over(django_db_setup,
                                                                   artifacts_dir):
    run = uuid.uuid4().hex[:8]
    queue, prefix = f"beat-test-{run}", f"stapel:redbeat-test-{run}:"
    env = service_env(CELERY_QUEUE=queue, REDBEAT_KEY_PREFIX=prefix, SWEEP_SECONDS="1",
                      TOURNAMENT_TICK_SECONDS="3600")
    client = resources.redis_claim(resources.redis_url())
    first = _beat(artifacts_dir, env, "a")
    second = None
    try:
        assert _wait(lambda: _sweeps(client, queue) >= 1), "the first beat sends nothing"
        second = _beat(artifacts_dir, env, "b")
        second_log = artifacts_dir / "beat-b.log"
        assert _wait(lambda: "beat: Starting..." in second_log.read_text(), timeout=60)
        time.sleep(1)  # the second is up and waiting on the lock
        assert "Acquired lock" not in second_log.read_text()
        before = _sweeps(client, queue)
        time.sleep(5)
        sent = _sweeps(client, queue) - before
        assert 3 <= sent <= 7, f"{sent} sweeps in 5 s with a 1 s schedule"  # not ~10
        assert client.exists(prefix + ":lock")

        first.stop()  # SIGTERM: it lets the lock go
        stopped = _sweeps(client, queue)
        assert _wait(lambda: _sweeps(client, queue) >= stopped + 2, timeout=40), \
            "the second beat did not take over"
        assert "Acquired lock" in second_log.read_text()
    finally:
        first.stop()
        if second is not None:
            second.stop()
        client.delete(queue, *client.keys(prefix + "*"))
    assert not list(ROOT.glob("celerybeat-schedule*"))
