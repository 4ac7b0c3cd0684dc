"""A web process freezes what it loaded at start-up out of the garbage collector's
generations (config/asgi.py): collections during moves then walk only what moves made; and
its young generation is deep (GC_THRESHOLDS), so that full collections, which stop the event
loop for every socket, are rare."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_asgi_application_freezes_what_it_loaded():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings",
           "SECRET_KEY": os.environ.get("SECRET_KEY", "x")}
    env.pop("DATABASE_URL", None)  # importing the app needs no database
    env.pop("REDIS_URL", None)
    out = subprocess.run(
        [sys.executable, "-c", "import gc, config.asgi; print(gc.get_freeze_count())"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=True)
    assert int(out.stdout.strip().splitlines()[-1]) > 10_000


def test_the_asgi_application_sets_the_collectors_thresholds():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings",
           "SECRET_KEY": os.environ.get("SECRET_KEY", "x")}
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    code = "import gc, config.asgi; print(gc.get_threshold())"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=120, check=True)
    assert out.stdout.strip().splitlines()[-1] == "(50000, 20, 100)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT,
                         env={**env, "GC_THRESHOLDS": "700,10,10"}, capture_output=True,
                         text=True, timeout=120, check=True)
    assert out.stdout.strip().splitlines()[-1] == "(700, 10, 10)"
