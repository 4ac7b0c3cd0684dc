"""The live move threads each keep a database connection: a pool no larger than them left
nothing for HTTP and /metrics (bench_live with LIVE_DB_THREADS=8 and DB_POOL_MAX=8 timed out
on every request). The pool is never smaller than the threads plus a few."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _pool(**env):
    code = ("import django, json; django.setup(); from django.conf import settings; "
            "print(json.dumps(settings.DATABASES['default']['OPTIONS']['pool']))")
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "SECRET_KEY": "x",
             "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/unused", **env})
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_pool_outgrows_the_move_threads():
    assert _pool(DB_POOL_MAX="8", LIVE_DB_THREADS="8")["max_size"] == 12
    assert _pool(DB_POOL_MAX="30", LIVE_DB_THREADS="8")["max_size"] == 30
