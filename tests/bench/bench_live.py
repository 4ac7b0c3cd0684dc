"""Live-play throughput and latency through the real stack.

Starts one uvicorn worker and one Celery worker on PostgreSQL and Redis, then plays N
two-seat KaTO tables in parallel from a load client in this process: every move is a real
`act` mutation (over HTTP, then over the already-open websocket) committed to PostgreSQL, and
its event is awaited on BOTH seats' websockets. Prints persisted moves/s and p50/p99 from
sending a move to its event reaching every seat; alongside, in the same configuration: a
trivial mutation's rate (the framework's floor), pgbench's single-row JSONB update rate (the
database's ceiling) and bot-turn latency through the worker (pause zero).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/stapel REDIS_URL=redis://127.0.0.1:6379/15 \
        .venv/bin/python tests/bench/bench_live.py [--seconds 15] [--tables 8 32] [--quick]

Figures are printed, never asserted. Traffic goes to 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

BENCH_DB = "stapel_bench"


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def prepare_env() -> dict:
    from tests import resources  # the one place choosing the databases a run may touch

    base = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/stapel")
    redis_url = resources.redis_url()
    BENCH_DB = resources.bench_database_name(base)
    db_url = resources.database_url_beside(base, BENCH_DB)
    subprocess.run(["psql", base, "-qc", f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)"], check=True)
    subprocess.run(["psql", base, "-qc", f"CREATE DATABASE {BENCH_DB}"], check=True)
    env = {**os.environ, "DATABASE_URL": db_url, "REDIS_URL": redis_url,
           "SECRET_KEY": "bench", "BOT_PAUSE_SECONDS": "0", "ROUND_PAUSE_SECONDS": "0",
           "DJANGO_SETTINGS_MODULE": "config.settings", "LOG_LEVEL": "WARNING",
           "DB_POOL_MAX": "8"}
    env.pop("CELERY_TASK_ALWAYS_EAGER", None)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env,
                   check=True)
    resources.redis_reset(redis_url)
    return env


def start_stack(env: dict, logdir: Path):
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from tests.integration.conftest import start_server, start_worker

    server, url = start_server(logdir, env)
    worker = start_worker(logdir, env, name="bench", concurrency=1)
    return server, worker, url


async def trivial_rate(url: str, concurrency: int, seconds: float) -> float:
    from tests.integration.client import Http

    clients = [Http(url) for _ in range(concurrency)]
    done = 0
    end = time.monotonic() + seconds

    async def loop(http):
        nonlocal done
        while time.monotonic() < end:
            await http("mutation { __typename }")
            done += 1

    start = time.monotonic()
    await asyncio.gather(*(loop(c) for c in clients))
    rate = done / (time.monotonic() - start)
    for c in clients:
        await c.close()
    return rate


class Table:
    """Two seats; each move awaits its event on both seats' sockets."""

    def __init__(self, url, players, table_id):
        self.url = url
        self.players = players
        self.table_id = table_id
        self.sockets = []
        self.subs = []
        self.latest = [None, None]
        self.arrivals: list[dict[int, float]] = [{}, {}]
        self.waiters: dict[int, asyncio.Event] = {}

    async def connect(self):
        from tests.integration.client import Socket
        from tests.integration.play import SUBSCRIBE

        for http in self.players:
            sock = await Socket(self.url, http.token).connect()
            sub = await sock.subscribe(SUBSCRIBE, {"id": self.table_id, "after": 0})
            self.sockets.append(sock)
            self.subs.append(sub)
        self.readers = [asyncio.create_task(self._read(i)) for i in range(2)]

    async def _read(self, i):
        while True:
            try:
                update = (await self.subs[i].next(timeout=120))["tableEvents"]
            except Exception:  # noqa: BLE001 - closed at the end
                return
            now = time.perf_counter()
            self.arrivals[i][update["version"]] = now
            if update["view"] is not None:
                self.latest[i] = update
            ev = self.waiters.get(update["version"])
            if ev and all(update["version"] in a for a in self.arrivals):
                ev.set()

    async def close(self):
        for sock in self.sockets:
            await sock.close()


