"""``DEADLINE_SWEEP_SECONDS`` (config/settings.py): how often beat runs turn clocks; a value
that would make beat spin, or never run them, stops the process at start with a clear error."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _settings(value: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "SECRET_KEY": "x",
           "DEADLINE_SWEEP_SECONDS": value}
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    code = ("import django; django.setup(); from django.conf import settings; "
            "print(settings.STAPEL_DEADLINE_SWEEP_SECONDS, "
            "settings.CELERY_BEAT_SCHEDULE['games-deadlines']['schedule'])")
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def test_the_deadline_sweep_interval_is_set_and_checked():
    ok = _settings("0.5")
    assert ok.returncode == 0, ok.stderr[-2000:]
    assert ok.stdout.split() == ["0.5", "0.5"]
    for wrong in ("0", "-1", "soon", "3600"):
        refused = _settings(wrong)
        assert refused.returncode != 0
        assert "DEADLINE_SWEEP_SECONDS is a number of seconds" in refused.stderr
