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


def _silent_redis():
    """A server that answers redis-py's handshake and then reads and answers nothing more
    (a Redis that stopped): its URL."""
    import socket
    import threading

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()

    def serve():
        client, _ = server.accept()
        while True:
            data = client.recv(65536)
            if not data or b"REPLY" in data:
                break  # from now on silent: nothing read, nothing answered
            client.sendall(b"+OK\r\n" * data.count(b"*"))
        threading.Event().wait(30)
        client.close()

    threading.Thread(target=serve, daemon=True).start()
    return f"redis://127.0.0.1:{server.getsockname()[1]}/0"


def test_publishing_waits_for_no_answer_from_redis(settings):
    """A publish is a write on a connection that asked for no replies: it returns while a
    Redis that answers nothing holds the changes (redis-py's PUBLISH waited for the reply,
    which is why a move thread handed its changes to a publisher thread before)."""
    import threading

    settings.REDIS_URL = _silent_redis()
    done = threading.Event()

    def move_thread():
        for seq in range(1, 41):
            fanout.publish(_change(9103, seq))
        done.set()

    threading.Thread(target=move_thread, daemon=True).start()
    assert done.wait(5), "publish() waited for Redis"
    assert fanout._publisher(settings.REDIS_URL).dropped == 0


def test_changes_reach_redis_in_the_order_published(settings):
    settings.REDIS_URL = os.environ["REDIS_URL"]
    raw = redis.Redis.from_url(settings.REDIS_URL).pubsub(ignore_subscribe_messages=True)
    raw.subscribe(fanout.redis_channel(fanout.key(9105, "spectators")))
    try:
        for seq in range(1, 41):
            fanout.publish(_change(9105, seq))
        seqs = []
        for _ in range(100):
            message = raw.get_message(timeout=0.1)
            if message is not None:
                seqs.append(orjson.loads(message["data"][len(fanout.NODE):])[0][1]["seq"])
            if len(seqs) == 40:
                break
        assert seqs == list(range(1, 41))
    finally:
        raw.close()


def test_while_redis_is_away_changes_are_dropped_and_publishing_comes_back(settings,
                                                                          monkeypatch):
    """Nothing raises and nothing waits while Redis is away (the change is counted as
    dropped: at most once, as ever); once it is back, changes go out again."""
    import socket

    monkeypatch.setattr(fanout, "RETRY_SECONDS", 0.05)
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        nobody = f"redis://127.0.0.1:{probe.getsockname()[1]}/0"
    settings.REDIS_URL = nobody
    fanout.publish(_change(9106, 1))
    assert fanout._publisher(nobody).dropped == 1

    settings.REDIS_URL = os.environ["REDIS_URL"]
    control = redis.Redis.from_url(settings.REDIS_URL)
    raw = control.pubsub(ignore_subscribe_messages=True)
    raw.subscribe(fanout.redis_channel(fanout.key(9106, "spectators")))
    publisher = fanout._publisher(settings.REDIS_URL)

    def heard(seq: int) -> bool:
        for _ in range(40):
            fanout.publish(_change(9106, seq))
            message = raw.get_message(timeout=0.05)
            if message is not None:
                return True
        return False

    try:
        assert heard(2)
        # Redis ends the publisher's connection (a restart, a failover): it connects again.
        before = publisher.conn
        mine = before._sock.getsockname()
        control.client_kill(f"{mine[0]}:{mine[1]}")
        while raw.get_message(timeout=0.05) is not None:
            pass
        assert heard(3)
        assert publisher.conn is not None and publisher.conn is not before
    finally:
        raw.close()
        control.close()


@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded")  # the child only looks
def test_a_forked_child_does_not_write_on_its_parents_publisher(settings):
    settings.REDIS_URL = os.environ["REDIS_URL"]
    fanout.publish(_change(9107, 1))
    assert settings.REDIS_URL in fanout._PUBLISHERS
    pid = os.fork()
    if pid == 0:  # the child: a publisher of its own, made when it first publishes
        os._exit(0 if not fanout._PUBLISHERS else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert settings.REDIS_URL in fanout._PUBLISHERS  # the parent keeps its own
