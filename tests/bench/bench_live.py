"""Live-play throughput, latency and cost through the real stack, side by side with the
in-memory boardgame.io peer.

Starts uvicorn (pinned to core 0 with ``taskset``) and one Celery worker (not pinned) on
PostgreSQL and Redis, pins this load client to core 1, then plays N two-seat KaTO tables in
parallel: every move is a real ``act`` mutation (over the already-open websocket, then over
HTTP) committed to PostgreSQL, and its event is awaited on BOTH seats' websockets. Per
configuration (8 and 32 tables by default; websocket and HTTP) it prints

- persisted moves/s and p50/p99 from sending a move to its event reaching every seat;
- server CPU ms per persisted move: utime+stime from /proc/<pid>/stat of the uvicorn process
  and every process below it (its worker processes with ``--web-workers`` > 1), before and
  after the phase, over the moves ``act`` accepted;
- SQL round trips per move: ``stapel_sql_statements_total`` read from the web node's
  ``/metrics`` before and after (minus the scrape's own query, measured idle), and the Celery
  worker's own count (its prometheus multiprocess directory, read in place). What is counted:
  every statement through Django's cursor plus psycopg's separate BEGIN and COMMIT/ROLLBACK
  around each transaction, plus what code reports through ``metrics.sql_statements(n)``;
- bytes per frame of the ``next`` frames of the ``tableEvents`` subscriptions the load client
  receives: as they came off the wire (frame header + payload, compressed when
  permessage-deflate was negotiated, as browsers do) and as JSON (the decoded payload);
- the load client's own CPU (a warning when it nears one core: then it, not the server, may
  bound the figures; ``--client-ceiling`` measures how many moves/s the client can drive
  against a do-nothing websocket server, no database needed), and what everything else on
  the machine used meanwhile (PostgreSQL, Redis, other users: the machine may be shared).
  ``--client-ceiling`` also serves the same do-nothing protocol as a bare ASGI app under
  uvicorn, configured as the real server is: its CPU per move is the floor under any server
  of this stack (uvicorn and CPython carrying one move's frames, nothing else).

The boardgame.io peer (``/work/shared/anchors/bgio/run.sh``, or ``$BGIO_ANCHOR``, used as it
is: it installs boardgame.io from npm into a temp folder and pins its server to core 0 and its
client to core 1) runs between the websocket and HTTP runs of each concurrency, and a final
table sets both side by side with ratios. ``--fanout`` plays 250 two-seat tables, each also
watched by two spectators (4 sockets per table), at a human pace (one move per table every
``--fanout-interval`` s on average) and prints p99 from a move to every one of its 4 sockets;
the set-up is bounded (``--fanout-setup-seconds``: tables not ready by then are left out and
the count is printed).

The web process(es) and the worker each write their metrics to their own
``PROMETHEUS_MULTIPROC_DIR`` (so ``/metrics`` sums every web worker). Code that sends SQL
without Django's cursor must call ``config.metrics.sql_statements(n)`` to be counted.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/stapel REDIS_URL=redis://127.0.0.1:6379/15 \\
        .venv/bin/python tests/bench/bench_live.py [--seconds 15] [--tables 8 32] [--no-bgio]
        [--modes ws http] [--fanout] [--no-extras] [--web-workers 1] [--client-ceiling]
        [--own-services]

Figures are printed, never asserted. Traffic goes to 127.0.0.1 only. PostgreSQL and Redis are
the shared servers named by the URLs (the bench makes and drops ``<db>_bench`` and flushes
only its own Redis database); the bench does not pin them. With ``--own-services`` it starts a
PostgreSQL cluster and a Redis of its own instead, pinned with the worker to the client's core.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import random
import re
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

BGIO_ANCHOR = Path(os.environ.get("BGIO_ANCHOR", "/work/shared/anchors/bgio/run.sh"))
SERVER_CORES = "0"
CLIENT_CORE = 1
TICK = os.sysconf("SC_CLK_TCK")


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


# --- the stack ---------------------------------------------------------------------------------
class OwnPostgres:
    """A PostgreSQL cluster of the bench's own (initdb in its log folder, a free loopback
    port, the server's default settings: fsync and synchronous_commit on), its processes
    pinned as told. Run as the ``postgres`` user when the bench runs as root."""

    def __init__(self, logdir: Path, prefix: tuple) -> None:
        bindir = Path(sorted(Path("/usr/lib/postgresql").glob("*/bin"))[-1])
        self.dir = logdir / "pg"
        self.dir.mkdir()
        self.port = _free_port()
        self.bindir = bindir
        self.as_user = as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if as_user:
            shutil.chown(logdir, "postgres")
            shutil.chown(self.dir, "postgres")
        subprocess.run([*as_user, str(bindir / "initdb"), "-D", str(self.dir), "-U", "postgres",
                        "-A", "trust", "--no-sync"], check=True, capture_output=True)
        self.proc = subprocess.Popen(
            [*prefix, *as_user, str(bindir / "postgres"), "-D", str(self.dir), "-p",
             str(self.port), "-c", "listen_addresses=127.0.0.1", "-c",
             f"unix_socket_directories={self.dir}"],
            stdout=subprocess.DEVNULL, stderr=open(logdir / "postgres.log", "w"))  # noqa: SIM115
        for _ in range(150):
            if subprocess.run(["pg_isready", "-h", "127.0.0.1", "-p", str(self.port), "-q"]
                              ).returncode == 0:
                return
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"own PostgreSQL did not start: {(logdir / 'postgres.log').read_text()}")

    def url(self, name: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        # pg_ctl, not a signal to the child: runuser does not pass signals on.
        subprocess.run([*self.as_user, str(self.bindir / "pg_ctl"), "stop", "-D", str(self.dir),
                        "-m", "fast", "-s"], capture_output=True)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class OwnServices:
    """``--own-services``: PostgreSQL and Redis of the bench's own, pinned to the load
    client's core, so the server's core runs the server alone (as boardgame.io's does)."""

    def __init__(self, logdir: Path) -> None:
        from tests import resources

        prefix = ("taskset", "-c", str(CLIENT_CORE))
        self.pg = OwnPostgres(logdir, prefix)
        try:
            self.redis = resources.RedisServer(prefix)
        except BaseException:
            self.pg.stop()
            raise

    def stop(self) -> None:
        self.redis.stop()
        self.pg.stop()


def prepare_env(logdir: Path, own: OwnServices | None = None) -> dict:
    from tests import resources  # the one place choosing the databases a run may touch

    if own is not None:
        base, redis_url = own.pg.url("postgres"), own.redis.url(1)
    else:
        base = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/stapel")
        redis_url = resources.redis_url()
    bench_db = resources.bench_database_name(base)
    db_url = resources.database_url_beside(base, bench_db)
    subprocess.run(["psql", base, "-qc", f"DROP DATABASE IF EXISTS {bench_db} WITH (FORCE)"],
                   check=True)
    subprocess.run(["psql", base, "-qc", f"CREATE DATABASE {bench_db}"], check=True)
    env = {**os.environ, "DATABASE_URL": db_url, "REDIS_URL": redis_url,
           "SECRET_KEY": "bench", "BOT_PAUSE_SECONDS": "0", "ROUND_PAUSE_SECONDS": "0",
           "DJANGO_SETTINGS_MODULE": "config.settings", "LOG_LEVEL": "WARNING",
           # The move threads keep a connection each; the rest of the node needs a few more.
           "DB_POOL_MAX": str(int(os.environ.get("LIVE_DB_THREADS") or 4) + 4),
           "PYTHONUNBUFFERED": "1",
           # Every client comes from 127.0.0.1: the limits stay on (their cost is part of the
           # figures), set high enough that the load client is never refused.
           **{f"RATE_LIMIT_{name}": "1000000 per minute" for name in (
               "CREATE_GUEST", "REGISTER", "LOGIN_ADDRESS", "CREATE_TABLE", "WS_CONNECT",
               "WS_OPERATION", "TOKEN", "ADDRESS")}}
    env.pop("CELERY_TASK_ALWAYS_EAGER", None)
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env,
                   check=True)
    resources.redis_reset(redis_url)
    return env


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Proc:
    def __init__(self, args, env, log_path: Path):
        self.log_path = log_path
        self.log = open(log_path, "w")  # noqa: SIM115
        self.proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=self.log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        self.pid = self.proc.pid

    def stop(self, timeout=15):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.log.close()


