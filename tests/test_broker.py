"""The broker transport (config/broker.py): kombu's Redis transport with one redis client per
channel and pool, on a redis-server of the test's own."""

import kombu
import redis

from config import broker


def test_a_channel_builds_one_client_for_its_pool_and_a_new_one_for_a_new_pool(own_redis,
                                                                                monkeypatch):
    built = []
    create = broker.Channel._create_client

    def counted(self, asynchronous=False):
        client = create(self, asynchronous=asynchronous)
        if not asynchronous:
            built.append(client)
        return client

    monkeypatch.setattr(broker.Channel, "_create_client", counted)
    queue = kombu.Queue("stapel-broker-test")
    with kombu.Connection(own_redis.url(3), transport=broker.Transport) as conn:
        producer = conn.Producer()
        for n in range(5):
            producer.publish({"n": n}, routing_key=queue.name, declare=[queue])
        assert len(built) == 1
        assert redis.Redis.from_url(own_redis.url(3)).llen(queue.name) == 5
        # kombu drops a channel's pools after a fork or a lost connection: a new client then.
        producer.channel._disconnect_pools()
        producer.publish({"n": 5}, routing_key=queue.name)
        assert len(built) == 2 and built[1].connection_pool is not built[0].connection_pool
        with conn.SimpleQueue(queue) as simple:
            got = [simple.get(timeout=2) for _ in range(6)]
            for message in got:
                message.ack()
        assert [m.payload["n"] for m in got] == [0, 1, 2, 3, 4, 5]
    assert redis.Redis.from_url(own_redis.url(3)).llen(queue.name) == 0


def test_celery_uses_it_for_a_redis_broker():
    from django.conf import settings

    from config.celery import app

    if settings.CELERY_BROKER_URL.startswith("redis"):
        assert app.conf.broker_transport == "config.broker:Transport"
        with app.connection_for_write() as conn:
            assert isinstance(conn.transport, broker.Transport)
    else:  # the embedded default: no broker at all
        assert settings.CELERY_BROKER_URL == "memory://"
