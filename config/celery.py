import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# A prefork child runs one task at a time on its main thread: it keeps one connection to
# PostgreSQL for its life (config/celery_signals.py). Celery's Django fixup otherwise closes
# a child's connections, its whole pool included, before and after every task, so each bot
# turn and round end connected afresh (two connections, the pool's minimum): a quarter of the
# worker's CPU, and a PostgreSQL backend started and ended per task. With this it closes them
# every DB_REUSE_MAX tasks only (each task signal counts half).
app.conf.CELERY_DB_REUSE_MAX = int(os.environ.get("WORKER_DB_REUSE_MAX", 1000) or 1000)

from . import celery_signals  # noqa: E402, F401 - heartbeat, task metrics, request ids