def _prom_dir(logdir: Path, name: str) -> Path:
    path = logdir / f"prom-{name}"
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir()
    return path


def start_server(env: dict, logdir: Path, workers: int, ws_impl: str = "websockets-sansio",
                 deflate: bool = False) -> tuple[Proc, str]:
    import httpx

    port = _free_port()
    env = {**env, "PROMETHEUS_MULTIPROC_DIR": str(_prom_dir(logdir, "web"))}
    proc = Proc(["taskset", "-c", SERVER_CORES, sys.executable, "-m", "uvicorn",
                 "config.asgi:application", "--host", "127.0.0.1", "--port", str(port),
                 "--workers", str(workers), "--ws", ws_impl,
                 "--ws-per-message-deflate", str(deflate).lower(), "--log-level", "warning"],
                env, logdir / "server.log")
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            if httpx.get(url + "/health/live", timeout=1).status_code == 200:
                # One request alone first: concurrent first requests of a fresh process can
                # race in `limits` (it reads redis.__version__ from a half-imported module
                # and answers 500), which is not what this bench measures.
                httpx.post(url + "/graphql/", timeout=30, json={
                    "query": 'mutation { createGuest(displayName: "warm") { token } }'})
                return proc, url
        except httpx.HTTPError:
            pass
        if proc.proc.poll() is not None:
            break
        time.sleep(0.1)
    proc.stop()
    raise RuntimeError(f"server did not start: {(logdir / 'server.log').read_text()}")


def start_worker(env: dict, logdir: Path, cores: str | None = None) -> tuple[Proc, Path]:
    """The Celery worker on ``cores`` (default: every core, whatever this process's
    affinity is)."""
    prom = _prom_dir(logdir, "worker")
    env = {**env, "PROMETHEUS_MULTIPROC_DIR": str(prom)}
    cores = cores or f"0-{os.cpu_count() - 1}"
    proc = Proc(["taskset", "-c", cores, sys.executable, "-m", "celery", "-A", "config",
                 "worker", "-l", "warning", "-c", "1", "-n", "bench@%h", "--without-gossip",
                 "--without-mingle", "--without-heartbeat"], env, logdir / "worker.log")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        # `-l warning` hides "ready."; the worker is ready once it has a child process.
        if _tree(proc.pid)[1:] or proc.proc.poll() is not None:
            break
        time.sleep(0.2)
    if proc.proc.poll() is not None:
        raise RuntimeError(f"worker did not start: {(logdir / 'worker.log').read_text()}")
    time.sleep(1.0)
    return proc, prom


# --- what the processes cost ---------------------------------------------------------------------
def _stat(pid: int) -> tuple[int, float] | None:
    """(parent pid, CPU seconds in user and kernel mode) of a live process."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rfind(")") + 2:].split()
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK


def _tree(root: int) -> list[int]:
    """``root`` and every live process below it."""
    children = collections.defaultdict(list)
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            st = _stat(int(entry))
            if st:
                children[st[0]].append(int(entry))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, ()))
    return out


def tree_cpu(root: int) -> float:
    return sum((_stat(pid) or (0, 0.0))[1] for pid in _tree(root))


def named_cpu(names: tuple[str, ...]) -> float:
    """CPU seconds of every process on this host whose name is one of ``names``, whoever
    started it (the shared PostgreSQL's backends serve other users' sessions too)."""
    total = 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            raw = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if raw[raw.find("(") + 1:raw.rfind(")")] in names:
            fields = raw[raw.rfind(")") + 2:].split()
            total += (int(fields[11]) + int(fields[12])) / TICK
    return total


POSTGRES, REDIS = ("postgres",), ("redis-server",)


def machine_busy() -> float:
    """CPU seconds every core of the machine spent busy (/proc/stat), whoever used them."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / TICK


def client_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def where(name: str) -> str:
    """Which CPUs the processes called ``name`` on this host may run on."""
    allowed = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if Path(f"/proc/{entry}/comm").read_text().strip() != name:
                continue
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        m = re.search(r"Cpus_allowed_list:\s*(\S+)", status)
        if m:
            allowed.add(m.group(1))
    if not allowed:
        return "not visible from here (another host or container)"
    return "not pinned by the bench, may run on CPUs " + " / ".join(sorted(allowed))


class SqlCounter:
    """``stapel_sql_statements_total`` of the web node (its /metrics) and of the worker (its
    multiprocess directory, read in place)."""

    def __init__(self, url: str, worker_dir: Path):
        import httpx

        self.http = httpx.Client(timeout=10)
        self.url = url + "/metrics"
        self.worker_dir = worker_dir
        self.scrape_cost = 0.0
        a = self.web()
        self.scrape_cost = self.web() - a  # the scrape counts tables in the database

    def web(self) -> float:
        from prometheus_client.parser import text_string_to_metric_families

        text = self.http.get(self.url).text
        total = 0.0
        for family in text_string_to_metric_families(text):
            for s in family.samples:
                if s.name == "stapel_sql_statements_total":
                    total += s.value
        return total

    def worker(self) -> float:
        from prometheus_client import CollectorRegistry
        from prometheus_client.multiprocess import MultiProcessCollector

        reg = CollectorRegistry()
        MultiProcessCollector(reg, path=str(self.worker_dir))
        return reg.get_sample_value("stapel_sql_statements_total") or 0.0


