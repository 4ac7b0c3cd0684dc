"""Bot-vs-bot matches and their statistics, for ``manage.py simulate`` and the benchmarks.

Pure engine and bots: no database, no server. A match is driven the way the service drives
bots: whoever may act acts (a random one when several may, as in a KaTO call window), each
with its own view and legal actions only. Seats rotate from match to match so that the
advantage of a seat cancels out; levels, not seats, are what the statistics compare.
"""

from __future__ import annotations

import math
import random
import time
from collections import defaultdict

from games.engine import GAMES

from . import levels as bot_levels
from .search import seat_history


def lineup_for(levels: list[str], match_index: int) -> list[str]:
    """The level of each seat in match ``match_index``: the line-up rotated by one seat per
    match, so each level sits in every seat equally often."""
    k = match_index % len(levels)
    return levels[k:] + levels[:k]


# A match still going after this many moves is given up (``play_match``): a Karma match can
# go round for ever (the rules have no end for a pile passed round and round: seed
# 77000231081, three heuristic bots and a strong one, was past 10,000 moves where the mean is
# about 150), and one such match held a 1,000-match run up for good.
MAX_MOVES = 5_000


def play_match(game_id: str, levels: list[str], seed: int, options: dict | None = None, *,
               budget: dict | None = None, max_moves: int | None = MAX_MOVES) -> dict:
    """One match; ``levels[i]`` plays seat i. ``budget`` (``iterations``, ``time_ms``) goes
    to search bots. Returns placings, scores, moves, seconds and per-move search times;
    placings and scores are None (``finished`` False) when the match had not ended after
    ``max_moves`` moves (None: no limit)."""
    engine = GAMES[game_id]
    bots = [bot_levels(game_id)[level] for level in levels]
    rng = random.Random(seed)
    # The current round's events, from its deal on, as the service gives them to a strong
    # bot (its seat's redaction of the table log since the round began).
    state, round_events = engine.new_game_with_events(len(levels), seed, options)
    round_events = list(round_events)
    moves = 0
    rounds = 1
    search_ms: list[float] = []
    searchers = {seat for seat, bot in enumerate(bots) if getattr(bot, "level", "") == "strong"}
    started = time.perf_counter()
    while not engine.is_over(state):
        if max_moves is not None and moves >= max_moves:
            return {"levels": list(levels), "placings": None, "scores": None, "moves": moves,
                    "rounds": rounds, "seconds": time.perf_counter() - started,
                    "search_ms": search_ms, "finished": False}
        if engine.is_round_over(state):
            state, round_events = engine.start_next_round(state)
            round_events = list(round_events)
            rounds += 1
            continue
        actors = engine.actors(state)
        seat = actors[0] if len(actors) == 1 else rng.choice(actors)
        legal = engine.legal_actions(state, seat)
        bot = bots[seat]
        view = engine.view(state, seat)
        bot_rng = random.Random(rng.getrandbits(64))
        if seat in searchers:
            t0 = time.perf_counter()
            action = bot.choose(view, legal, bot_rng, **(budget or {}),
                                history=seat_history(round_events, seat))
            search_ms.append((time.perf_counter() - t0) * 1000)
        else:
            action = bot.choose(view, legal, bot_rng)
        state, events = engine.apply(state, seat, action)
        if searchers:
            round_events.extend(events)
        moves += 1
    result = engine.result(state)
    return {"levels": list(levels), "placings": list(result["placings"]),
            "scores": list(result["scores"]), "moves": moves, "rounds": rounds,
            "seconds": time.perf_counter() - started, "search_ms": search_ms,
            "finished": True}


def _mean_ci(values: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its normal 95 % confidence interval."""
    n = len(values)
    if not n:
        return 0.0, 0.0
    mean = sum(values) / n
    if n < 2:
        return mean, 0.0
    var = sum((x - mean) ** 2 for x in values) / (n - 1)
    return mean, 1.96 * math.sqrt(var / n)


def _wilson(wins: float, n: int) -> tuple[float, float]:
    """The Wilson 95 % interval of a proportion (good near 0 and 1 and for small n)."""
    if not n:
        return 0.0, 0.0
    z = 1.96
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))]


def summarize(matches: list[dict]) -> dict:
    """Per level: seats played (``matches``), wins (a shared first place counts as a win),
    win rate with its Wilson 95 % interval, mean placing and mean score with normal 95 %
    half-widths, over the matches that ended; overall: the win rate of a level no better than
    the others (``fair_share``), how many did not end (``unfinished``), mean match length (of
    those that ended), moves per second and search times (of all)."""
    per: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    ended = [m for m in matches if m["placings"] is not None]
    for m in ended:
        for seat, level in enumerate(m["levels"]):
            place = m["placings"][seat]
            per[level]["win"].append(1.0 if place == 1 else 0.0)
            per[level]["placing"].append(float(place))
            per[level]["score"].append(float(m["scores"][seat]))
    levels = {}
    for level, data in per.items():
        n = len(data["win"])
        wins = sum(data["win"])
        lo, hi = _wilson(wins, n)
        placing, placing_ci = _mean_ci(data["placing"])
        score, score_ci = _mean_ci(data["score"])
        levels[level] = {"matches": n, "wins": int(wins), "win_rate": wins / n if n else 0.0,
                         "ci95": [lo, hi], "mean_placing": placing,
                         "placing_ci95": placing_ci, "mean_score": score,
                         "score_ci95": score_ci}
    seats = sum(r["matches"] for r in levels.values())
    total_moves = sum(m["moves"] for m in matches)
    total_seconds = sum(m["seconds"] for m in matches)
    times = [t for m in matches for t in m["search_ms"]]
    return {
        "matches": len(ended),
        "unfinished": len(matches) - len(ended),
        "levels": levels,
        # What every level would win if all played alike: wins per seat over all seats. 1/n
        # where one seat wins each match; more where first places are shared (Krass
        # Kariert: all but the loser share it).
        "fair_share": sum(r["wins"] for r in levels.values()) / seats if seats else 0.0,
        "mean_moves": sum(m["moves"] for m in ended) / len(ended) if ended else 0.0,
        "mean_rounds": sum(m["rounds"] for m in ended) / len(ended) if ended else 0.0,
        "moves_per_second": total_moves / total_seconds if total_seconds else 0.0,
        "strong_move_ms": {"count": len(times), "p50": percentile(times, 50),
                           "p99": percentile(times, 99),
                           "max": max(times) if times else None},
    }
