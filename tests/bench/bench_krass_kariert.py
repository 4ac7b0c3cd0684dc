"""Krass Kariert benchmark: engine speed and bot strength. Prints figures, asserts nothing.

Run from the repo root: ``python tests/bench/bench_krass_kariert.py [--quick]``.

- Engine speed on one core: 4 players, random legal actions, ``legal_actions`` at every step.
- Bot strength: 1 heuristic + 3 random bots (the heuristic's seat rotates), chips lost per
  match (every deal lost counts one, the match-ending one included) and matches lost; the
  same for 3 and 5 players, and against a greedy baseline defined here.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from games.bots import BOTS, Bot  # noqa: E402
from games.engine import GAMES  # noqa: E402

GAME = GAMES["krass_kariert"]


class GreedyBot(Bot):
    """A tougher baseline than random (bench only): plays the legal combination with the most
    cards, weakest first; else a `draw`, then a `stop`; takes a reserve only when it must."""

    level = "greedy"

    def choose(self, view, legal_actions, rng):
        plays = [a for a in legal_actions if a["type"] == "play"]
        if not plays:  # a reserve card or a drawn card: the first position
            return legal_actions[0]
        order = {"stop": -2, "draw": -1}
        return max(plays, key=lambda a: (a["kind"] not in order, a["count"],
                                         -a.get("rank", 0), order.get(a["kind"], 0)))


def engine_speed(matches: int, players: int = 4) -> dict:
    actions = deals = 0
    start = time.perf_counter()
    for seed in range(matches):
        rnd = random.Random(seed)
        state = GAME.new_game(players, seed)
        deals += 1
        while not GAME.is_over(state):
            if GAME.is_round_over(state):
                state, _ = GAME.start_next_round(state)
                deals += 1
                continue
            seat = GAME.actors(state)[0]
            action = rnd.choice(GAME.legal_actions(state, seat))
            state, _ = GAME.apply(state, seat, action)
            actions += 1
    elapsed = time.perf_counter() - start
    return {"matches": matches, "deals": deals, "actions": actions, "seconds": elapsed,
            "actions_per_s": actions / elapsed, "deals_per_s": deals / elapsed,
            "matches_per_s": matches / elapsed}


def play_match(bots: list, seed: int, options: dict | None = None) -> tuple[list, int]:
    """Play one match; returns (deals lost by seat, match loser)."""
    rnd = random.Random(seed)
    players = len(bots)
    state = GAME.new_game(players, seed, options)
    lost = [0] * players
    while True:
        if GAME.is_round_over(state):
            lost[GAME.round_result(state)["loser"]] += 1
            if GAME.is_over(state):
                return lost, GAME.result(state)["loser"]
            state, _ = GAME.start_next_round(state)
            continue
        seat = GAME.actors(state)[0]
        action = bots[seat].choose(GAME.view(state, seat), GAME.legal_actions(state, seat), rnd)
        state, _ = GAME.apply(state, seat, action)


def bot_strength(matches: int, players: int = 4, challenger: str = "heuristic",
                 field: str = "random") -> dict:
    levels = {**BOTS["krass_kariert"], "greedy": GreedyBot()}
    hero_lost = field_lost = hero_matches_lost = 0
    start = time.perf_counter()
    for m in range(matches):
        hero = m % players
        bots = [levels[challenger] if s == hero else levels[field] for s in range(players)]
        lost, loser = play_match(bots, 10_000 + m)
        hero_lost += lost[hero]
        field_lost += sum(lost) - lost[hero]
        hero_matches_lost += loser == hero
    elapsed = time.perf_counter() - start
    return {"players": players, "matches": matches, "seconds": elapsed,
            "hero_chips_lost": hero_lost / matches,
            "field_chips_lost": field_lost / (matches * (players - 1)),
            "hero_match_loss_rate": hero_matches_lost / matches,
            "fair_match_loss_rate": 1 / players}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a fast, rough run")
    args = parser.parse_args()
    speed_matches, strength_matches = (30, 200) if args.quick else (300, 1000)

    s = engine_speed(speed_matches)
    print(f"engine, 4 players, random legal actions (legal_actions every step), "
          f"{s['matches']} matches, {s['deals']} deals, {s['actions']} actions "
          f"in {s['seconds']:.2f} s:")
    print(f"  {s['actions_per_s']:,.0f} actions/s, {s['deals_per_s']:,.1f} deals/s, "
          f"{s['matches_per_s']:,.2f} matches/s")

    for players in (4, 3, 5):
        count = strength_matches if players == 4 else strength_matches // 2
        r = bot_strength(count, players)
        print(f"bot strength, 1 heuristic + {players - 1} random, {r['matches']} matches "
              f"({r['seconds']:.1f} s):")
        print(f"  chips lost per match: heuristic {r['hero_chips_lost']:.2f}, "
              f"random {r['field_chips_lost']:.2f} (each)")
        print(f"  matches lost: heuristic {r['hero_match_loss_rate']:.1%} "
              f"(an equal share would be {r['fair_match_loss_rate']:.1%})")

    r = bot_strength(strength_matches // 2, 4, field="greedy")
    print(f"bot strength, 1 heuristic + 3 greedy (bench-only baseline), {r['matches']} matches "
          f"({r['seconds']:.1f} s):")
    print(f"  chips lost per match: heuristic {r['hero_chips_lost']:.2f}, "
          f"greedy {r['field_chips_lost']:.2f} (each)")
    print(f"  matches lost: heuristic {r['hero_match_loss_rate']:.1%} "
          f"(an equal share would be {r['fair_match_loss_rate']:.1%})")


if __name__ == "__main__":
    main()