class Meter:
    """Server CPU, worker CPU, SQL statements and client CPU over one phase."""

    def __init__(self, server: Proc, worker: Proc, sql: SqlCounter):
        self.server, self.worker, self.sql = server, worker, sql

    def start(self):
        self.t0 = time.monotonic()
        self.s0, self.w0 = self.sql.web(), self.sql.worker()
        self.c0, self.wc0 = tree_cpu(self.server.pid), tree_cpu(self.worker.pid)
        self.m0, self.cl0 = machine_busy(), client_cpu()
        self.pg0, self.rd0 = named_cpu(POSTGRES), named_cpu(REDIS)

    def stop(self, moves: int) -> dict:
        cl1, m1 = client_cpu(), machine_busy()  # before reading /proc and /metrics
        elapsed = time.monotonic() - self.t0
        c1, wc1 = tree_cpu(self.server.pid), tree_cpu(self.worker.pid)
        pg1, rd1 = named_cpu(POSTGRES), named_cpu(REDIS)
        others = (m1 - self.m0) - (c1 - self.c0) - (wc1 - self.wc0) - (cl1 - self.cl0)
        s1, w1 = self.sql.web(), self.sql.worker()
        per = max(moves, 1)
        return {"cpu_ms": (c1 - self.c0) * 1000 / per,
                "server_cpu_pct": 100 * (c1 - self.c0) / elapsed,
                "worker_cpu_ms": (wc1 - self.wc0) * 1000 / per,
                "sql": (s1 - self.s0 - self.sql.scrape_cost) / per,
                "worker_sql": (w1 - self.w0) / per,
                "client_cpu_pct": 100 * (cl1 - self.cl0) / elapsed,
                "client_cpu_ms": (cl1 - self.cl0) * 1000 / per,
                # PostgreSQL, Redis and whatever else runs on the machine (other users)
                "others_pct": 100 * others / elapsed,
                "postgres_cpu_ms": (pg1 - self.pg0) * 1000 / per,
                "redis_cpu_ms": (rd1 - self.rd0) * 1000 / per}


# --- the load client ---------------------------------------------------------------------------
class _WireSizes:
    """Put last in a connection's extension list, it sees every incoming data frame first, as
    it came off the wire (compressed, if permessage-deflate was negotiated), and records its
    payload length; it changes nothing."""

    name = "x-stapel-bench-wire-sizes"

    def __init__(self, sink: collections.deque):
        self.sink = sink

    def decode(self, frame, *, max_size=None):
        from websockets.frames import Opcode

        if frame.opcode in (Opcode.TEXT, Opcode.BINARY, Opcode.CONT):
            n = len(frame.data)
            self.sink.append(n + (2 if n < 126 else 4 if n < 65536 else 10))
        return frame

    def encode(self, frame):
        return frame


class Conn:
    """One graphql-transport-ws websocket: frames are dispatched by operation id to a callback
    (subscriptions) or a future (a mutation over the socket), without queues or tasks."""

    def __init__(self, base_url: str, token: str, stats: Stats):
        self.url = base_url.replace("http", "ws", 1) + "/graphql/"
        self.token = token
        self.stats = stats
        self.ops: dict[str, object] = {}
        self.ids = 0
        self.wire: collections.deque = collections.deque()

    async def open(self, compression):
        from websockets.asyncio.client import connect

        self.ws = await connect(self.url, subprotocols=["graphql-transport-ws"],
                                max_size=2**22, open_timeout=30, compression=compression,
                                ping_interval=None)
        self.compressed = bool(self.ws.protocol.extensions)
        self.ws.protocol.extensions.append(_WireSizes(self.wire))
        await self.ws.send(json.dumps({"type": "connection_init",
                                       "payload": {"authorization": f"Bearer {self.token}"}}))
        ack = json.loads(await asyncio.wait_for(self.ws.recv(), 30))
        self.wire.popleft()
        if ack["type"] != "connection_ack":
            raise RuntimeError(ack)
        self.reader = asyncio.create_task(self._read())
        return self

    async def _read(self):
        import websockets

        ws, ops, wire, loads = self.ws, self.ops, self.wire, json.loads
        try:
            while True:
                raw = await ws.recv(decode=False)
                wire_len = wire.popleft() if wire else 0
                msg = loads(raw)
                kind = msg["type"]
                if kind == "ping":
                    await ws.send('{"type":"pong"}')
                    continue
                target = ops.get(msg.get("id"))
                if target is None:
                    continue
                if callable(target):
                    if kind == "next":
                        target(msg["payload"], len(raw), wire_len)
                    elif kind in ("error", "complete"):
                        self.stats.errors += 1
                        ops.pop(msg["id"], None)
                elif kind == "complete":
                    ops.pop(msg["id"], None)
                elif not target.done():
                    target.set_result(msg)
        except websockets.ConnectionClosed:
            pass

    async def _send(self, query: str, variables: dict, target) -> None:
        self.ids += 1
        op = str(self.ids)
        self.ops[op] = target
        await self.ws.send(json.dumps({"id": op, "type": "subscribe",
                                        "payload": {"query": query, "variables": variables}}))

    async def subscribe(self, query: str, variables: dict, callback) -> None:
        await self._send(query, variables, callback)

    async def execute(self, query: str, variables: dict) -> dict:
        fut = asyncio.get_running_loop().create_future()
        await self._send(query, variables, fut)
        msg = await asyncio.wait_for(fut, 30)
        if msg["type"] != "next" or msg["payload"].get("errors"):
            raise RuntimeError(msg)
        return msg["payload"]["data"]

    async def close(self):
        await self.ws.close()
        await asyncio.gather(self.reader, return_exceptions=True)


class Stats:
    def __init__(self):
        self.latencies: list[float] = []
        self.answers: list[float] = []  # sending a move -> its own answer
        self.acted = 0
        self.refused = 0
        self.timeouts = 0
        self.errors = 0
        self.json_bytes: list[int] = []
        self.wire_bytes: list[int] = []
        self.compressed = False


class Http:
    """GraphQL over HTTP/1.1 keep-alive; one client shared by every player."""

    def __init__(self, base_url: str, connections: int):
        import httpx

        self.url = base_url + "/graphql/"
        self.client = httpx.AsyncClient(timeout=30, limits=httpx.Limits(
            max_connections=connections, max_keepalive_connections=connections))

    async def __call__(self, token: str | None, query: str, variables: dict) -> dict:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        response = await self.client.post(self.url, json={"query": query,
                                                          "variables": variables},
                                          headers=headers)
        body = response.json()
        if body.get("errors"):
            raise RuntimeError(body["errors"])
        return body["data"]

    async def guest(self, name: str) -> str:
        data = await self("", 'mutation($n: String!) { createGuest(displayName: $n) { token } }',
                          {"n": name})
        return data["createGuest"]["token"]


