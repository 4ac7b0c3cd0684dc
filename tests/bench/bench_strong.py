"""Strength of the `strong` bots: one strong bot against heuristic bots, per game.

Run from the repo root: ``python tests/bench/bench_strong.py [--matches N] [--workers W]
[--games kato,karma] [--iterations I] [--time-ms T]``. It prints, per game, the win rate with
its 95 % interval, the mean placing and points of each level, and the strong bot's move time
(p50/p99). Four seats everywhere (Krass Kariert is judged by its chips, the points column).
A KaTO match is one round here (``{"rounds": 1}``: the default match to 500 points takes many
rounds) and a Krass Kariert match one chip each (one deal); the other games play their
defaults. ``--iterations``/``--time-ms`` default to the search's own defaults (the settings').
The same figures, with CSV/JSON/PNG output, come from ``manage.py simulate``. As in the
service, the strong seat is given its own redacted events of the round (``play_match``).
"""

from __future__ import annotations

import argparse
import os
import sys
from concurrent.futures import ProcessPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from games.bots.search import DEFAULT_ITERATIONS, DEFAULT_TIME_MS  # noqa: E402
from games.bots.simulate import MAX_MOVES, lineup_for, play_match, summarize  # noqa: E402

LINEUP = ["strong", "heuristic", "heuristic", "heuristic"]
GAMES = ("kato", "aetsch", "karma", "krass_kariert")
OPTIONS = {"kato": {"rounds": 1}, "krass_kariert": {"chips": 1}}


def _one(job):
    game, levels, seed, budget = job
    return play_match(game, levels, seed, OPTIONS.get(game), budget=budget)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=40)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS)
    parser.add_argument("--time-ms", type=float, default=DEFAULT_TIME_MS)
    args = parser.parse_args()
    budget = {"iterations": args.iterations, "time_ms": args.time_ms}
    for game in args.games.split(","):
        jobs = [(game, lineup_for(LINEUP, i), 77_000 + i, budget) for i in range(args.matches)]
        if args.workers > 1:
            with ProcessPoolExecutor(args.workers) as pool:
                matches = list(pool.map(_one, jobs))
        else:
            matches = [_one(job) for job in jobs]
        s = summarize(matches)
        print(f"\n{game}: {s['matches']} matches, strong vs 3 heuristic, budget {budget}"
              + (f" ({s['unfinished']} more given up after {MAX_MOVES} moves, left out)"
                 if s["unfinished"] else ""))
        for level, r in sorted(s["levels"].items()):
            lo, hi = r["ci95"]
            print(f"  {level:<10} win {r['win_rate']:.3f} [{lo:.3f}, {hi:.3f}]  placing "
                  f"{r['mean_placing']:.2f}±{r['placing_ci95']:.2f}  points "
                  f"{r['mean_score']:.1f}±{r['score_ci95']:.1f}")
        t = s["strong_move_ms"]
        print(f"  strong move p50 {t['p50']:.0f} ms, p99 {t['p99']:.0f} ms; "
              f"{s['mean_moves']:.0f} moves/match, {s['moves_per_second']:.0f} moves/s")


if __name__ == "__main__":
    main()
