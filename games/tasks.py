"""Celery tasks: everything that happens at a table without a person acting.

Each task takes a table id and the version it was queued for, re-reads the row under a lock
and does nothing when the match has moved on, so running one twice (redelivery after a lost
worker, a sweep re-queueing it) is harmless; that is what makes ``acks_late`` safe here.
"""

import logging

from celery import shared_task
from celery.signals import worker_ready
from django.db import OperationalError

from . import services

log = logging.getLogger("stapel.tasks")

IDEMPOTENT = {"acks_late": True, "reject_on_worker_lost": True,
              "autoretry_for": (OperationalError,), "retry_backoff": True, "max_retries": 5}


@shared_task(name="games.bot_turn", **IDEMPOTENT)
def bot_turn(table_id: int, version: int) -> bool:
    return services.bot_turn(table_id=table_id, expected_version=version)


@shared_task(name="games.round_end", **IDEMPOTENT)
def round_end(table_id: int, version: int) -> bool:
    return services.round_end(table_id=table_id, expected_version=version)


@shared_task(name="games.turn_timeout", **IDEMPOTENT)
def turn_timeout(table_id: int, version: int) -> bool:
    return services.turn_timeout(table_id=table_id, expected_version=version)


@shared_task(name="games.deadlines", **IDEMPOTENT)
def deadlines() -> int:
    return services.sweep_deadlines()


@shared_task(name="games.sweep", **IDEMPOTENT)
def sweep() -> int:
    return services.sweep_stalled()


@worker_ready.connect
def _resume_after_restart(**_kwargs):
    """A worker that starts picks up what a killed one left half-done."""
    services.sweep_deadlines()
    services.sweep_stalled(older_than=0)