class Table:
    """Two seats (and optionally spectators); a move is done when its version reached every
    socket of the table."""

    def __init__(self, table_id: str, tokens: list[str], stats: Stats):
        self.table_id = table_id
        self.tokens = tokens
        self.stats = stats
        self.seat_conns: list[Conn] = []
        self.conns: list[Conn] = []
        self.latest: list[dict | None] = [None, None]
        self.changed = asyncio.Event()
        self.pending: dict[int, tuple[set, asyncio.Event]] = {}
        self.last_arrival = 0.0

    def _on_event(self, index: int, seat_index: int | None):
        stats, pending = self.stats, self.pending

        def on_next(payload, json_len, wire_len):
            update = (payload.get("data") or {}).get("tableEvents")
            if update is None:
                stats.errors += 1
                return
            stats.json_bytes.append(json_len)
            stats.wire_bytes.append(wire_len)
            version = update["version"]
            waiting = pending.get(version)
            if waiting is not None:
                waiting[0].add(index)
                if len(waiting[0]) == len(self.conns):
                    self.last_arrival = time.perf_counter()
                    waiting[1].set()
            if seat_index is not None and update["view"] is not None:
                current = self.latest[seat_index]
                if current is None or version >= current["version"]:
                    self.latest[seat_index] = update
                    self.changed.set()

        return on_next

    async def connect(self, url: str, spectator_tokens: list[str], compression):
        from tests.integration.play import SUBSCRIBE

        for i, token in enumerate(self.tokens + spectator_tokens):
            conn = await Conn(url, token, self.stats).open(compression)
            self.stats.compressed = conn.compressed
            self.conns.append(conn)
            if i < 2:
                self.seat_conns.append(conn)
        for i, conn in enumerate(self.conns):
            await conn.subscribe(SUBSCRIBE, {"id": self.table_id, "after": 0},
                                 self._on_event(i, i if i < 2 else None))

    def next_move(self, rng: random.Random):
        """(seat index, variables) of the next move from the newest view, or None."""
        best = None
        for i in range(2):
            u = self.latest[i]
            if u and u["view"]["seat"] in u["view"]["actors"] and u["view"]["legalActions"]:
                if best is None or u["version"] > best[1]["version"]:
                    best = (i, u)
        if best is None:
            return None
        i, u = best
        legal = u["view"]["legalActions"]
        plays = [a for a in legal if "play" in a]
        action = rng.choice(plays) if plays and rng.random() < 0.9 else rng.choice(legal)
        if "play" in action:
            action = {"play": {**action["play"], "call": True}}
        return i, {"id": self.table_id, "a": action, "v": u["version"]}

    async def move(self, rng: random.Random, over_socket: bool, http: Http | None,
                   end: float) -> None:
        """Play one move (waiting for a turn if there is none) and time it to every socket."""
        from tests.integration.play import ACT

        self.changed.clear()
        chosen = self.next_move(rng)
        if chosen is None:
            try:
                await asyncio.wait_for(self.changed.wait(),
                                       max(0.05, min(5.0, end - time.monotonic())))
            except TimeoutError:
                pass
            return
        i, variables = chosen
        version = variables["v"]
        self.pending[version + 1] = (set(), done := asyncio.Event())
        sent = time.perf_counter()
        try:
            if over_socket:
                data = await self.seat_conns[i].execute(ACT, variables)
            else:
                data = await http(self.tokens[i], ACT, variables)
        except Exception:  # noqa: BLE001 - counted, the table goes on
            self.stats.errors += 1
            self.pending.pop(version + 1, None)
            await asyncio.sleep(0.05)
            return
        if data["act"]["errors"]:
            self.stats.refused += 1
            self.pending.pop(version + 1, None)
            self.latest[i] = None
            await asyncio.sleep(0.005)
            return
        self.stats.acted += 1
        self.stats.answers.append(time.perf_counter() - sent)
        try:
            await asyncio.wait_for(done.wait(), 10)
            self.stats.latencies.append(self.last_arrival - sent)
        except TimeoutError:
            self.stats.timeouts += 1
        self.pending.pop(version + 1, None)

    async def close(self):
        await asyncio.gather(*(c.close() for c in self.conns), return_exceptions=True)


# createTable's turn clock for every bench table (--turn-clock), none by default.
TURN_CLOCK: dict = {}


async def open_tables(url: str, http: Http, n: int, spectators: int, compression,
                      stats: Stats, parallel: int = 16, pool: int | None = None,
                      within: float | None = None) -> list[Table]:
    """``n`` started tables, each with its own two players, or players drawn from ``pool``
    pairs (a player may sit at several tables; every socket is still its own). With
    ``within`` seconds, the tables not ready by then are given up (their sockets closed)."""
    from tests.integration.play import CREATE, JOIN, START

    gate = asyncio.Semaphore(parallel)
    watchers = list(await asyncio.gather(*(http.guest(f"Watcher{k}")
                                           for k in range(min(spectators * n, 16)))))
    people = list(await asyncio.gather(*(http.guest(f"P{k}") for k in range(2 * (pool or 0)))))
    pairs = list(zip(people[::2], people[1::2], strict=True))

    async def one(t: int) -> Table:
        async with gate:
            if pairs:
                a, b = pairs[t % len(pairs)]
            else:
                a, b = await http.guest(f"A{t}"), await http.guest(f"B{t}")
            data = await http(a, CREATE, {"input": {"game": "kato", "seatCount": 2,
                                                    "options": {"target_score": 1_000_000},
                                                    **TURN_CLOCK}})
            table_id = data["createTable"]["table"]["id"]
            await http(b, JOIN, {"id": table_id})
            table = Table(table_id, [a, b], stats)
            made.append(table)
            await table.connect(url, [watchers[(t * spectators + k) % len(watchers)]
                                      for k in range(spectators)], compression)
            await http(a, START, {"id": table_id})
            return table

    made: list[Table] = []
    tasks = [asyncio.create_task(one(t)) for t in range(n)]
    done, pending = await asyncio.wait(tasks, timeout=within)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    tables = [t.result() for t in done if not t.exception()]
    failed = [t.exception() for t in done if t.exception()]
    if failed:
        raise failed[0]
    await asyncio.gather(*(t.close() for t in made if t not in tables), return_exceptions=True)
    await asyncio.sleep(0.5)
    return tables


