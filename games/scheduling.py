"""Run a Celery task later: on a real worker, or in this process on the embedded default.

Celery's eager mode would run a bot's turn inside the request that made it due (and the
next bot's inside that one...), and it ignores countdowns, so bots would not pause and turn
clocks would not tick. On the embedded default we therefore keep a small in-process timer
queue served by one daemon thread: tasks still run later, one at a time, outside requests.
``enqueue`` is only ever called from ``transaction.on_commit`` (see games/journal.py).
"""

from __future__ import annotations

import contextvars
import heapq
import itertools
import logging
import threading
import time

from django.conf import settings
from django.db import close_old_connections

log = logging.getLogger("stapel.scheduling")


# The follow-up tasks of a table change (games/tasks.py), by the name the journal uses.
TASK_NAMES = {"bot_turn": "games.bot_turn", "round_end": "games.round_end",
              "turn_timeout": "games.turn_timeout"}


def enqueue(name: str, table_id: int, version: int, *, countdown: float = 0.0) -> None:
    """Queue a follow-up of a committed change. Runs on commit, so the change stands: a broker
    that is down must not turn a committed move into an error for the client. Nothing is
    lost: what a table waits for is derived from its stored state, and the sweep (beat, and
    every starting worker) queues it again once the broker is back."""
    try:
        schedule(_task(TASK_NAMES[name]), [table_id, version], countdown)
    except Exception as exc:  # noqa: BLE001 - kombu/redis raise many kinds when it is down
        log.warning("could not queue %s for table %s at version %s (%s); the sweep queues "
                    "it again", name, table_id, version, type(exc).__name__)


def _task(name: str):
    """A task from Celery's registry, by name: services queue tasks without importing them
    (tasks import services). The first look-up imports every app's tasks module, as a worker
    does at start."""
    from config.celery import app

    if name not in app.tasks:
        app.loader.import_default_modules()
    return app.tasks[name]


def in_process() -> bool:
    return bool(getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False))


def schedule(task, args: list, countdown: float = 0.0) -> None:
    if in_process():
        _LOCAL.put(task, args, countdown)
    else:
        # Celery would otherwise ``saferepr`` the arguments for the message's headers.
        task.apply_async(args=args, countdown=countdown if countdown > 0 else None,
                         argsrepr=repr(args), kwargsrepr="{}")


class _LocalScheduler:
    def __init__(self) -> None:
        self._heap: list = []
        self._counter = itertools.count()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._busy = 0

    def put(self, task, args, countdown: float) -> None:
        with self._cond:
            # The context of whoever queued it goes along (a request's id reaches its tasks'
            # log lines, as Celery's headers carry it to a worker).
            heapq.heappush(self._heap, (time.monotonic() + max(0.0, countdown),
                                        next(self._counter), task, args,
                                        contextvars.copy_context()))
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
                _, _, task, args, context = heapq.heappop(self._heap)
                self._busy += 1
            try:
                close_old_connections()
                context.run(task.run, *args)
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


# --- beat's work in-process ------------------------------------------------------------
# Without a beat process (the embedded default), ``CELERY_BEAT_SCHEDULE`` runs on the same
# timer queue: each entry puts itself back after it ran, at the interval its schedule gives
# (a number of seconds, a timedelta or a crontab, as in beat). Started by the ASGI app; off
# in the pytest process, where tests call the periodic services themselves.

_BEAT: dict[str, _Periodic] = {}
_BEAT_LOCK = threading.Lock()


class _Periodic:
    def __init__(self, name: str, task, schedule, args: list) -> None:
        self.name = name
        self.task = task
        self.schedule = schedule
        self.args = args
        self.stopped = False
        self.last_run_at = schedule.now()

    def delay(self) -> float:
        return max(0.0, self.schedule.remaining_estimate(self.last_run_at).total_seconds())

    def run(self) -> None:
        if self.stopped:
            return
        self.last_run_at = self.schedule.now()
        try:
            self.task.run(*self.args)
        finally:
            if not self.stopped:
                _LOCAL.put(self, [], self.delay())


def beat_start() -> list[str]:
    """Run every entry of ``CELERY_BEAT_SCHEDULE`` in this process, once per process, when
    tasks run in-process and ``STAPEL_IN_PROCESS_BEAT`` is on. Returns the entries started."""
    if not (in_process() and getattr(settings, "STAPEL_IN_PROCESS_BEAT", False)):
        return []
    from celery.schedules import maybe_schedule

    from config.celery import app

    with _BEAT_LOCK:
        if _BEAT:
            return list(_BEAT)
        app.loader.import_default_modules()
        for name, entry in settings.CELERY_BEAT_SCHEDULE.items():
            periodic = _Periodic(name, app.tasks[entry["task"]],
                                 maybe_schedule(entry["schedule"], app=app),
                                 list(entry.get("args", ())))
            _BEAT[name] = periodic
            _LOCAL.put(periodic, [], periodic.delay())
        log.info("in-process beat: %s", ", ".join(_BEAT))
        return list(_BEAT)


def beat_stop() -> None:
    with _BEAT_LOCK:
        for periodic in _BEAT.values():
            periodic.stopped = True
        _BEAT.clear()