async def play_tables(url: str, n_tables: int, seconds: float, over_socket: bool):
    from tests.integration.play import ACT, CREATE, JOIN, START, new_guest

    tables = []
    for t in range(n_tables):
        a = await new_guest(url, f"A{t}")
        b = await new_guest(url, f"B{t}")
        data = await a(CREATE, {"input": {"game": "kato", "seatCount": 2,
                                          "options": {"target_score": 1_000_000}}})
        table_id = data["createTable"]["table"]["id"]
        await b(JOIN, {"id": table_id})
        table = Table(url, [a, b], table_id)
        await table.connect()
        tables.append(table)
    for table in tables:
        await table.players[0](START, {"id": table.table_id})
    await asyncio.sleep(0.5)

    latencies: list[float] = []
    moves = 0
    end = time.monotonic() + seconds

    async def drive(table: Table):
        nonlocal moves
        import random

        rng = random.Random(table.table_id)
        while time.monotonic() < end:
            update = None
            for i in range(2):
                u = table.latest[i]
                if u and u["view"]["seat"] in u["view"]["actors"] and u["view"]["legalActions"]:
                    if update is None or u["version"] > update[1]["version"]:
                        update = (i, u)
            if update is None:
                await asyncio.sleep(0.002)
                continue
            i, u = update
            legal = u["view"]["legalActions"]
            plays = [a for a in legal if "play" in a]
            action = rng.choice(plays) if plays and rng.random() < 0.9 else rng.choice(legal)
            if "play" in action:
                action = {"play": {**action["play"], "call": True}}
            version = u["version"]
            table.waiters[version + 1] = ev = asyncio.Event()
            sent = time.perf_counter()
            variables = {"id": table.table_id, "a": action, "v": version}
            if over_socket:
                data = await table.sockets[i].execute(ACT, variables)
            else:
                data = await table.players[i](ACT, variables)
            if data["act"]["errors"]:
                table.latest[i] = None
                await asyncio.sleep(0.005)
                continue
            try:
                await asyncio.wait_for(ev.wait(), 10)
            except TimeoutError:
                continue
            latencies.append(max(a[version + 1] for a in table.arrivals) - sent)
            moves += 1

    start = time.monotonic()
    await asyncio.gather(*(drive(t) for t in tables))
    elapsed = time.monotonic() - start
    for t in tables:
        await t.close()
    return moves / elapsed, latencies


async def bot_latency(url: str, samples: int):
    """A person against a bot: from sending the person's move to the bot's move arriving."""
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
    deadline = time.monotonic() + 120
    while len(latencies) < samples and time.monotonic() < deadline:
        update = (await sub.next(timeout=30))["tableEvents"]
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
            await person(ACT, {"id": table_id, "a": action, "v": latest["version"]})
    await sock.close()
    return latencies


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


async def main_async(args, url, env):
    if args.trivial_clients:
        print(f"trivial mutation over HTTP ({args.trivial_clients} clients): "
              f"{await trivial_rate(url, args.trivial_clients, args.seconds):,.0f}/s")
    for n in args.tables:
        for over_socket in ((True,) if args.only_socket else (False, True)):
            rate, lat = await play_tables(url, n, args.seconds, over_socket)
            how = "websocket" if over_socket else "HTTP"
            print(f"{n:>3} tables, moves over {how:<9}: {rate:8,.0f} persisted moves/s, "
                  f"move->every seat p50 {pct(lat, 50) * 1000:6.1f} ms, "
                  f"p99 {pct(lat, 99) * 1000:6.1f} ms ({len(lat)} moves)")
    lat = await bot_latency(url, args.bot_samples)
    print(f"bot turn through the worker (pause 0): p50 {pct(lat, 50) * 1000:.1f} ms, "
          f"p99 {pct(lat, 99) * 1000:.1f} ms ({len(lat)} turns)")
    for clients in args.tables:
        print(f"pgbench single-row JSONB update, {clients} clients: "
              f"{pgbench_rate(env, clients, int(args.seconds)):,.0f}/s")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--tables", type=int, nargs="+", default=[8, 32])
    parser.add_argument("--trivial-clients", type=int, default=8)
    parser.add_argument("--bot-samples", type=int, default=200)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only-socket", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.seconds, args.tables, args.bot_samples = 4, [8], 30
    env = prepare_env()
    logdir = Path(tempfile.mkdtemp(prefix="stapel-bench-"))
    server, worker, url = start_stack(env, logdir)
    print(f"stack: 1 uvicorn worker, 1 Celery worker, PostgreSQL + Redis; logs in {logdir}")
    try:
        asyncio.run(main_async(args, url, env))
    finally:
        worker.stop()
        server.stop()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
