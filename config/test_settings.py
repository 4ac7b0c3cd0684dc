"""Settings of the pytest process itself: the environment's settings with fast password
hashing, and tasks on the in-process scheduler without pauses. Servers and workers that
integration tests start as real processes use config.settings."""

from .settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
CELERY_TASK_ALWAYS_EAGER = True
STAPEL_BOT_PAUSE_SECONDS = 0
STAPEL_ROUND_PAUSE_SECONDS = 0
STAPEL_WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.1/32"]
# Tests call the periodic services themselves; a background beat would race their data.
STAPEL_IN_PROCESS_BEAT = False
# Every test client comes from 127.0.0.1: the per-address and per-token limits are raised
# (not switched off, so they still run); tests of the limits set their own.
STAPEL_RATE_LIMITS = {**STAPEL_RATE_LIMITS, **dict.fromkeys(  # noqa: F405
    ["create_guest", "register", "login_address", "create_table", "ws_connect",
     "ws_operation", "token", "address"], "100000 per minute"),
    **dict.fromkeys(["query_cost", "query_cost_anonymous"], "100000000 per minute")}
# Each pytest-xdist worker resets only its own counters between tests.
STAPEL_RATE_LIMIT_KEY_PREFIX = f"stapel:rl:test-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"  # noqa: F405
