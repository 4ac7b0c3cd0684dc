"""Drive whole matches through the real API: each client listens on its own websocket and
acts over HTTP (or over its socket) from its view's legal actions alone."""

from __future__ import annotations

import asyncio
import random

from .client import Http, Socket

UPDATE_FIELDS = """tableId seq kind version status events { type data }
  view { __typename
    ... on KatoView { seat actors hand legalActions raw }
    ... on KrassKariertView { seat actors hand legalActions raw }
    ... on KarmaView { seat actors hand legalActions raw }
    ... on AetschView { seat actors hand legalActions raw } }"""
SUBSCRIBE = f"""subscription($id: ID!, $after: Int!) {{
  tableEvents(tableId: $id, afterSeq: $after) {{ {UPDATE_FIELDS} }} }}"""
ACT = """mutation($id: ID!, $a: ActionInput!, $v: Int!, $k: String) {
  act(tableId: $id, action: $a, expectedVersion: $v, idempotencyKey: $k) {
    version seq replayed errors { code message } } }"""
CREATE = """mutation($input: CreateTableInput!) { createTable(input: $input) {
  table { id } errors { code message } } }"""
JOIN = """mutation($id: ID!) { joinTable(tableId: $id) { table { mySeat } errors { code } } }"""
START = """mutation($id: ID!) { startTable(tableId: $id) { table { status version } errors { code } } }"""
ADD_BOT = """mutation($id: ID!, $level: String!) { addBot(tableId: $id, level: $level) {
  table { id } errors { code } } }"""


async def new_guest(base_url: str, name: str) -> Http:
    http = Http(base_url)
    data = await http('mutation($n: String!) { createGuest(displayName: $n) { token } }',
                      {"n": name})
    http.token = data["createGuest"]["token"]
    return http


async def open_table(creator: Http, others: list[Http], game: str, options: dict,
                     bots: int = 0, bot_level: str = "heuristic", **extra) -> str:
    data = await creator(CREATE, {"input": {"game": game, "options": options,
                                            "seatCount": 1 + len(others) + bots, **extra}})
    assert data["createTable"]["errors"] == [], data
    table_id = data["createTable"]["table"]["id"]
    for http in others:
        joined = await http(JOIN, {"id": table_id})
        assert joined["joinTable"]["errors"] == [], joined
    for _ in range(bots):
        added = await creator(ADD_BOT, {"id": table_id, "level": bot_level})
        assert added["addBot"]["errors"] == [], added
    return table_id


class Seat:
    """One person at the table: records every update it receives, acts when it may."""

    def __init__(self, base_url: str, http: Http, table_id: str, seed: int,
                 act_over_socket: bool = False):
        self.base_url = base_url
        self.http = http
        self.table_id = table_id
        self.rng = random.Random(seed)
        self.updates: list[dict] = []
        self.act_over_socket = act_over_socket
        self.socket: Socket | None = None
        self.sub = None
        self.errors: list[dict] = []
        self.moves = 0

    async def connect(self, after_seq: int = 0):
        self.socket = await Socket(self.base_url, self.http.token).connect()
        self.sub = await self.socket.subscribe(SUBSCRIBE, {"id": self.table_id,
                                                           "after": after_seq})

    async def disconnect(self):
        await self.socket.close()

    @property
    def last_seq(self) -> int:
        return self.updates[-1]["seq"] if self.updates else 0

    async def play(self, until_seq: int | None = None, timeout: float = 60):
        """Consume updates and act on them until the table ends (or ``until_seq``)."""
        while True:
            try:
                update = (await self.sub.next(timeout=timeout))["tableEvents"]
            except TimeoutError:
                raise AssertionError(await self.diagnose()) from None
            self.updates.append(update)
            if update["status"] in ("FINISHED", "ABORTED"):
                return
            if until_seq is not None and update["seq"] >= until_seq:
                return
            view = update["view"]
            if view and view["legalActions"] and view["seat"] in view["actors"]:
                await self.act(view, update["version"])

    async def diagnose(self) -> str:
        """What the server says when no update came: tells a lost message from a stall."""
        data = await self.http(
            'query($id: ID!) { table(id: $id) { status version lastSeq view { __typename '
            '... on KatoView { actors seat } ... on KarmaView { actors seat } '
            '... on AetschView { actors seat } ... on KrassKariertView { actors seat } } } }',
            {"id": self.table_id})
        return (f"no update for a while: last seq seen {self.last_seq}, server has "
                f"{data['table']}")

    def choose(self, view: dict) -> dict:
        """Mostly play when possible (and call where the game has calls), so matches end in
        a sensible number of moves; otherwise any legal action."""
        legal = view["legalActions"]
        plays = [a for a in legal if "play" in a]
        if plays and self.rng.random() < 0.9:
            action = self.rng.choice(plays)
            if view["__typename"] in ("KatoView", "AetschView"):
                action = {"play": {**action["play"], "call": True}}
            return action
        return self.rng.choice(legal)

    async def act(self, view: dict, version: int):
        action = self.choose(view)
        variables = {"id": self.table_id, "a": action, "v": version,
                     "k": f"{version}-{self.rng.random()}"}
        if self.act_over_socket:
            data = await self.socket.execute(ACT, variables)
        else:
            data = await self.http(ACT, variables)
        errors = data["act"]["errors"]
        if errors:
            # Several seats may act at once (a call window, a simultaneous choice): whoever
            # comes second is stale and waits for the next update; where the first move
            # ended the match, the second is told the table is no longer playing.
            assert errors[0]["code"] in ("stale_version", "game_over"), errors
            self.errors.append(errors[0])
        else:
            self.moves += 1


def assert_gapless(updates: list[dict], first: int = 1):
    seqs = [u["seq"] for u in updates]
    assert seqs == list(range(first, first + len(seqs))), seqs


async def play_match(base_url: str, game: str, options: dict, people: int, bots: int = 0,
                     seed: int = 1, act_over_socket: bool = False, timeout: float = 60):
    clients = [await new_guest(base_url, f"P{i}") for i in range(people)]
    table_id = await open_table(clients[0], clients[1:], game, options, bots=bots)
    seats = [Seat(base_url, http, table_id, seed * 100 + i, act_over_socket)
             for i, http in enumerate(clients)]
    for seat in seats:
        await seat.connect()
    started = await clients[0](START, {"id": table_id})
    assert started["startTable"]["errors"] == [], started
    await asyncio.gather(*(seat.play(timeout=timeout) for seat in seats))
    for seat in seats:
        await seat.disconnect()
    return table_id, seats, clients
