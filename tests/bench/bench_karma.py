"""Karma benchmarks: engine speed and the heuristic bot's strength.

Run from the repo root: ``python tests/bench/bench_karma.py [--quick] [--matches N]``.

Engine speed: whole games with 4 players, uniformly random legal actions with
``legal_actions`` enumerated at every step (as a bot must); ``apply`` is the real, pure one.

Bot strength: the heuristic bot against three random bots in 4-player games, its seat
rotating; Karma has one loser per game, so random play loses 25% and places 2.5 on average.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import random
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from games.bots import BOTS  # noqa: E402
from games.engine.karma import KARMA  # noqa: E402


def engine_speed(seconds: float, players: int = 4, seed: int = 1,
                 options: dict | None = None) -> tuple[float, float, float]:
    """(actions/s, games/s, actions per game) with random legal actions."""
    rnd = random.Random(seed)
    legal_actions, apply, actors = KARMA.legal_actions, KARMA.apply, KARMA.actors
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = KARMA.new_game(players, rnd.randrange(1 << 30), options)
        while state["phase"] != "over":
            seats = actors(state)
            seat = seats[0] if len(seats) == 1 else rnd.choice(seats)
            state, _ = apply(state, seat, rnd.choice(legal_actions(state, seat)))
            steps += 1
        games += 1
    elapsed = time.perf_counter() - start
    return steps / elapsed, games / elapsed, steps / games


def bot_strength(matches: int, seed: int = 7, hero_level: str = "heuristic",
                 players: int = 4) -> tuple[float, float]:
    """(loss rate, mean placing) of one ``hero_level`` bot vs random bots."""
    bots = BOTS["karma"]
    hero_bot, random_bot = bots[hero_level], bots["random"]
    rnd = random.Random(seed)
    losses = places = 0
    for m in range(matches):
        hero = m % players
        policy = [hero_bot if s == hero else random_bot for s in range(players)]
        state = KARMA.new_game(players, rnd.randrange(1 << 30))
        while state["phase"] != "over":
            seats = KARMA.actors(state)
            seat = seats[0] if len(seats) == 1 else rnd.choice(seats)
            action = policy[seat].choose(KARMA.view(state, seat),
                                         KARMA.legal_actions(state, seat), rnd)
            state, _ = KARMA.apply(state, seat, action)
        placing = KARMA.round_result(state)["placings"][hero]
        losses += placing == players
        places += placing
    return losses / matches, places / matches


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="short runs")
    parser.add_argument("--profile", action="store_true", help="cProfile the engine loop")
    parser.add_argument("--matches", type=int, default=None)
    args = parser.parse_args()
    seconds = 1.5 if args.quick else 5.0
    matches = args.matches or (300 if args.quick else 2000)

    if args.profile:
        cProfile.runctx("engine_speed(seconds)", globals(), {"seconds": seconds},
                        "/tmp/karma.prof")
        pstats.Stats("/tmp/karma.prof").sort_stats("tottime").print_stats(15)

    for options in ({"foresight": False}, {"foresight": True}):
        steps, games, per_game = engine_speed(seconds, options=options)
        print(f"Karma engine (4 players, {options}, random legal actions, legal_actions every "
              f"step, pure apply):")
        print(f"  {steps:,.0f} actions/s, {games:,.1f} games/s ({per_game:,.0f} actions per game)")

    for level in ("random", "heuristic"):
        start = time.perf_counter()
        loss, placing = bot_strength(matches, hero_level=level)
        print(f"{level.capitalize()} bot vs 3 random bots, {matches} 4-player games: "
              f"loses {loss:.1%} (random: 25%), mean placing {placing:.2f} (random: 2.50) "
              f"({time.perf_counter() - start:.0f}s)")


if __name__ == "__main__":
    main()
