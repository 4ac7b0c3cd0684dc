"""Each HTTP request's sync code runs on a thread of its own, taken from the threads kept by
config/middleware.py (``RequestThreads``) instead of a thread started for it and joined after
it (asgiref's default: two thread starts and a join per request)."""

from __future__ import annotations

import asyncio
import threading

import pytest
from django.core.signals import request_started

from config.middleware import RequestThreads, SiteHandler


def _scope(path: str = "/health/live") -> dict:
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
            "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
            "root_path": "", "headers": [(b"host", b"testserver")],
            "client": ("127.0.0.1", 5000), "server": ("testserver", 80)}


async def _get(app, gate: asyncio.Event | None = None) -> int:
    sent: list[dict] = []
    body_read = False

    async def receive():
        nonlocal body_read
        if not body_read:
            body_read = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.Event().wait()  # no disconnect while the request runs

    async def send(message):
        sent.append(message)

    await app(_scope(), receive, send)
    return sent[0]["status"]


@pytest.fixture
def request_threads():
    """The thread each request's sync code ran on (Django's request_started receivers run
    there), and a way to hold requests inside that thread."""
    seen: list[int] = []
    hold = threading.Event()
    hold.set()

    def record(**kwargs):
        seen.append(threading.get_ident())
        hold.wait(5)

    request_started.connect(record)
    yield seen, hold
    request_started.disconnect(record)


def test_requests_one_after_another_reuse_one_kept_thread(request_threads):
    seen, _ = request_threads
    handler = SiteHandler()

    async def three():
        return [await _get(handler) for _ in range(3)]

    before = threading.active_count()
    assert asyncio.run(three()) == [200, 200, 200]
    assert len(set(seen)) == 1 and seen[0] != threading.get_ident()
    assert len(handler.threads.idle) == 1
    assert threading.active_count() <= before + 1  # no thread per request left behind


def test_requests_at_the_same_time_each_get_a_thread_of_their_own(request_threads):
    seen, hold = request_threads
    handler = SiteHandler()
    hold.clear()  # both requests wait inside their sync code until both are in

    async def two():
        tasks = [asyncio.create_task(_get(handler)) for _ in range(2)]
        while len(seen) < 2:
            await asyncio.sleep(0.01)
        hold.set()
        return await asyncio.gather(*tasks)

    assert asyncio.run(two()) == [200, 200]
    assert len(set(seen)) == 2
    assert len(handler.threads.idle) == 2


def test_only_so_many_idle_threads_are_kept():
    threads = RequestThreads(keep=2)
    executors = [threads.take() for _ in range(3)]
    for executor in executors:
        executor.submit(lambda: None).result()
        threads.give_back(executor)
    assert threads.idle == executors[:2]
    assert executors[2]._shutdown
