"""A real GraphQL client for tests and benchmarks: HTTP with httpx, websockets with the
``graphql-transport-ws`` protocol over the ``websockets`` library."""

from __future__ import annotations

import asyncio
import itertools
import json

import httpx
import websockets


class GraphQLError(AssertionError):
    pass


class Http:
    def __init__(self, base_url: str, token: str | None = None):
        self.url = base_url.rstrip("/") + "/graphql/"
        self.token = token
        self.client = httpx.AsyncClient(timeout=30)

    async def __call__(self, query: str, variables: dict | None = None) -> dict:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        response = await self.client.post(self.url, json={"query": query,
                                                          "variables": variables or {}},
                                          headers=headers)
        body = response.json()
        if body.get("errors"):
            raise GraphQLError(body["errors"])
        return body["data"]

    async def close(self):
        await self.client.aclose()


class Socket:
    """One websocket; several operations (subscriptions, queries, mutations) share it."""

    def __init__(self, base_url: str, token: str):
        self.url = base_url.replace("http", "ws", 1).rstrip("/") + "/graphql/"
        self.token = token
        self.ws = None
        self._ids = itertools.count(1)
        self._queues: dict[str, asyncio.Queue] = {}
        self._reader = None
        self.closed = asyncio.Event()
        self.close_code = None

    async def connect(self, payload: dict | None = None):
        self.ws = await websockets.connect(self.url, subprotocols=["graphql-transport-ws"],
                                           max_size=2**22, open_timeout=10)
        await self.ws.send(json.dumps({"type": "connection_init",
                                       "payload": payload if payload is not None
                                       else {"authorization": f"Bearer {self.token}"}}))
        ack = json.loads(await asyncio.wait_for(self.ws.recv(), 10))
        if ack["type"] != "connection_ack":
            raise GraphQLError(ack)
        self._reader = asyncio.create_task(self._read())
        return self

    async def _read(self):
        try:
            async for raw in self.ws:
                msg = json.loads(raw)
                if msg["type"] == "ping":
                    await self.ws.send(json.dumps({"type": "pong"}))
                    continue
                queue = self._queues.get(msg.get("id"))
                if queue is not None:
                    queue.put_nowait(msg)
        except websockets.ConnectionClosed:
            pass
        finally:
            self.close_code = self.ws.close_code
            self.closed.set()
            for queue in self._queues.values():
                queue.put_nowait({"type": "closed"})

    async def subscribe(self, query: str, variables: dict | None = None) -> Subscription:
        op_id = str(next(self._ids))
        self._queues[op_id] = asyncio.Queue()
        await self.ws.send(json.dumps({"id": op_id, "type": "subscribe",
                                       "payload": {"query": query,
                                                   "variables": variables or {}}}))
        return Subscription(self, op_id)

    async def execute(self, query: str, variables: dict | None = None) -> dict:
        """A query or mutation over the open socket."""
        sub = await self.subscribe(query, variables)
        data = await sub.next(timeout=30)
        await sub.wait_complete()
        return data

    async def close(self):
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)


class Subscription:
    def __init__(self, socket: Socket, op_id: str):
        self.socket = socket
        self.id = op_id
        self.queue = socket._queues[op_id]

    async def next(self, timeout: float = 20) -> dict:
        msg = await asyncio.wait_for(self.queue.get(), timeout)
        if msg["type"] == "next":
            payload = msg["payload"]
            if payload.get("errors"):
                raise GraphQLError(payload["errors"])
            return payload["data"]
        raise GraphQLError(msg)

    async def wait_complete(self, timeout: float = 10):
        msg = await asyncio.wait_for(self.queue.get(), timeout)
        assert msg["type"] == "complete", msg

    async def stop(self):
        await self.socket.ws.send(json.dumps({"id": self.id, "type": "complete"}))
