"""Repeat meetings at multi-seat tables: Swiss and arena over 5 rounds, before and after.

Run from the repo root: ``python tests/bench/bench_pairing.py [--fields 24 60] [--size 4]
[--rounds 5] [--trials 20]``. Pure functions, no database; a few seconds.

Each trial draws players with hidden strengths; every round they are paired (Swiss: by the
standing; arena: everyone waits, in the order their last table finished), each table is
played by strength plus noise, and the standing is updated. Figures per player over the
whole tournament, averaged over the trials:

- repeats: opponents met again (a pair that meets a second time counts for both);
- first seats: the spread (most minus fewest) of how often a player sat first;
- byes twice: players with two byes while another had none (must be 0).

"Before" is the pairing as it was (the in-order search alone, the arena avoiding only the
last table, the best-ranked player always first at its table); "after" is the current one.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from tournaments import formats  # noqa: E402


def swiss_before(ranked, size, history, byes):
    """Swiss as it was: the in-order search alone, seats in standing order."""
    out = formats._choose_byes(ranked, len(ranked) % size, byes)
    playing = [p for p in ranked if p not in out]
    return formats.Pairing(tuple(formats._partition(playing, size, formats.meetings(history))),
                           tuple(out))


def arena_before(waiting, size, last):
    """The arena as it was: only each player's last table avoided."""
    count = len(waiting) // size
    met = Counter()
    for player, others in last.items():
        for other in others:
            met[(min(player, other), max(player, other))] = 1
    return formats.ArenaPairing(formats._partition(waiting[:count * size], size, met),
                                list(waiting[count * size:]))


def _play(table, strength, rng):
    order = sorted(table, key=lambda p: -(strength[p] + rng.gauss(0, 1.0)))
    return {p: i for i, p in enumerate(order, start=1)}


def _figures(players, history, byes):
    met = Counter()
    repeats = 0
    for table in history:
        for i, a in enumerate(table):
            for b in table[i + 1:]:
                pair = (min(a, b), max(a, b))
                if met[pair]:
                    repeats += 2
                met[pair] += 1
    firsts = Counter(t[0] for t in history)
    spread = max(firsts.get(p, 0) for p in players) - min(firsts.get(p, 0) for p in players)
    twice = sum(1 for p in players if byes[p] >= 2) if any(
        byes[p] == 0 for p in players) else 0
    return repeats / len(players), spread, twice


def swiss_trial(n, size, rounds, seed, legacy):
    rng = random.Random(seed)
    players = list(range(n))
    strength = {p: rng.gauss(0, 1) for p in players}
    history, results, seats_of, all_byes = [], [], [], []
    byes = Counter()
    ranked = formats.seeded_order(players, seed)
    for _ in range(rounds):
        pairing = (swiss_before(ranked, size, history, byes) if legacy else
                   formats.swiss(ranked, table_size=size, history=history, bye_counts=byes))
        history += pairing.tables
        byes.update(pairing.byes)
        all_byes += pairing.byes
        for table in pairing.tables:
            results.append(_play(table, strength, rng))
            seats_of.append(size)
        lines = formats.standings(players, results, all_byes, table_size=size,
                                  seats_of=seats_of)
        ranked = [ln.player for ln in lines]
    return _figures(players, history, byes)


def arena_trial(n, size, rounds, seed, legacy):
    rng = random.Random(seed)
    players = list(range(n))
    history, last = [], {}
    waiting = rng.sample(players, n)
    for _ in range(rounds):
        pairing = (arena_before(waiting, size, last) if legacy else
                   formats.arena_pair(waiting, table_size=size, last_opponents=last,
                                      history=history))
        finished = []
        for table in pairing.tables:
            history.append(table)
            for p in table:
                last[p] = [o for o in table if o != p]
            finished.append(table)
        rng.shuffle(finished)  # tables finish in any order; their players queue again
        waiting = pairing.waiting + [p for t in finished for p in t]
    return _figures(players, history, Counter())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fields", type=int, nargs="+", default=[24, 60])
    parser.add_argument("--size", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--trials", type=int, default=20)
    args = parser.parse_args()
    print(f"tables of {args.size}, {args.rounds} rounds, {args.trials} trials each")
    print(f"{'format':7} {'players':>7} {'':7} {'repeats/player':>15} {'first-seat spread':>18}"
          f" {'byes twice':>10} {'ms/round':>9}")
    for fmt, trial in (("swiss", swiss_trial), ("arena", arena_trial)):
        for n in args.fields:
            for label, legacy in (("before", True), ("after", False)):
                t0 = time.perf_counter()
                figs = [trial(n, args.size, args.rounds, seed, legacy)
                        for seed in range(args.trials)]
                ms = (time.perf_counter() - t0) * 1000 / (args.trials * args.rounds)
                rep = statistics.mean(f[0] for f in figs)
                spread = statistics.mean(f[1] for f in figs)
                twice = sum(f[2] for f in figs)
                print(f"{fmt:7} {n:7} {label:7} {rep:15.2f} {spread:18.2f} {twice:10}"
                      f" {ms:9.1f}")


if __name__ == "__main__":
    main()