async def play(url: str, meter: Meter, n_tables: int, seconds: float, over_socket: bool,
               compression) -> dict:
    stats = Stats()
    http = Http(url, 2 * n_tables + 4)
    tables = await open_tables(url, http, n_tables, 0, compression, stats)
    end = time.monotonic() + seconds

    async def drive(table: Table):
        rng = random.Random(table.table_id)
        while time.monotonic() < end:
            await table.move(rng, over_socket, http, end)

    meter.start()
    start = time.monotonic()
    await asyncio.gather(*(drive(t) for t in tables))
    elapsed = time.monotonic() - start
    cost = meter.stop(stats.acted)
    await asyncio.gather(*(t.close() for t in tables))
    await http.client.aclose()
    return {"name": f"Stapel {'ws' if over_socket else 'HTTP'}", "tables": n_tables,
            "moves_s": stats.acted / elapsed, "p50": pct(stats.latencies, 50) * 1000,
            "p99": pct(stats.latencies, 99) * 1000, "stats": stats, **cost}


async def fanout(url: str, meter: Meter, n_tables: int, seconds: float, interval: float,
                 compression, setup_limit: float) -> dict:
    """Two seats and two spectators per table (4 sockets each; 32 pairs of players and 16
    spectators spread over the tables); each table moves at a human pace over its
    websocket."""
    stats = Stats()
    http = Http(url, 32)
    t0 = time.monotonic()
    tables = await open_tables(url, http, n_tables, 2, compression, stats, parallel=8,
                               pool=32, within=setup_limit)
    setup = time.monotonic() - t0
    end = time.monotonic() + seconds

    async def drive(table: Table):
        rng = random.Random(table.table_id)
        await asyncio.sleep(rng.uniform(0, interval))
        while time.monotonic() < end:
            await table.move(rng, True, None, end)
            await asyncio.sleep(rng.uniform(0.5, 1.5) * interval)

    meter.start()
    start = time.monotonic()
    await asyncio.gather(*(drive(t) for t in tables))
    elapsed = time.monotonic() - start
    cost = meter.stop(stats.acted)
    await asyncio.gather(*(t.close() for t in tables))
    await http.client.aclose()
    return {"name": "Stapel fanout", "tables": len(tables), "setup_s": setup,
            "moves_s": stats.acted / elapsed, "p50": pct(stats.latencies, 50) * 1000,
            "p99": pct(stats.latencies, 99) * 1000,
            "max": max(stats.latencies, default=float("nan")) * 1000, "stats": stats, **cost}


# --- the boardgame.io peer ---------------------------------------------------------------------
def bgio(matches: int, seconds: float) -> dict | None:
    if not (shutil.which("node") and shutil.which("npm")):
        print("boardgame.io peer skipped: node/npm not installed")
        return None
    if not BGIO_ANCHOR.exists():
        print(f"boardgame.io peer skipped: {BGIO_ANCHOR} not found")
        return None
    try:
        out = subprocess.run(["bash", str(BGIO_ANCHOR), str(matches), str(int(seconds)),
                              str(_free_port())], capture_output=True, text=True,
                             timeout=seconds + 240)
    except subprocess.TimeoutExpired:
        print("boardgame.io peer: timed out")
        return None
    line = next((ln for ln in out.stdout.splitlines() if ln.startswith("bgio ")), None)
    if out.returncode or line is None:
        print(f"boardgame.io peer failed ({out.returncode}): {out.stderr.strip()[-400:]}")
        return None
    f = dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)
    moves_s = float(f["moves_per_s"])
    cpu_pct = float(f.get("server_cpu_pct", "nan"))
    return {"name": "bgio", "tables": matches, "moves_s": moves_s,
            "p50": float(f["deliver_both_p50_ms"]), "p99": float(f["deliver_both_p99_ms"]),
            # run.sh times its server's CPU over the client's whole run (start-up included),
            # so this slightly understates the CPU per move.
            "cpu_ms": cpu_pct * 10 / moves_s if moves_s else float("nan"),
            "server_cpu_pct": cpu_pct, "client_cpu_pct": float(f.get("client_cpu_pct", "nan")),
            "sql": 0.0, "errors": int(f.get("errors", 0)), "line": line}


# --- how fast can the load client go? -----------------------------------------------------------
_FAKE_PAD = "x" * 700


def _fake_frame(op: str, table_id: str, version: int, seat: int, actor: int) -> str:
    """A ~1 KB ``tableEvents`` frame of the fake servers."""
    view = {"__typename": "KatoView", "seat": seat, "actors": [actor],
            "hand": ["S7", "H9", "DQ", "CK", "SA"],
            "legalActions": [{"play": {"card": c}} for c in ("S7", "H9", "DQ")],
            "raw": {"pad": _FAKE_PAD}}
    return json.dumps({"id": op, "type": "next", "payload": {"data": {"tableEvents": {
        "tableId": table_id, "seq": version, "kind": "action", "version": version,
        "status": "playing", "events": [{"type": "played", "data": {"seat": actor}}],
        "view": view}}}})


class _FakeProtocol:
    """The do-nothing servers' graphql-transport-ws: answers ``connection_init``, answers
    each ``act`` at once (``next`` and ``complete``) and pushes a ~1 KB ``tableEvents`` frame
    to both seats of the table. ``handle`` takes a frame's text and an async function that
    sends a text on that socket."""

    def __init__(self) -> None:
        self.tables: dict[str, dict] = {}

    async def handle(self, raw, send) -> None:
        msg = json.loads(raw)
        if msg.get("type") == "connection_init":
            await send('{"type":"connection_ack"}')
            return
        if msg.get("type") != "subscribe":
            return
        variables = msg["payload"]["variables"]
        table = self.tables.setdefault(variables["id"], {"version": 1, "subs": []})
        if "tableEvents" in msg["payload"]["query"]:
            seat = len(table["subs"])
            table["subs"].append((send, msg["id"], seat))
            await send(_fake_frame(msg["id"], variables["id"], table["version"], seat, 0))
            return
        table["version"] += 1
        v = table["version"]
        await send(json.dumps({"id": msg["id"], "type": "next", "payload": {"data": {
            "act": {"version": v, "seq": v, "replayed": False, "errors": []}}}}))
        await send(json.dumps({"id": msg["id"], "type": "complete"}))
        for sub_send, op, seat in table["subs"]:
            await sub_send(_fake_frame(op, variables["id"], v, seat, v % 2))


def fake_server(port: int) -> None:
    """A stand-in for the server that costs next to nothing (``_FakeProtocol`` on the
    websockets library's server). Run pinned to the server core by ``--client-ceiling``;
    measures the load client."""
    from websockets.asyncio.server import serve

    protocol = _FakeProtocol()

    async def handler(ws):
        async for raw in ws:
            await protocol.handle(raw, ws.send)

    async def run():
        async with serve(handler, "127.0.0.1", port, subprotocols=["graphql-transport-ws"],
                         max_size=2**22):
            await asyncio.sleep(600)

    asyncio.run(run())


