"""Live play end to end: a real uvicorn server on PostgreSQL and the Redis channel layer,
real HTTP and websocket clients. Runs in CI (DATABASE_URL and REDIS_URL set)."""

from __future__ import annotations

import asyncio
import json
from collections import Counter

import pytest
from channels.db import database_sync_to_async

from games.engine import GAMES
from games.models import Table, TableLogEntry

from .play import (
    ACT,
    START,
    Seat,
    assert_gapless,
    new_guest,
    open_table,
    play_match,
)

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _states_by_version(table: Table) -> dict[int, dict]:
    """Every state of the match, rebuilt from seed, options and the log (pure engine)."""
    engine = GAMES[table.game]
    state = engine.new_game(table.seat_count, table.seed, table.options)
    states = {1: state}
    for entry in TableLogEntry.objects.filter(table=table, seq__gt=0).order_by("seq"):
        if entry.kind in ("action", "bot", "timeout"):
            state, _ = engine.apply(state, entry.seat, entry.action)
        elif entry.kind == "next_round" and entry.version > max(states):
            state, _ = engine.start_next_round(state)
        states[entry.version] = state
    return states


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _kato_unseen(state: dict, seat: int) -> set[str]:
    """Card codes in other hands or the draw pile that this seat neither holds, nor sees on
    the discard pile, nor was shown (a challenge)."""
    hidden = Counter(state["draw_pile"])
    for other, hand in enumerate(state["hands"]):
        if other != seat:
            hidden.update(hand)
    seen = set(state["hands"][seat]) | set(state["discard"])
    shown = state.get("shown")
    if shown and shown.get("to") == seat:
        seen |= set(shown["cards"])
    return {card for card in hidden if card not in seen}


def _assert_no_kato_leak(table: Table, seats: list[Seat]):
    states = _states_by_version(table)
    all_codes = set(GAMES["kato"].full_deck(table.options))
    checked = 0
    for seat in seats:
        position = None
        for update in seat.updates:
            if update["view"]:
                position = update["view"]["seat"]
            if position is None or update["version"] not in states:
                continue
            state = states[update["version"]]
            before = states.get(update["version"] - 1, state)
            unseen = _kato_unseen(state, position) & _kato_unseen(before, position)
            mentioned = {s for s in _strings(update) if s in all_codes}
            assert not (mentioned & unseen), (position, update["seq"], mentioned & unseen)
            checked += 1
    assert checked > 50


async def test_four_clients_play_a_kato_match_to_its_end(live_server_url, celery_worker_proc):
    table_id, seats, _ = await play_match(live_server_url, "kato", {"rounds": 2}, people=4,
                                          seed=7)
    table = await database_sync_to_async(Table.objects.get)(public_id=table_id)
    assert table.status == "finished" and len(table.result["placings"]) == 4
    for seat in seats:
        assert_gapless(seat.updates)
        assert seat.updates[-1]["seq"] == table.last_seq
    assert sum(seat.moves for seat in seats) > 20
    await database_sync_to_async(_assert_no_kato_leak)(table, seats)


@pytest.mark.parametrize("game, options, people", [
    ("krass_kariert", {"chips": 1}, 3),
    ("karma", {}, 2),
    ("aetsch", {"rounds": 1}, 2),
])
async def test_a_short_match_of_each_other_game(live_server_url, celery_worker_proc, game, options, people):
    if game not in GAMES:
        pytest.skip(f"{game} is not registered yet")
    table_id, seats, _ = await play_match(live_server_url, game, options, people=people, seed=3)
    table = await database_sync_to_async(Table.objects.get)(public_id=table_id)
    assert table.status == "finished"
    for seat in seats:
        assert_gapless(seat.updates)
        for update in seat.updates:
            view = update["view"]
            if view:
                assert view["raw"]["hand_counts"][view["seat"]] == len(view["hand"])


