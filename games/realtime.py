"""Per-viewer fan-out of table changes over the channel layer.

Every change at a table is rendered once per audience — each seat, and the spectators — into
that audience's own redacted payload, and sent to that audience's group only. Nothing
unredacted is ever put on the channel layer. Subscriptions still filter what they receive
(table and audience), because every subscription of one websocket shares one consumer.
"""

from __future__ import annotations

import asyncio
import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

log = logging.getLogger("stapel.realtime")

MESSAGE_TYPE = "table.update"
LOBBY_TYPE = "lobby.update"
LOBBY_GROUP = "lobby"
# Sent to a player's group to close every websocket of theirs (a ban); each connection
# joins its player's group (config/graphql.py).
PLAYER_CLOSE_TYPE = "player.close"


def player_group(player_id: int) -> str:
    return f"player.{player_id}"


def audience_key(seat: int | None) -> str:
    return "spectators" if seat is None else f"seat.{seat}"


def group_name(table_id: int, seat: int | None) -> str:
    return f"table.{table_id}.{audience_key(seat)}"


def visible(event: dict, seat: int | None) -> bool:
    to = event.get("visible_to", "all")
    return to == "all" or (seat is not None and seat in to)


def redact_events(events: list[dict], seat: int | None) -> list[dict]:
    return [{k: v for k, v in e.items() if k != "visible_to"} for e in events if visible(e, seat)]


def send(messages: list[tuple[str, dict]]) -> None:
    """Send ``(group, message)`` pairs; a failing channel layer must not break a committed move
    (clients resume from the log)."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(_send_all)(layer, messages)
    except Exception:  # noqa: BLE001 - delivery is at-most-once by design
        log.exception("could not publish %d table messages", len(messages))


async def _send_all(layer, messages):
    await asyncio.gather(*(layer.group_send(group, message) for group, message in messages))