def fake_asgi_server(port: int, through_channels: bool = False) -> None:
    """``_FakeProtocol`` as a bare ASGI app under uvicorn, as the real server is run
    (websockets-sansio, no permessage-deflate): no Django, Channels, GraphQL, database or
    Redis. Its CPU per move is what uvicorn and CPython cost to carry one move's frames (one
    received, two answered, one pushed to each seat), the floor under any server of this
    stack (``--client-ceiling``). ``through_channels``: in a Channels consumer instead."""
    import uvicorn

    protocol = _FakeProtocol()

    async def app(scope, receive, send):
        if scope["type"] != "websocket":
            return

        async def send_text(text):
            await send({"type": "websocket.send", "text": text})

        await receive()  # websocket.connect
        await send({"type": "websocket.accept", "subprotocol": "graphql-transport-ws"})
        while True:
            message = await receive()
            if message["type"] != "websocket.receive":
                return
            await protocol.handle(message.get("text") or message.get("bytes"), send_text)

    uvicorn.run(_fake_channels_app(protocol) if through_channels else app, host="127.0.0.1",
                port=port, ws="websockets-sansio", ws_per_message_deflate=False,
                lifespan="off", log_level="warning")


def _fake_channels_app(protocol: _FakeProtocol):
    """``protocol`` in a Channels ``AsyncWebsocketConsumer`` behind ``ProtocolTypeRouter``
    and ``URLRouter``, as the real socket is served (an in-memory channel layer: nothing is
    sent on it per move; no thread hop per frame, as in config/graphql.py)."""
    import django
    from django.conf import settings

    settings.configure(CHANNEL_LAYERS={"default": {
        "BACKEND": "channels.layers.InMemoryChannelLayer"}})
    django.setup()
    from channels.consumer import get_handler_name
    from channels.generic.websocket import AsyncWebsocketConsumer
    from channels.routing import ProtocolTypeRouter, URLRouter
    from django.urls import re_path

    class Fake(AsyncWebsocketConsumer):
        async def dispatch(self, message):
            # As config/graphql.py's consumer: no thread hop per frame to close stale
            # database connections.
            await getattr(self, get_handler_name(message))(message)

        async def connect(self):
            await self.accept("graphql-transport-ws")

        async def receive(self, text_data=None, bytes_data=None):
            await protocol.handle(text_data or bytes_data, self.send)

    return ProtocolTypeRouter({"websocket": URLRouter([re_path(r"^graphql/?$",
                                                               Fake.as_asgi())])})


async def client_ceiling(n_tables: int, seconds: float, compression,
                         kind: str = "websockets") -> None:
    port = _free_port()
    flag = {"websockets": "--fake-server", "uvicorn ASGI": "--fake-asgi-server",
            "uvicorn + Channels consumer": "--fake-channels-server"}[kind]
    proc = subprocess.Popen(["taskset", "-c", SERVER_CORES, sys.executable, __file__,
                             flag, str(port)], start_new_session=True)
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                await asyncio.sleep(0.1)
        stats = Stats()
        tables = []
        for t in range(n_tables):
            table = Table(f"t{t}", ["fake-a", "fake-b"], stats)
            await table.connect(url, [], compression)
            tables.append(table)
        await asyncio.sleep(0.3)
        end = time.monotonic() + seconds

        async def drive(table: Table):
            rng = random.Random(table.table_id)
            while time.monotonic() < end:
                await table.move(rng, True, None, end)

        c0, s0, t0 = client_cpu(), tree_cpu(proc.pid), time.monotonic()
        await asyncio.gather(*(drive(t) for t in tables))
        elapsed = time.monotonic() - t0
        c1, s1 = client_cpu(), tree_cpu(proc.pid)
        await asyncio.gather(*(t.close() for t in tables))
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(10)
    print(f"load client ceiling, {n_tables} tables against a do-nothing {kind} server: "
          f"{stats.acted / elapsed:,.0f} moves/s, p50 {pct(stats.latencies, 50) * 1000:.1f} ms, "
          f"p99 {pct(stats.latencies, 99) * 1000:.1f} ms; client CPU "
          f"{100 * (c1 - c0) / elapsed:.0f}% of core {CLIENT_CORE} "
          f"({(c1 - c0) * 1e6 / max(stats.acted, 1):.0f} us/move), fake server "
          f"{100 * (s1 - s0) / elapsed:.0f}% of core {SERVER_CORES} "
          f"({(s1 - s0) * 1e3 / max(stats.acted, 1):.3f} ms/move)")


# --- printing ----------------------------------------------------------------------------------
def _bytes(stats: Stats) -> str:
    if not stats.wire_bytes:
        return "no frames"
    return (f"frame bytes wire median {statistics.median(stats.wire_bytes):,.0f} / mean "
            f"{statistics.fmean(stats.wire_bytes):,.0f} "
            f"({'permessage-deflate' if stats.compressed else 'uncompressed'}), JSON median "
            f"{statistics.median(stats.json_bytes):,.0f} / mean "
            f"{statistics.fmean(stats.json_bytes):,.0f}")


def report(r: dict) -> None:
    s: Stats = r["stats"]
    print(f"{r['tables']:>3} tables, {r['name']:<13}: {r['moves_s']:8,.0f} persisted moves/s, "
          f"move->every socket p50 {r['p50']:7.1f} ms, p99 {r['p99']:7.1f} ms "
          f"({len(s.latencies)} timed, {s.acted} acted, {s.refused} refused, "
          f"{s.timeouts} timeouts, {s.errors} errors)")
    print(f"      server CPU {r['cpu_ms']:6.2f} ms/move ({r['server_cpu_pct']:.0f}% of a core); "
          f"SQL round trips {r['sql']:5.2f}/move (web) + {r['worker_sql']:4.2f}/move (worker); "
          f"worker CPU {r['worker_cpu_ms']:5.2f} ms/move; load client CPU "
          f"{r['client_cpu_pct']:.0f}% of core {CLIENT_CORE} ({r['client_cpu_ms']:.2f} ms/move, "
          f"fixed costs included; see --client-ceiling)")
    print(f"      the move's own answer p50 {pct(s.answers, 50) * 1000:.1f} ms, p99 "
          f"{pct(s.answers, 99) * 1000:.1f} ms; {_bytes(s)}")
    print(f"      everything else on the machine (PostgreSQL, Redis, other users): "
          f"{r['others_pct']:.0f}% of one core on average over {os.cpu_count()} cores; of "
          f"it PostgreSQL's processes {r['postgres_cpu_ms']:.2f} ms/move, Redis "
          f"{r['redis_cpu_ms']:.2f} ms/move")
    if client_bound(r):
        print("      WARNING: the load client is near one full core: it may be the bottleneck "
              "of this configuration, not the server")


def client_bound(r: dict) -> bool:
    """Whether a configuration's load client used most of its core (then its figures say as
    much about the client as about the server)."""
    return r["client_cpu_pct"] >= 85


