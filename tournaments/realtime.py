"""Tournament events over the channel layer: one public group per tournament.

Sent through the games' one door (``games.services.broadcast``, on commit). Nothing here is
secret (pairings, results, standings are public), so every subscriber of a
tournament gets the same message; subscriptions still filter by tournament id, because all
subscriptions of one websocket share one consumer.
"""

from __future__ import annotations

MESSAGE_TYPE = "tournament.update"
KINDS = ("registration_opened", "registration_closed", "started", "round_started",
         "table_finished", "standings_changed", "finished", "cancelled")


def group_name(tournament_id: int) -> str:
    return f"tournament.{tournament_id}"
