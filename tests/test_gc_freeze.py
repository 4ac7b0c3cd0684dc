"""A web process freezes what it loaded at start-up out of the garbage collector's
generations (config/asgi.py): collections during moves then walk only what moves made; and
its young generation is deep (GC_THRESHOLDS), so that full collections, which stop the event
loop for every socket, are rare."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _in_a_web_process(code: str, **env) -> subprocess.CompletedProcess:
    """Run ``code`` after importing the ASGI app, as a web process does (no database)."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings",
           "SECRET_KEY": os.environ.get("SECRET_KEY", "x"), **env}
    env.pop("DATABASE_URL", None)  # importing the app needs no database
    env.pop("REDIS_URL", None)
    return subprocess.run([sys.executable, "-c", f"import gc, config.asgi; {code}"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120)


def _printed(out: subprocess.CompletedProcess) -> str:
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip().splitlines()[-1]


def test_the_asgi_application_freezes_what_it_loaded():
    assert int(_printed(_in_a_web_process("print(gc.get_freeze_count())"))) > 10_000


def test_the_asgi_application_sets_the_collectors_thresholds():
    code = "print(gc.get_threshold())"
    assert _printed(_in_a_web_process(code)) == "(50000, 20, 100)"
    assert _printed(_in_a_web_process(code, GC_THRESHOLDS="700,10,10")) == "(700, 10, 10)"
    for wrong in ("700,10", "700,x,10", "0,10,10"):
        refused = _in_a_web_process(code, GC_THRESHOLDS=wrong)
        assert refused.returncode != 0
        assert "GC_THRESHOLDS is three positive numbers" in refused.stderr