def machine_ms(r: dict) -> float:
    """CPU ms per move summed over every process the configuration runs."""
    client = r["client_cpu_pct"] * 10 / r["moves_s"] if r["moves_s"] else float("nan")
    if r["name"] == "bgio":
        return r["cpu_ms"] + client
    return (r["cpu_ms"] + r["client_cpu_ms"] + r["worker_cpu_ms"] + r["postgres_cpu_ms"]
            + r["redis_cpu_ms"])


def side_by_side(results: list[dict]) -> None:
    print("\nside by side (same run; ratios Stapel/bgio at the same concurrency)")
    head = (f"{'':<22}{'moves/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'CPU ms/mv':>10}"
            f"{'SQL/mv':>8}{'B/frame':>9}{'client%':>8}{'machine':>9}")
    print(head)
    print("-" * len(head))
    for r in results:
        s = r.get("stats")
        frame = f"{statistics.median(s.wire_bytes):,.0f}" if s and s.wire_bytes else "-"
        sql = f"{r['sql']:.2f}" if r["name"] != "bgio" else "0 (mem)"
        print(f"{r['tables']:>3} {r['name']:<18}{r['moves_s']:>9,.0f}{r['p50']:>9.1f}"
              f"{r['p99']:>9.1f}{r['cpu_ms']:>10.2f}{sql:>8}{frame:>9}"
              f"{r['client_cpu_pct']:>8.0f}{machine_ms(r):>9.2f}")
    print("machine: CPU ms per move of every process a move needs (Stapel: server, load client, "
          "worker, PostgreSQL, Redis; boardgame.io: server, load client); the machine has "
          f"{os.cpu_count()} cores, so {os.cpu_count()} / machine x 1000 bounds moves/s")
    peers = {r["tables"]: r for r in results if r["name"] == "bgio"}
    for r in results:
        peer = peers.get(r["tables"])
        if r["name"] == "bgio" or peer is None:
            continue
        print(f"{r['tables']:>3} {r['name']:<18} vs bgio: moves/s x{r['moves_s'] / peer['moves_s']:.3f}"
              f", p50 x{r['p50'] / peer['p50']:.1f}, p99 x{r['p99'] / peer['p99']:.1f}, "
              f"CPU/move x{r['cpu_ms'] / peer['cpu_ms']:.1f}, "
              f"machine CPU/move x{machine_ms(r) / machine_ms(peer):.1f}")
    for tables, peer in peers.items():
        if client_bound(peer):
            print(f"{tables:>3} tables: boardgame.io's own load client used "
                  f"{peer['client_cpu_pct']:.0f}% of its core, so its figures are bounded by its "
                  "client and these ratios flatter Stapel")


# --- the older side figures ----------------------------------------------------------------------
async def trivial_rate(url: str, concurrency: int, seconds: float) -> float:
    http = Http(url, concurrency)
    done = 0
    end = time.monotonic() + seconds

    async def loop():
        nonlocal done
        while time.monotonic() < end:
            await http(None, "mutation { __typename }", {})
            done += 1

    start = time.monotonic()
    await asyncio.gather(*(loop() for _ in range(concurrency)))
    rate = done / (time.monotonic() - start)
    await http.client.aclose()
    return rate


async def bot_latency(url: str, samples: int) -> tuple[list[float], int]:
    """A person against a bot, acting over the websocket: from sending the person's move to
    the bot's move arriving;
    and how many moves (the person's and the bot's) the table made meanwhile."""
    from tests.integration.client import Socket
    from tests.integration.play import ACT, ADD_BOT, CREATE, START, SUBSCRIBE, new_guest

    person = await new_guest(url, "Person")
    data = await person(CREATE, {"input": {"game": "kato", "seatCount": 2,
                                           "options": {"target_score": 1_000_000}}})
    table_id = data["createTable"]["table"]["id"]
    await person(ADD_BOT, {"id": table_id, "level": "heuristic"})
    sock = await Socket(url, person.token).connect()
    sub = await sock.subscribe(SUBSCRIBE, {"id": table_id, "after": 0})
    await person(START, {"id": table_id})
    latencies = []
    latest = None
    sent = None
    moves = 0
    deadline = time.monotonic() + 60
    while len(latencies) < samples and time.monotonic() < deadline:
        update = (await sub.next(timeout=30))["tableEvents"]
        moves += update["kind"] in ("action", "bot")
        if update["kind"] == "bot" and sent is not None:
            latencies.append(time.perf_counter() - sent)
            sent = None
        if update["view"] is not None:
            latest = update
        view = latest["view"] if latest else None
        if view and view["seat"] in view["actors"] and view["legalActions"] and update is latest:
            legal = view["legalActions"]
            plays = [a for a in legal if "play" in a]
            action = plays[0] if plays else legal[0]
            sent = time.perf_counter()
            await sock.execute(ACT, {"id": table_id, "a": action, "v": latest["version"]})
    await sock.close()
    await person.close()
    return latencies, moves


