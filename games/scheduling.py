"""Run a Celery task later: on a real worker, or in this process on the embedded default.

Celery's eager mode would run a bot's turn inside the request that made it due (and the
next bot's inside that one...), and it ignores countdowns, so bots would not pause and turn
clocks would not tick. On the embedded default we therefore keep a small in-process timer
queue served by one daemon thread: tasks still run later, one at a time, outside requests.
Only ever called from ``transaction.on_commit``.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time

from django.conf import settings
from django.db import close_old_connections

log = logging.getLogger("stapel.scheduling")


def in_process() -> bool:
    return bool(getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False))


def schedule(task, args: list, countdown: float = 0.0) -> None:
    if in_process():
        _LOCAL.put(task, args, countdown)
    else:
        task.apply_async(args=args, countdown=countdown if countdown > 0 else None)


class _LocalScheduler:
    def __init__(self) -> None:
        self._heap: list = []
        self._counter = itertools.count()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._busy = 0

    def put(self, task, args, countdown: float) -> None:
        with self._cond:
            heapq.heappush(self._heap, (time.monotonic() + max(0.0, countdown),
                                        next(self._counter), task, args))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="stapel-tasks",
                                                daemon=True)
                self._thread.start()
            self._cond.notify()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._heap or self._heap[0][0] > time.monotonic():
                    timeout = self._heap[0][0] - time.monotonic() if self._heap else None
                    self._cond.wait(timeout)
                _, _, task, args = heapq.heappop(self._heap)
                self._busy += 1
            try:
                close_old_connections()
                task.run(*args)
            except Exception:  # noqa: BLE001 - a failed task must not stop the queue
                log.exception("in-process task %s failed", getattr(task, "name", task))
            finally:
                close_old_connections()
                with self._cond:
                    self._busy -= 1
                    self._cond.notify_all()

    def wait_idle(self, timeout: float = 30.0, horizon: float = 1e9) -> bool:
        """Block until nothing due within ``horizon`` seconds is queued or running (tests)."""
        end = time.monotonic() + timeout
        with self._cond:
            while self._busy or (self._heap and self._heap[0][0] <= time.monotonic() + horizon):
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(min(left, 0.05))
            return True

    def clear(self) -> None:
        with self._cond:
            self._heap.clear()


_LOCAL = _LocalScheduler()
wait_idle = _LOCAL.wait_idle
clear_local_queue = _LOCAL.clear