async def test_spectator_sees_no_hand_at_all(live_server_url, celery_worker_proc):
    people = [await new_guest(live_server_url, f"P{i}") for i in range(2)]
    table_id = await open_table(people[0], people[1:], "kato", {"rounds": 1})
    spectator_http = await new_guest(live_server_url, "Watcher")
    watcher = Seat(live_server_url, spectator_http, table_id, 0)
    await watcher.connect()
    players = [Seat(live_server_url, h, table_id, i) for i, h in enumerate(people)]
    for p in players:
        await p.connect()
    await people[0](START, {"id": table_id})
    await asyncio.gather(*(p.play() for p in players), watcher.play())
    assert_gapless(watcher.updates)
    for update in watcher.updates:
        if update["view"]:
            assert update["view"]["hand"] is None and update["view"]["seat"] is None
            assert update["view"]["raw"]["hand"] is None
        for event in update["events"]:
            assert event["type"] not in ("drew_cards", "hand_shown"), event
    text = json.dumps(watcher.updates)
    assert '"drawn"' not in text or all(u["view"] is None or u["view"]["raw"].get("drawn") is None
                                        for u in watcher.updates)


async def test_resume_with_after_seq_gets_exactly_the_missed_events(live_server_url, celery_worker_proc):
    people = [await new_guest(live_server_url, f"P{i}") for i in range(2)]
    table_id = await open_table(people[0], people[1:], "kato", {"rounds": 1})
    a, b = (Seat(live_server_url, h, table_id, 10 + i) for i, h in enumerate(people))
    await a.connect()
    await b.connect()
    await people[0](START, {"id": table_id})
    await asyncio.gather(a.play(until_seq=8), b.play(until_seq=8))
    await b.disconnect()
    seen = b.last_seq
    # While b is away, both seats play a few moves over plain HTTP.
    q = ('query($id: ID!) { table(id: $id) { version status view { ... on KatoView '
         '{ actors legalActions seat } } } }')
    for _ in range(6):
        for http in people:
            table = (await http(q, {"id": table_id}))["table"]
            view = table["view"]
            if table["status"] == "PLAYING" and view["seat"] in view["actors"]:
                await http(ACT, {"id": table_id, "a": view["legalActions"][0],
                                 "v": table["version"]})
                break
    last = await database_sync_to_async(
        lambda: Table.objects.get(public_id=table_id).last_seq)()
    assert last > seen
    await b.connect(after_seq=seen)
    missed = []
    while not missed or missed[-1]["seq"] < last:
        missed.append((await b.sub.next())["tableEvents"])
    assert [u["seq"] for u in missed] == list(range(seen + 1, last + 1))
    assert missed[-1]["view"] is not None  # the replay ends with the current view
    assert all(u["view"] is None for u in missed[:-1])
    await b.disconnect()
    await a.disconnect()


async def _started_two_seat_table(url: str):
    """A started 2-seat KaTO table: ``(table_id, the client whose turn it is, its table)``."""
    people = [await new_guest(url, f"P{i}") for i in range(2)]
    table_id = await open_table(people[0], people[1:], "kato", {"rounds": 1})
    await people[0](START, {"id": table_id})
    q = ('query($id: ID!) { table(id: $id) { version view { ... on KatoView '
         '{ actors seat legalActions } } } }')
    for http in people:
        table = (await http(q, {"id": table_id}))["table"]
        if table["view"]["seat"] in table["view"]["actors"]:
            return table_id, http, table
    raise AssertionError("nobody may act")


async def test_two_moves_on_one_version_apply_exactly_once(live_server_url, celery_worker_proc):
    table_id, http, table = await _started_two_seat_table(live_server_url)
    version = table["version"]
    legal = table["view"]["legalActions"]
    moves = [legal[0], legal[-1]]
    results = await asyncio.gather(*(http(ACT, {"id": table_id, "a": m, "v": version})
                                     for m in moves))
    outcomes = sorted(r["act"]["errors"][0]["code"] if r["act"]["errors"] else "applied"
                      for r in results)
    assert outcomes == ["applied", "stale_version"]
    count = await database_sync_to_async(
        lambda: TableLogEntry.objects.filter(table__public_id=table_id, kind="action").count())()
    assert count == 1


