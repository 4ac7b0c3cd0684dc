"""The live fan-out on real Redis (games/fanout.py): a change is one publish on its table's
channel carrying every audience's payload, and a web process hands each audience's payload to
the listeners of that audience only."""

import asyncio
import os

import orjson
import pytest
import redis

from games import fanout

pytestmark = pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs Redis")


def _change(table: int, seq: int) -> list[tuple[str, dict]]:
    return [(fanout.key(table, audience), {"table": table, "seq": seq, "audience": audience})
            for audience in ("player.1", "player.2", "spectators")]


def test_a_change_is_one_publish_on_its_tables_channel(settings):
    settings.REDIS_URL = os.environ["REDIS_URL"]
    raw = redis.Redis.from_url(settings.REDIS_URL).pubsub(ignore_subscribe_messages=True)
    channel = fanout.redis_channel(fanout.key(9101, "player.1"))
    assert channel == fanout.redis_channel(fanout.key(9101, "spectators"))
    assert channel.endswith("live.9101")
    raw.subscribe(channel)
    try:
        fanout.publish(_change(9101, 1))
        got = []
        for _ in range(20):
            message = raw.get_message(timeout=0.2)
            if message is not None:
                got.append(message)
        assert len(got) == 1
        pairs = orjson.loads(got[0]["data"][len(fanout.NODE):])
        assert [p[1]["audience"] for p in pairs] == ["player.1", "player.2", "spectators"]
    finally:
        raw.close()


def test_another_nodes_change_reaches_each_audience_once(settings):
    settings.REDIS_URL = os.environ["REDIS_URL"]

    async def scenario():
        one, spectators = [], []
        hub = fanout.hub()
        await hub.add(fanout.key(9102, "player.1"), one.append)
        await hub.add(fanout.key(9102, "spectators"), spectators.append)
        await hub.add(fanout.key(9103, "spectators"), spectators.append)  # another table
        await asyncio.sleep(0.2)  # subscribed
        other_node = redis.Redis.from_url(settings.REDIS_URL)
        # As another process publishes: its own node id, this process has not seen it.
        for table in (9102, 9103):
            other_node.publish(fanout.redis_channel(fanout.key(table, "spectators")),
                               b"x" * len(fanout.NODE) + orjson.dumps(_change(table, 7)))
        for _ in range(50):
            if len(one) == 1 and len(spectators) == 2:
                break
            await asyncio.sleep(0.05)
        await hub.remove(fanout.key(9102, "player.1"), one.append)
        await hub.remove(fanout.key(9102, "spectators"), spectators.append)
        await hub.remove(fanout.key(9103, "spectators"), spectators.append)
        assert hub.tables == {}
        other_node.close()
        return one, spectators

    one, spectators = asyncio.run(scenario())
    assert one == [{"table": 9102, "seq": 7, "audience": "player.1"}]
    assert sorted((m["table"], m["audience"]) for m in spectators) == [
        (9102, "spectators"), (9103, "spectators")]


def test_a_move_threads_publications_leave_in_order_without_waiting_for_redis(settings,
                                                                              monkeypatch):
    """A thread that defers publishing (the live move threads) hands its changes to the one
    publisher thread: publish() returns before any Redis round trip, and Redis gets every
    change, in the order published."""
    import threading

    settings.REDIS_URL = os.environ["REDIS_URL"]
    raw = redis.Redis.from_url(settings.REDIS_URL).pubsub(ignore_subscribe_messages=True)
    raw.subscribe(fanout.redis_channel(fanout.key(9103, "spectators")))
    sent = threading.Event()
    release = threading.Event()
    original = fanout._send

    def held_send(payloads):  # Redis "slow": the publisher thread waits here
        release.wait(5)
        original(payloads)

    monkeypatch.setattr(fanout, "_send", held_send)

    def move_thread():
        fanout.defer_publishing()
        for seq in range(1, 41):
            fanout.publish(_change(9103, seq))
        sent.set()

    try:
        threading.Thread(target=move_thread).start()
        assert sent.wait(2), "publish() waited for Redis"
        release.set()
        seqs = []
        for _ in range(100):
            message = raw.get_message(timeout=0.1)
            if message is not None:
                seqs.append(orjson.loads(message["data"][len(fanout.NODE):])[0][1]["seq"])
            if len(seqs) == 40:
                break
        assert seqs == list(range(1, 41))
    finally:
        release.set()
        raw.close()


def test_a_backlog_behind_a_stuck_redis_is_bounded(settings, monkeypatch):
    """While Redis does not answer, the publisher thread's queue stops growing at BACKLOG:
    further changes are dropped (at most once, as ever), not held in memory without end."""
    import threading

    settings.REDIS_URL = os.environ["REDIS_URL"]
    release = threading.Event()
    monkeypatch.setattr(fanout, "_send", lambda payloads: release.wait(5))
    monkeypatch.setattr(fanout, "BACKLOG", 5)
    publisher = fanout._publisher()
    dropped = publisher.dropped
    done = threading.Event()

    def move_thread():
        fanout.defer_publishing()
        for seq in range(1, 21):
            fanout.publish(_change(9104, seq))
        done.set()

    try:
        threading.Thread(target=move_thread).start()
        assert done.wait(2)
        assert publisher.jobs.qsize() <= 5
        # The thread may hold up to one queue's worth in the batch it is sending.
        assert publisher.dropped - dropped >= 20 - 2 * 5
    finally:
        release.set()
