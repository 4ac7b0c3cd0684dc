"""Per-viewer fan-out of table changes.

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

from . import fanout

log = logging.getLogger("stapel.realtime")

MESSAGE_TYPE = "table.update"
LOBBY_TYPE = "lobby.update"
LOBBY_GROUP = "lobby"
# Sent to a player's group to close every websocket of theirs (a ban); each connection
# joins its player's group (config/graphql.py).
PLAYER_CLOSE_TYPE = "player.close"


def player_group(player_id: int) -> str:
    return f"player.{player_id}"


SPECTATORS = "spectators"


def player_audience(player_id: int) -> str:
    return f"player.{player_id}"


def group_name(table_id: int, audience: str) -> str:
    """The live channel of one audience of a table (games/fanout.py). Audiences are per
    player, not per seat number: seat numbers change (empty seats are dropped at the start,
    a seat is freed and taken by someone else), and a subscription that outlived such a
    change must never receive another player's cards."""
    return fanout.key(table_id, audience)


def visible(event: dict, seat: int | None) -> bool:
    to = event.get("visible_to", "all")
    return to == "all" or (seat is not None and seat in to)


def redact_events(events: list[dict], seat: int | None) -> list[dict]:
    return [{k: v for k, v in e.items() if k != "visible_to"} for e in events if visible(e, seat)]


def send(messages: list[tuple[str, dict]]) -> None:
    """Send ``(group, message)`` pairs: table updates on the live fan-out (games/fanout.py),
    everything else (the lobby, closes, tournaments) to channel-layer groups. A failing
    transport must not break a committed move (clients resume from the log)."""
    live = [(group, message) for group, message in messages
            if message.get("type") == MESSAGE_TYPE]
    other = [(group, message) for group, message in messages
             if message.get("type") != MESSAGE_TYPE]
    if live:
        try:
            fanout.publish(live)
        except Exception:  # noqa: BLE001 - delivery is at-most-once by design
            log.exception("could not publish %d table updates", len(live))
    layer = get_channel_layer() if other else None
    if layer is None:
        return
    try:
        async_to_sync(_send_all)(layer, other)
    except Exception:  # noqa: BLE001 - delivery is at-most-once by design
        log.exception("could not publish %d messages", len(other))


async def _send_all(layer, messages):
    await asyncio.gather(*(layer.group_send(group, message) for group, message in messages))
