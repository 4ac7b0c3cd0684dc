"""Settings of the pytest process itself: the environment's settings with fast password
hashing, and tasks on the in-process scheduler without pauses. Servers and workers that
integration tests start as real processes use config.settings."""

from .settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
CELERY_TASK_ALWAYS_EAGER = True
STAPEL_BOT_PAUSE_SECONDS = 0
STAPEL_ROUND_PAUSE_SECONDS = 0
STAPEL_WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.1/32"]
