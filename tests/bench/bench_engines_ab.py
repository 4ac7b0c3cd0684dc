"""Engine speed of two checkouts side by side: every game's random-legal-action loop (the one its
bench_<game>.py measures) run against code tree A and tree B at the same time, round after round.

Run from a repo root: ``python tests/bench/bench_engines_ab.py OLD_TREE NEW_TREE [--rounds 8]
[--seconds 2]`` (e.g. a ``git worktree add --detach`` of the commit to compare with).

On a shared machine one run's figure moves by 10-30 % with the load, so the two trees of a pair
run concurrently (the same load hits both) and the table shows each tree's median, and the
median of the per-pair ratios, which is the figure to read. CPU time (process_time) is measured.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

GAMES = ("kato", "karma", "aetsch", "krass_kariert")

# Runs in a child process with the tree's root first on sys.path: each game's own bench loop
# from that tree's bench script (Ätsch's random policy also calls, or its matches never end).
CHILD = r"""
import importlib.util, os, random, sys, time
root, game, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
sys.path.insert(0, root)
spec = importlib.util.spec_from_file_location(
    "bench", os.path.join(root, "tests", "bench", f"bench_{game}.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)
import games
assert games.__file__.startswith(root), games.__file__
bench.time.perf_counter = time.process_time  # CPU time where a bench reads the wall clock
start = time.process_time()
if game in ("kato", "karma"):
    print(bench.engine_speed(seconds)[0])
    sys.exit()
steps = match = 0
while time.process_time() - start < seconds:
    if game == "aetsch":
        steps += bench.random_game(10_000 + match)
    else:  # krass_kariert: the loop of its engine_speed, one match per seed
        rnd, g, state = random.Random(match), bench.GAME, bench.GAME.new_game(4, match)
        while not g.is_over(state):
            if g.is_round_over(state):
                state, _ = g.start_next_round(state)
                continue
            seat = g.actors(state)[0]
            state, _ = g.apply(state, seat, rnd.choice(g.legal_actions(state, seat)))
            steps += 1
    match += 1
print(steps / (time.process_time() - start))
"""


def pair(trees: list[str], game: str, seconds: float) -> list[float]:
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, tree, game, str(seconds)],
                              stdout=subprocess.PIPE, text=True, cwd=tree) for tree in trees]
    return [float(p.communicate()[0]) for p in procs]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    trees = [os.path.abspath(args.old), os.path.abspath(args.new)]
    runs: dict[str, list[list[float]]] = {g: [] for g in GAMES}
    for r in range(args.rounds):
        for game in GAMES:
            # Alternate which tree starts first, in case starting order matters.
            order = 1 if r % 2 == 0 else -1
            old, new = pair(trees[::order], game, args.seconds)[::order]
            runs[game].append([old, new])
    print(f"actions/s (4 players, random legal actions), {args.rounds} concurrent pairs each")
    print(f"{'game':14}{'old median':>14}{'new median':>14}{'new/old per pair (median)':>28}")
    for game, pairs in runs.items():
        old = statistics.median(p[0] for p in pairs)
        new = statistics.median(p[1] for p in pairs)
        ratio = statistics.median(p[1] / p[0] for p in pairs)
        print(f"{game:14}{old:>14,.0f}{new:>14,.0f}{(ratio - 1) * 100:>+27.1f}%")


if __name__ == "__main__":
    main()
