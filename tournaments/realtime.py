"""Tournament events over the channel layer: one public group per tournament.

Nothing here is secret (pairings, results, standings are public), so every subscriber of a
tournament gets the same message; subscriptions still filter by tournament id, because all
subscriptions of one websocket share one consumer.
"""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

log = logging.getLogger("stapel.tournaments")

MESSAGE_TYPE = "tournament.update"
KINDS = ("registration_opened", "registration_closed", "started", "round_started",
         "table_finished", "standings_changed", "finished", "cancelled")


def group_name(tournament_id: int) -> str:
    return f"tournament.{tournament_id}"


def send(messages: list[dict]) -> None:
    """Send each ``{tournament, kind, ...}`` to its tournament's group; at most once."""
    layer = get_channel_layer()
    if layer is None or not messages:
        return
    try:
        async_to_sync(_send_all)(layer, messages)
    except Exception:  # noqa: BLE001 - a lost event must not undo a committed change
        log.exception("could not publish %d tournament messages", len(messages))


async def _send_all(layer, messages):
    for message in messages:
        await layer.group_send(group_name(message["tournament"]),
                               {"type": MESSAGE_TYPE, **message})
