"""Celery: what tournaments do by themselves. Tasks take ids, re-read rows and do nothing
when the world has moved on, so they may run twice (``acks_late``)."""

from celery import shared_task
from django.db import OperationalError

from games import scheduling

from . import ratings, services, webhooks

IDEMPOTENT = {"acks_late": True, "reject_on_worker_lost": True,
              "autoretry_for": (OperationalError,), "retry_backoff": True, "max_retries": 5}


@shared_task(name="tournaments.table_finished", **IDEMPOTENT)
def table_finished(table_id: int) -> bool:
    """A match ended: ratings first, then the tournament it belongs to (if any)."""
    rated = ratings.ratings_record_table(table_id=table_id)
    advanced = services.tournament_table_finished(table_id=table_id)
    return rated or advanced


@shared_task(name="tournaments.tick", **IDEMPOTENT)
def tick() -> int:
    return (services.tournament_tick() + ratings.ratings_sweep()
            + webhooks.deliveries_sweep())


@shared_task(name="tournaments.start", **IDEMPOTENT)
def start(tournament_id: int) -> bool:
    from .errors import TournamentError

    try:
        services.tournament_start(actor=None, tournament_id=tournament_id)
    except TournamentError:
        return False
    return True


@shared_task(name="tournaments.webhook_deliver", **IDEMPOTENT)
def webhook_deliver(delivery_id: int) -> bool:
    """One try of a webhook delivery; the next try (backoff) is queued from here, and the
    clock re-queues one whose task was lost."""
    retry_in = webhooks.delivery_attempt(delivery_id=delivery_id)
    if retry_in is not None:
        scheduling.schedule(webhook_deliver, [delivery_id], countdown=retry_in)
    return retry_in is None
