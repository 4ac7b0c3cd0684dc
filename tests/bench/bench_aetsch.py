"""Ätsch, Ätsch benchmarks: engine speed on one core and bot strength. Prints figures only.

Run from the repo root: ``python tests/bench/bench_aetsch.py [--quick]``.

- Engine speed: 4 players, default options, every seat the random bot (uniform among the legal
  actions, a coin toss for each call it needs), ``legal_actions`` at every step; then the same
  with four heuristic bots (which also build a view per step), whose games are much shorter.
- Bot strength: one heuristic bot against three random bots over many 4-player games, its seat
  rotating; a random bot wins 25% by symmetry.
"""

from __future__ import annotations

import math
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from games.bots import BOTS  # noqa: E402
from games.engine import GAMES  # noqa: E402

GAME = GAMES["aetsch"]
PLAYERS = 4


def random_game(seed: int) -> int:
    """A whole match of random legal actions; returns the number of actions applied."""
    rnd = random.Random(seed)
    state = GAME.new_game(PLAYERS, seed)
    actions = 0
    while not GAME.is_over(state):
        seat = GAME.actors(state)[0]
        action = rnd.choice(GAME.legal_actions(state, seat))
        if action["type"] == "play" and len(state["hands"][seat]) <= 2 and rnd.random() < 0.5:
            action = {**action, "call": True}
        state, _ = GAME.apply(state, seat, action)
        actions += 1
    return actions


def bot_game(seed: int, levels: list[str]) -> tuple[dict, int]:
    rnd = random.Random(seed)
    bots = BOTS["aetsch"]
    state = GAME.new_game(PLAYERS, seed)
    actions = 0
    while not GAME.is_over(state):
        seat = GAME.actors(state)[0]
        action = bots[levels[seat]].choose(GAME.view(state, seat),
                                           GAME.legal_actions(state, seat), rnd)
        state, _ = GAME.apply(state, seat, action)
        actions += 1
    return GAME.result(state), actions


def engine_speed(budget: float) -> None:
    for label, play in (("random bots (uniform legal actions)", random_game),
                        ("heuristic bots (view + legal actions)",
                         lambda seed: bot_game(seed, ["heuristic"] * PLAYERS)[1])):
        games = actions = 0
        start = time.perf_counter()
        while time.perf_counter() - start < budget or games == 0:
            actions += play(10_000 + games)
            games += 1
        elapsed = time.perf_counter() - start
        print(f"engine speed, {PLAYERS} players, {label}: {actions / elapsed:,.0f} actions/s, "
              f"{games / elapsed:,.2f} games/s ({games} games, {actions / games:,.0f} actions "
              f"per game, {elapsed:.1f} s)")


def bot_strength(games: int) -> None:
    wins = 0
    placings = 0
    actions = 0
    start = time.perf_counter()
    for g in range(games):
        seat = g % PLAYERS
        levels = ["random"] * PLAYERS
        levels[seat] = "heuristic"
        result, n = bot_game(g, levels)
        place = result["placings"][seat]
        wins += place == 1
        placings += place
        actions += n
    rate = wins / games
    half = 1.96 * math.sqrt(rate * (1 - rate) / games)
    print(f"bot strength, heuristic vs 3 random, {games} games: win rate {rate:.1%} "
          f"(95% CI {max(0.0, rate - half):.1%}..{min(1.0, rate + half):.1%}; random wins 25%), "
          f"mean placing {placings / games:.2f}, {actions / games:,.0f} actions per game, "
          f"{time.perf_counter() - start:.1f} s")


def main() -> None:
    quick = "--quick" in sys.argv
    engine_speed(2.0 if quick else 20.0)
    bot_strength(200 if quick else 2000)


if __name__ == "__main__":
    main()