def pgbench_rate(env: dict, clients: int, seconds: int) -> float:
    url = env["DATABASE_URL"]
    subprocess.run(["psql", url, "-qc",
                    "DROP TABLE IF EXISTS pgb; CREATE TABLE pgb (id int primary key, "
                    "data jsonb, version int); INSERT INTO pgb SELECT g, "
                    "jsonb_build_object('hands', jsonb_build_array(g, g+1), 'n', g), 0 "
                    "FROM generate_series(1, 64) g"], check=True)
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
        f.write("\\set id random(1, 64)\n"
                "UPDATE pgb SET data = jsonb_set(data, '{n}', to_jsonb(version + 1)), "
                "version = version + 1 WHERE id = :id;\n")
        script = f.name
    out = subprocess.run(["pgbench", "-n", "-c", str(clients), "-j", "2", "-T", str(seconds),
                          "-f", script, url], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if line.startswith("tps"):
            return float(line.split("=")[1].split()[0])
    return float("nan")


# --- the run -----------------------------------------------------------------------------------
async def main_async(args, url, env, meter: Meter):
    compression = None if args.ws_compression == "none" else "deflate"
    results = []
    if not args.fanout_only:
        for n in args.tables:
            modes = [m for m in ("ws", "http") if m in args.modes]
            for k, mode in enumerate(modes):
                r = await play(url, meter, n, args.seconds, mode == "ws", compression)
                report(r)
                results.append(r)
                if k == 0 and not args.no_bgio:
                    peer = await asyncio.to_thread(bgio, n, args.seconds)
                    if peer:
                        print(f"{n:>3} tables, boardgame.io  : {peer['line']}")
                        results.append(peer)
            if len(modes) < 2 and not args.no_bgio and not any(
                    r["name"] == "bgio" and r["tables"] == n for r in results):
                peer = await asyncio.to_thread(bgio, n, args.seconds)
                if peer:
                    print(f"{n:>3} tables, boardgame.io  : {peer['line']}")
                    results.append(peer)
    if args.fanout or args.fanout_only:
        r = await fanout(url, meter, args.fanout_tables, args.fanout_seconds,
                         args.fanout_interval, compression, args.fanout_setup_seconds)
        print(f"fanout: {r['tables']} of {args.fanout_tables} tables ready within "
              f"{args.fanout_setup_seconds:g} s, x 4 sockets (2 seats + 2 spectators), one "
              f"move per table every ~{args.fanout_interval:g} s over the websocket; "
              f"set-up {r['setup_s']:.0f} s")
        report(r)
        print(f"      p99 move->every one of the 4 sockets {r['p99']:.1f} ms, max "
              f"{r['max']:.1f} ms (target < 50 ms)")
    if results:
        side_by_side(results)
    if args.no_extras or args.fanout_only:
        return
    print(f"trivial mutation over HTTP ({args.trivial_clients} clients): "
          f"{await trivial_rate(url, args.trivial_clients, args.seconds):,.0f}/s")
    meter.start()
    lat, moves = await bot_latency(url, args.bot_samples)
    cost = meter.stop(moves)
    print(f"bot turn through the worker (pause 0): p50 {pct(lat, 50) * 1000:.1f} ms, "
          f"p99 {pct(lat, 99) * 1000:.1f} ms ({len(lat)} turns); per move of that table "
          f"(one person, one heuristic bot, {moves} moves): server {cost['cpu_ms']:.2f} ms, "
          f"worker {cost['worker_cpu_ms']:.2f} ms, PostgreSQL {cost['postgres_cpu_ms']:.2f} ms, "
          f"Redis {cost['redis_cpu_ms']:.2f} ms of CPU")
    for clients in args.tables:
        print(f"pgbench single-row JSONB update, {clients} clients: "
              f"{pgbench_rate(env, clients, int(args.seconds)):,.0f}/s")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--tables", type=int, nargs="+", default=[8, 32])
    parser.add_argument("--modes", nargs="+", default=["ws", "http"], choices=["ws", "http"])
    parser.add_argument("--web-workers", type=int, default=1,
                        help="uvicorn --workers (all pinned to the server core)")
    parser.add_argument("--no-bgio", action="store_true")
    parser.add_argument("--own-services", action="store_true",
                        help="start a PostgreSQL cluster and a Redis of the bench's own, pinned "
                             "with the Celery worker to the load client's core, so the server's "
                             "core is the server's alone (else the shared servers named by "
                             "DATABASE_URL and REDIS_URL, not pinned)")
    parser.add_argument("--turn-clock", type=int, default=0, metavar="SECONDS",
                        help="give every table a turn clock (tournament tables have one): "
                             "each move then sets a deadline (default 0: none)")
    parser.add_argument("--fanout", action="store_true")
    parser.add_argument("--fanout-only", action="store_true")
    parser.add_argument("--fanout-tables", type=int, default=250)
    parser.add_argument("--fanout-seconds", type=float, default=20)
    parser.add_argument("--fanout-setup-seconds", type=float, default=90,
                        help="give up on the fanout tables not ready by then")
    parser.add_argument("--fanout-interval", type=float, default=2.0,
                        help="mean seconds between two moves at one table")
    parser.add_argument("--ws-compression", choices=["deflate", "none"], default="deflate",
                        help="offer permessage-deflate as browsers do (default) or not")
    parser.add_argument("--server-ws", default="websockets-sansio",
                        choices=["websockets", "websockets-sansio", "wsproto"],
                        help="uvicorn's websocket implementation (the deploy recipe's by default)")
    parser.add_argument("--server-deflate", choices=["on", "off"], default="off",
                        help="whether the server accepts permessage-deflate (the deploy "
                             "recipe declines it: see docs/api.md)")
    parser.add_argument("--no-extras", action="store_true",
                        help="skip the trivial-mutation, bot-turn and pgbench figures")
    parser.add_argument("--trivial-clients", type=int, default=8)
    parser.add_argument("--bot-samples", type=int, default=200)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--client-ceiling", action="store_true",
                        help="only measure how many moves/s the load client itself can drive "
                             "(against a do-nothing websocket server; no database needed)")
    parser.add_argument("--fake-server", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--fake-asgi-server", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--fake-channels-server", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.fake_server:
        fake_server(args.fake_server)
        return
    if args.fake_asgi_server or args.fake_channels_server:
        fake_asgi_server(args.fake_asgi_server or args.fake_channels_server,
                         through_channels=bool(args.fake_channels_server))
        return
    if args.client_ceiling:
        os.sched_setaffinity(0, {CLIENT_CORE})
        for n in args.tables:
            for kind in ("websockets", "uvicorn ASGI", "uvicorn + Channels consumer"):
                asyncio.run(client_ceiling(n, min(args.seconds, 8),
                                           None if args.ws_compression == "none" else "deflate",
                                           kind))
        return
    if args.turn_clock:
        TURN_CLOCK["turnClockSeconds"] = args.turn_clock
    if args.quick:
        args.seconds, args.tables, args.bot_samples = 4, [8], 30
    logdir = Path(tempfile.mkdtemp(prefix="stapel-bench-"))
    own = OwnServices(logdir) if args.own_services else None
    server = worker = None
    try:
        env = prepare_env(logdir, own)
        server, url = start_server(env, logdir, args.web_workers, args.server_ws,
                                   args.server_deflate == "on")
        worker, worker_prom = start_worker(env, logdir, str(CLIENT_CORE) if own else None)
        os.sched_setaffinity(0, {CLIENT_CORE})
        meter = Meter(server, worker, SqlCounter(url, worker_prom))
        print(f"stack: {args.web_workers} uvicorn worker(s) pinned to core {SERVER_CORES} "
              f"(pid {server.pid}; --ws {args.server_ws}, permessage-deflate "
              f"{args.server_deflate}); load client pinned to core {CLIENT_CORE}; Celery worker "
              f"(1 process) {f'pinned to core {CLIENT_CORE}' if own else 'not pinned'}; "
              f"logs in {logdir}")
        if own:
            print(f"PostgreSQL and Redis: the bench's own (ports {own.pg.port}, "
                  f"{own.redis.port}), pinned to core {CLIENT_CORE} with the load client")
        else:
            print(f"PostgreSQL: {where('postgres')}; Redis: {where('redis-server')}")
        print(f"SQL counted: statements through Django's cursor + psycopg's BEGIN and "
              f"COMMIT/ROLLBACK + metrics.sql_statements(); the /metrics scrape's own "
              f"{meter.sql.scrape_cost:.0f} statement(s) subtracted")
        asyncio.run(main_async(args, url, env, meter))
    finally:
        if worker:
            worker.stop()
        if server:
            server.stop()
        if own:
            own.stop()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
