"""The ``graphql-transport-ws`` handler with every client frame checked before it is used.

Strawberry's handler indexes each frame as a dict: a frame of ``"x"``, ``[1]``, ``5`` or
``null``, a string payload or a dict id raised inside it, the socket's task died, and the
socket stayed open, silent, holding a file descriptor. Here a frame that is not what the
protocol defines closes the socket with 4400 (the protocol's code for it), and a subscribe
whose document does not parse gets an ``error`` message for that operation (the socket
stays usable), as for any other invalid document.

An operation de-registers only itself when it ends. Strawberry deleted its id blindly; an
operation that outlived its de-registration (the socket closed, or the client completed it,
while the operation sat in an await that did not honour the cancellation) then raised
``KeyError`` into the log, or, when the client had reused the id meanwhile, de-registered
the new operation, which then ran on unseen by ``complete`` and by the id check.
"""

from __future__ import annotations

import asyncio
import logging

from graphql import GraphQLError, GraphQLSyntaxError
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import (
    BaseGraphQLTransportWSHandler,
)

from games.api import live

log = logging.getLogger("stapel.graphql")

MESSAGE_TYPES = {"connection_init", "ping", "pong", "subscribe", "complete"}


def frame_problem(message) -> str | None:
    """Why a decoded frame is not a graphql-transport-ws message, or None."""
    if not isinstance(message, dict):
        return "a message must be a JSON object"
    kind = message.get("type")
    if not isinstance(kind, str) or kind not in MESSAGE_TYPES:
        return "unknown message type"
    if kind in {"connection_init", "ping", "pong"}:
        payload = message.get("payload")
        if payload is not None and not isinstance(payload, dict):
            return f"the {kind} payload must be an object"
        return None
    if not isinstance(message.get("id"), str) or not message["id"]:
        return f"a {kind} message needs a string id"
    if kind == "complete":
        return None
    payload = message.get("payload")
    if not isinstance(payload, dict):
        return "the subscribe payload must be an object"
    if not isinstance(payload.get("query"), str) or not payload["query"].strip():
        return "the subscribe payload needs a query"
    if not isinstance(payload.get("variables"), dict | None):
        return "variables must be an object"
    if not isinstance(payload.get("operationName"), str | None):
        return "operationName must be a string"
    if not isinstance(payload.get("extensions"), dict | None):
        return "extensions must be an object"
    return None


class CheckedTransportWSHandler(BaseGraphQLTransportWSHandler):
    async def run_operation(self, operation) -> None:
        """The hot operations (``tableEvents``, ``act``) run compiled (games/api/live.py);
        everything else, and whatever the compiled path declines, through strawberry."""
        try:
            if await live.run(self, operation):
                if not operation.completed:
                    await operation.send_operation_message(
                        {"id": operation.id, "type": "complete"})
                return
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - answered as strawberry answers a resolver's bug
            log.exception("unexpected error in %s", operation.id)
            await operation.send_operation_message({"id": operation.id, "type": "next", "payload": {
                "data": None, "errors": [{"message": "Unexpected error.",
                                          "extensions": {"code": "internal_error"}}]}})
            await operation.send_operation_message({"id": operation.id, "type": "complete"})
            return
        await super().run_operation(operation)

    async def handle_message(self, message) -> None:
        problem = frame_problem(message)
        if problem is not None:
            await self.handle_invalid_message(problem)
            return
        await super().handle_message(message)

    @staticmethod
    def _get_pre_execution_close_reason(error: GraphQLError) -> str | None:
        # A syntax error is the document's fault, not the socket's: answer it with an
        # ``error`` message like any invalid document (strawberry closed the socket, and
        # our masked copy of the error was not seen as one, so nothing was said at all).
        if isinstance(error, GraphQLSyntaxError):
            return None
        return BaseGraphQLTransportWSHandler._get_pre_execution_close_reason(error)

    def forget_id(self, id: str) -> None:
        # Called from the ending operation's own task (``send_operation_message``).
        operation = self.operations.get(id)
        if operation is not None and operation.task is asyncio.current_task():
            del self.operations[id]
