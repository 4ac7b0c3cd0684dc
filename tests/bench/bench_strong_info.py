"""How much of a strong bot's gap is information, how much search: a measuring tool.

Run from the repo root: ``python tests/bench/bench_strong_info.py [--game kato|aetsch]
[--matches N] [--workers W] [--modes view,blind,none,next,all] [--iterations I]``. For each
mode it plays one-round matches of one strong bot against three heuristic bots (seats
rotated, the seeds of bench_strong.py) and prints the strong seat's win rate with its 95 %
interval:

* ``view``: the real strong bot, which samples hidden hands from its own view and history;
* ``blind``: the same, without reading the history into beliefs (``observe``);
* ``none``, ``next``, ``all``: the same search, but each sampled world is the TRUE state with
  the draw pile reshuffled and the hands of the other seats dealt again at random from it,
  except those it is told: none, the next seat's, all three.

Only this benchmark gives a searcher the true state, on purpose, to measure what knowing the
hands would be worth (``all`` is the ceiling of any inference from the history); the bots
never see it. The search budget is iterations only (no clock), so runs are comparable.
"""

from __future__ import annotations

import argparse
import copy
import os
import random
import sys
from concurrent.futures import ProcessPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from games.bots import levels  # noqa: E402
from games.bots.search import seat_history  # noqa: E402
from games.bots.simulate import lineup_for, summarize  # noqa: E402
from games.engine import GAMES  # noqa: E402

LINEUP = ["strong", "heuristic", "heuristic", "heuristic"]
MODES = ("view", "blind", "none", "next", "all")


def _told(mode: str, seat: int, state: dict) -> set:
    n = state["players"]
    if mode == "all":
        return set(range(n))
    if mode == "next":
        return {seat, (seat + state["direction"]) % n}
    return {seat}


def _truth_sampler(mode: str, truth: dict):
    """A determinizer that starts from the true state (see the module docstring)."""

    def determinize(info, rng, beliefs=None):
        s = copy.deepcopy(truth["state"])
        told = _told(mode, info.seat, s)
        pool = list(s["draw_pile"])
        hidden = [p for p in range(s["players"]) if p not in told]
        for p in hidden:
            pool += s["hands"][p]
        rng.shuffle(pool)
        for p in hidden:
            k = len(s["hands"][p])
            s["hands"][p], pool = pool[:k], pool[k:]
        s["draw_pile"] = pool
        s["rng"] = rng.getrandbits(62) + 1
        return s

    return determinize


def _one(job) -> dict:
    game, mode, index, iterations = job
    engine = GAMES[game]
    seats = lineup_for(LINEUP, index)
    bots = [levels(game)[level] for level in seats]
    truth: dict = {}
    strong = copy.copy(levels(game)["strong"])
    if mode == "blind":
        strong.observe = None
    elif mode != "view":
        strong.determinize = _truth_sampler(mode, truth)
    seed = 77_000 + index
    rng = random.Random(seed)
    state, events = engine.new_game_with_events(len(seats), seed, {"rounds": 1})
    events = list(events)
    moves = 0
    while not engine.is_round_over(state):
        actors = engine.actors(state)
        seat = actors[0] if len(actors) == 1 else rng.choice(actors)
        legal = engine.legal_actions(state, seat)
        view = engine.view(state, seat)
        bot_rng = random.Random(rng.getrandbits(64))
        if seats[seat] == "strong":
            truth["state"] = state
            action = strong.choose(view, legal, bot_rng, iterations=iterations, time_ms=0,
                                   history=seat_history(events, seat))
        else:
            action = bots[seat].choose(view, legal, bot_rng)
        state, new = engine.apply(state, seat, action)
        events.extend(new)
        moves += 1
    result = engine.result(state)
    return {"levels": seats, "placings": result["placings"], "scores": result["scores"],
            "moves": moves, "rounds": 1, "seconds": 0.0, "search_ms": []}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--game", default="kato", choices=("kato", "aetsch"))
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--iterations", type=int, default=300)
    args = parser.parse_args()
    for mode in args.modes.split(","):
        if mode not in MODES:
            parser.error(f"unknown mode {mode!r}: one of {', '.join(MODES)}")
        jobs = [(args.game, mode, i, args.iterations) for i in range(args.matches)]
        if args.workers > 1:
            with ProcessPoolExecutor(args.workers) as pool:
                matches = list(pool.map(_one, jobs))
        else:
            matches = [_one(job) for job in jobs]
        r = summarize(matches)["levels"]["strong"]
        lo, hi = r["ci95"]
        print(f"{args.game}, strong told {mode:<5} {r['matches']} matches: "
              f"win {r['win_rate']:.3f} [{lo:.3f}, {hi:.3f}], placing {r['mean_placing']:.2f}",
              flush=True)


if __name__ == "__main__":
    main()