async def test_same_idempotency_key_concurrently_applies_once(live_server_url, celery_worker_proc):
    table_id, http, table = await _started_two_seat_table(live_server_url)
    variables = {"id": table_id, "a": table["view"]["legalActions"][0], "v": table["version"],
                 "k": "same-key"}
    results = await asyncio.gather(*(http(ACT, variables) for _ in range(3)))
    answers = {(r["act"]["version"], r["act"]["seq"]) for r in results}
    assert len(answers) == 1 and all(not r["act"]["errors"] for r in results)
    assert sorted(r["act"]["replayed"] for r in results) == [False, True, True]


async def test_moves_over_the_websocket(live_server_url, celery_worker_proc):
    table_id, seats, _ = await play_match(live_server_url, "kato", {"rounds": 1}, people=2,
                                          seed=5, act_over_socket=True)
    assert all(seat.moves > 0 for seat in seats)
    for seat in seats:
        assert_gapless(seat.updates)


async def test_subscriptions_follow_players_when_seat_numbers_change(live_server_url):
    """Seat numbers change at the start (empty seats are dropped) and when someone leaves and
    another sits down; a subscription must keep getting its own player's view only."""
    from tests.integration.client import Socket
    from tests.integration.play import JOIN, SUBSCRIBE

    a, b, c, d, e = [await new_guest(live_server_url, name) for name in "ABCDE"]
    data = await a('mutation { createTable(input: {game: "kato", seatCount: 5}) { table { id } } }')
    table_id = data["createTable"]["table"]["id"]
    seat_at = 'mutation($id: ID!, $s: Int) { joinTable(tableId: $id, seat: $s) { errors { code } } }'
    await b(seat_at, {"id": table_id, "s": 2})
    await c(seat_at, {"id": table_id, "s": 4})
    await d(seat_at, {"id": table_id, "s": 1})
    subs = {}
    for name, http in zip("ABCD", (a, b, c, d), strict=True):
        sock = await Socket(live_server_url, http.token).connect()
        subs[name] = (sock, await sock.subscribe(SUBSCRIBE, {"id": table_id, "after": 0}))
    await d('mutation($id: ID!) { leaveTable(tableId: $id) { errors { code } } }', {"id": table_id})
    await e(JOIN, {"id": table_id})  # E takes the first free seat: D's old seat 1
    await a(START, {"id": table_id})
    q = 'query($id: ID!) { table(id: $id) { mySeat view { ... on KatoView { hand seat } } } }'
    for name, http in zip("ABCD", (a, b, c, d), strict=True):
        sock, sub = subs[name]
        mine = (await http(q, {"id": table_id}))["table"]
        while True:
            update = (await sub.next(timeout=20))["tableEvents"]
            if update["kind"] == "start":
                break
        view = update["view"]
        assert view["seat"] == mine["mySeat"], (name, view["seat"], mine["mySeat"])
        assert view["hand"] == (mine["view"]["hand"] if mine["mySeat"] is not None else None)
        await sock.close()
    assert (await d(q, {"id": table_id}))["table"]["mySeat"] is None


async def test_lobby_events_announce_public_tables_only(live_server_url):
    from tests.integration.client import Socket

    watcher = await new_guest(live_server_url, "Browser")
    host = await new_guest(live_server_url, "Host")
    sock = await Socket(live_server_url, watcher.token).connect()
    sub = await sock.subscribe('subscription { lobbyEvents(game: "kato") { tableId game status } }')
    await asyncio.sleep(0.3)  # the subscription is registered server-side
    create = 'mutation($v: VisibilityEnum!) { createTable(input: {game: "kato", visibility: $v}) { table { id } } }'
    await host(create, {"v": "PRIVATE"})
    public = (await host(create, {"v": "PUBLIC"}))["createTable"]["table"]["id"]
    update = (await sub.next(timeout=10))["lobbyEvents"]
    assert update == {"tableId": public, "game": "kato", "status": "OPEN"}
    await sock.close()
