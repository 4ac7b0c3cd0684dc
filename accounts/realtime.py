"""Closing the websockets of revoked tokens, on every web node.

Each websocket joins the group of the token it authenticated with (config/graphql.py). A
revocation, a password change or an expiry sends one close message to each affected
token's group once the revocation has committed; every node's consumers in that group close
at once with 4403 and send nothing after it. (A ban closes the player's group, see
games/moderation.py.)
"""

from __future__ import annotations

import logging
from functools import partial

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

log = logging.getLogger("stapel.accounts")

TOKEN_CLOSE_TYPE = "token.close"


def token_group(token_id: int) -> str:
    return f"token.{token_id}"


def close_token_sockets_on_commit(token_ids) -> None:
    ids = sorted(set(token_ids))
    if ids:
        transaction.on_commit(partial(_send_close, ids))


def _send_close(token_ids: list[int]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(_close_all)(layer, token_ids)
    except Exception:  # noqa: BLE001 - the token is refused anyway on the next connect
        log.exception("could not close the sockets of %d revoked tokens", len(token_ids))


async def _close_all(layer, token_ids):
    for token_id in token_ids:
        await layer.group_send(token_group(token_id), {"type": TOKEN_CLOSE_TYPE})
