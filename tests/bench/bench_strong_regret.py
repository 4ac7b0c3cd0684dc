"""How good are a bot's decisions, position by position: a measuring tool for the strong bots.

Run from the repo root: ``python tests/bench/bench_strong_regret.py [--game kato|aetsch]
[--matches N] [--stride S] [--worlds W] [--iterations I] [--workers W]
[--variants strong,nochecks,blind,heuristic]``.

A win rate over 1,000 matches has a 95 % interval of +-3 points, and two versions of a bot
drift apart within a few moves, so pairing matches does not narrow it much: a change worth
two points cannot be seen in an evening of simulation. This tool asks a sharper question of
each decision instead. Positions come from matches of four heuristic bots (every ``stride``-th
decision of the first round where the search has two candidates or more). For each, every
candidate move is valued by the strong bot's own playouts on ``worlds`` copies of the TRUE
state (the real hands, the draw pile reshuffled: what the seat would know if it saw every
hand but not the future), with common random numbers. A variant's regret at the position is
the value of the best candidate less the value of the move it chose; it prints each
variant's mean regret, how often it chose the best candidate, and its regret paired against
the first variant, with 95 % intervals, and its CPU time per decision.

Variants: ``strong`` (the strong bot as registered), ``nochecks`` (its history reading
without the whole-hand checks, ``Beliefs.checks``), ``blind`` (no history reading),
``heuristic``, and ``oracle`` (the same search on true-hand worlds: the floor that search
noise alone leaves). ``name:knob=value:...`` sets the search's knobs, e.g.
``strong:iterations=600:depth=15:confidence=0.5``. Candidates are valued by playouts of
``--judge-depth`` moves (to the round's end, as a rule) with the strong bot's heuristic. Only this benchmark gives playouts the true state, to value moves; the bots
it measures see their view and their seat's history only. Budgets are iterations (no clock),
so runs are deterministic and comparable.
"""

from __future__ import annotations

import argparse
import copy
import math
import os
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_strong_info import _truth_sampler  # noqa: E402

from games.bots import levels  # noqa: E402
from games.bots.search import InfoSet, _key, seat_history  # noqa: E402
from games.engine import GAMES  # noqa: E402

VARIANTS = ("strong", "nochecks", "blind", "heuristic", "oracle")


def positions(game: str, match: int, stride: int) -> list[dict]:
    """Decisions of the first round of a match of four heuristic bots, every ``stride``-th
    one with two candidates or more: the state, the seat, its view, legal actions, history."""
    engine = GAMES[game]
    strong = levels(game)["strong"]
    heuristic = levels(game)["heuristic"]
    seed = 91_000 + match
    rng = random.Random(seed)
    state, events = engine.new_game_with_events(4, seed, None)
    events = list(events)
    out, count = [], 0
    while not engine.is_round_over(state):
        actors = engine.actors(state)
        seat = actors[0] if len(actors) == 1 else rng.choice(actors)
        legal = engine.legal_actions(state, seat)
        view = engine.view(state, seat)
        arms = {_key(a) for a in (strong.expand(view, legal) if strong.expand else legal)}
        if len(arms) >= 2:
            count += 1
            if count % stride == 0:
                out.append({"state": state, "seat": seat, "view": view, "legal": legal,
                            "history": seat_history(events, seat),
                            "seed": rng.getrandbits(64)})
        action = heuristic.choose(view, legal, random.Random(rng.getrandbits(64)))
        state, new = engine.apply(state, seat, action)
        events.extend(new)
    return out


def _no_checks(observe):
    def reading(info):
        beliefs = observe(info)
        beliefs.checks = [[] for _ in beliefs.checks]
        return beliefs
    return reading


def _bots(game: str, truth: dict) -> dict:
    strong = levels(game)["strong"]
    nochecks = copy.copy(strong)
    nochecks.observe = _no_checks(strong.observe)
    blind = copy.copy(strong)
    blind.observe = None
    oracle = copy.copy(strong)
    oracle.determinize = _truth_sampler("all", truth)
    return {"strong": strong, "nochecks": nochecks, "blind": blind, "oracle": oracle,
            "heuristic": levels(game)["heuristic"]}


def _judge(job) -> dict:
    """Each variant's regret at one position."""
    game, position, variants, worlds, iterations, judge_depth = job
    truth = {"state": position["state"]}
    bots = _bots(game, truth)
    strong = bots["strong"]
    judge = copy.copy(strong)
    judge.depth = judge_depth
    seat, view, legal = position["seat"], position["view"], position["legal"]
    chosen, spent = {}, {}
    for name in variants:
        started = time.process_time()
        base, *knobs = name.split(":")
        bot = bots[base]
        rng = random.Random(position["seed"])
        if base == "heuristic":
            chosen[name] = bot.choose(view, legal, rng)
            spent[name] = time.process_time() - started
            continue
        budget = iterations
        if knobs:
            bot = copy.copy(bot)
            for knob in knobs:
                key, _, value = knob.partition("=")
                if key == "iterations":
                    budget = int(value)
                else:
                    setattr(bot, key, type(getattr(bot, key))(value))
        chosen[name] = bot.choose(view, legal, rng, time_ms=0, iterations=budget,
                                  history=position["history"])
        spent[name] = time.process_time() - started
    arms = {_key(a): a for a in (strong.expand(view, legal) if strong.expand else legal)}
    for action in chosen.values():
        arms.setdefault(_key(action), action)
    info = InfoSet(seat=seat, view=view, legal=tuple(legal))
    sample = _truth_sampler("all", truth)
    rng = random.Random(position["seed"] ^ 0x5EED)
    values = dict.fromkeys(arms, 0.0)
    for _ in range(worlds):
        world = sample(info, rng)
        seed = rng.getrandbits(64)
        for key, action in arms.items():
            values[key] += judge._playout(world, seat, action, random.Random(seed))
    best = max(values.values())
    return {name: ((best - values[_key(a)]) / worlds, values[_key(a)] == best, spent[name])
            for name, a in chosen.items()}


def _ci(values: list[float]) -> tuple[float, float]:
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    return mean, 1.96 * math.sqrt(var / n)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--game", default="kato", choices=("kato", "aetsch"))
    parser.add_argument("--matches", type=int, default=40)
    parser.add_argument("--stride", type=int, default=4)
    parser.add_argument("--worlds", type=int, default=48)
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--judge-depth", type=int, default=200)
    args = parser.parse_args()
    variants = args.variants.split(",")
    for name in variants:
        if name.split(":")[0] not in VARIANTS:
            parser.error(f"unknown variant {name!r}: one of {', '.join(VARIANTS)}")
    jobs = [(args.game, p, variants, args.worlds, args.iterations, args.judge_depth)
            for m in range(args.matches) for p in positions(args.game, m, args.stride)]
    if args.workers > 1:
        with ProcessPoolExecutor(args.workers) as pool:
            results = list(pool.map(_judge, jobs, chunksize=4))
    else:
        results = [_judge(job) for job in jobs]
    first = variants[0]
    print(f"{args.game}: {len(results)} positions of {args.matches} heuristic matches, "
          f"{args.worlds} true-hand worlds per candidate, {args.iterations} iterations")
    for name in variants:
        mean, half = _ci([r[name][0] for r in results])
        best = sum(r[name][1] for r in results) / len(results)
        ms = 1000 * sum(r[name][2] for r in results) / len(results)
        line = (f"  {name:<10} regret {mean:.4f} ± {half:.4f}  best move {best:.3f}  "
                f"{ms:.0f} ms CPU/decision")
        if name != first:
            d, dh = _ci([r[name][0] - r[first][0] for r in results])
            line += f"  regret - {first}'s: {d:+.4f} ± {dh:.4f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
