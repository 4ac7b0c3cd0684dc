"""Information-set search: the `strong` bot level of every game. Pure Python, no Django.

The searcher never sees the game state. ``SearchBot.choose`` gets what a person in the seat
gets (the seat's ``view``, its legal actions and, optionally, the events it was sent) and wraps
copies of them in an ``InfoSet``; nothing else reaches the search.

The search is determinized flat Monte Carlo with common random numbers, one step of policy
improvement over the game's heuristic:

* Each *world* is one full state sampled by the game's determinizer consistently with the
  seat's knowledge (the unseen cards shuffled into the hidden zones with the counts the view
  shows, the public zones as the view shows them), re-drawn for every world.
* In each world every candidate move is played and then the game continues with the heuristic
  for every seat, all candidates with the same playout seed. Averaged over worlds this values
  a move against the hidden cards the seat cannot know; comparing candidates world by world
  (paired) cancels most of the luck of the deal, which is what the choice rests on.
* A playout stops when the round ends (valued by the round's placings, a win counting far
  more than a good placing: the round's winner is what scores) or after ``depth`` moves
  (valued by the game's estimate of the seat's chance to win from the position, e.g. the
  share of a softmax over the cards each seat still holds).
* After ``screen_after`` worlds only the best ``keep_arms`` candidates (and the heuristic's)
  are played on, so the rest of the budget sharpens the comparison that matters.
* The heuristic's own move is kept unless another is better by ``confidence`` standard errors
  of the paired differences: with a few dozen worlds the best-looking of many candidates is
  often best by luck, and then the search alone would play worse than its prior.

Playouts read the sampled world directly (it is the search's own guess, never the real state)
through a light view with exactly the fields the heuristic reads, and apply the heuristic's
moves without the engine's input checks (the moves come from the engine's legal actions).

The budget is plain arguments: ``iterations`` (playouts) and ``time_ms`` (wall clock; 0 =
none; checked before every playout once one world is complete, a world cut short is dropped). With a seeded ``random.Random`` and no time limit reached, the move is deterministic.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from .base import Bot

DEFAULT_ITERATIONS = 300
DEFAULT_TIME_MS = 400
DEFAULT_DEPTH = 120


@dataclass(frozen=True)
class InfoSet:
    """Everything the seat may know, and nothing else: the search's only input."""

    seat: int
    view: dict
    legal: tuple
    history: tuple = field(default=())


class TimeUp(Exception):
    """The time budget ran out in the middle of a sampled world."""


class CannotSearch(Exception):
    """The determinizer has no model for this position (the bot falls back to the heuristic)."""


def unseen(full_deck: list, *known: list) -> list:
    """The cards of ``full_deck`` not in any of the ``known`` lists, sorted so that a seeded
    shuffle of them is reproducible. Known cards missing from the deck are ignored."""
    pool = Counter(full_deck)
    for cards in known:
        for card in cards:
            if pool[card] > 0:
                pool[card] -= 1
    return sorted(pool.elements())


def take(pool: list, count: int) -> list:
    """The last ``count`` cards of the (shuffled) ``pool``, removed from it."""
    if count <= 0:
        return []
    if count > len(pool):
        raise CannotSearch("the view asks for more hidden cards than the deck holds")
    out = pool[-count:]
    del pool[-count:]
    return out


def placing_reward(placings: list, seat: int) -> float:
    """1 for first, 0 for last, linear between: the round outcome seen from ``seat``."""
    n = len(placings)
    worst = max(placings)
    if worst <= 1:
        return 0.5
    return (worst - placings[seat]) / (worst - 1) if n > 1 else 0.5


def win_reward(placings: list, seat: int, rest: float = 0.2) -> float:
    """1 for a win; a placing behind the winner is worth at most ``rest``."""
    return 1.0 if placings[seat] == 1 else rest * placing_reward(placings, seat)


def win_share(left: list, seat: int, scale: float = 2.0, rest: float = 0.2) -> float:
    """A cut-off playout's value when going out first is what counts: the seat's share of a
    softmax over minus the cards each seat holds (``scale`` cards apart is a factor e), read as
    its chance to win, plus ``rest`` times its expected placing share otherwise."""
    low = min(left)
    weights = [math.exp((low - c) / scale) for c in left]
    p = weights[seat] / sum(weights)
    others = [c for i, c in enumerate(left) if i != seat]
    behind = sum(1.0 if c > left[seat] else 0.5 if c == left[seat] else 0.0
                 for c in others) / len(others) if others else 0.5
    return p + (1 - p) * rest * behind


def progress_reward(left: list, seat: int) -> float:
    """An estimate of the placing from the cards still held (fewer is better)."""
    mine = left[seat]
    others = [c for i, c in enumerate(left) if i != seat]
    if not others:
        return 0.5
    score = sum(1.0 if c > mine else 0.5 if c == mine else 0.0 for c in others)
    return score / len(others)


def _key(action: dict) -> str:
    return json.dumps(action, sort_keys=True)


class SearchBot(Bot):
    """Determinized flat Monte Carlo over one game's engine (see the module docstring).

    ``determinize(info, rng)`` samples a full state; ``evaluate(state, seat)`` values a cut-off
    playout in [0, 1]; ``heuristic`` is the playout policy and the fallback; ``rollout_view``
    (state, seat) is the light view the heuristic reads in playouts (default: the engine's).
    """

    level = "strong"
    description = ("searches sampled deals from its own view (information-set Monte Carlo) "
                   "with the heuristic as playout policy; never sees hidden cards")

    def __init__(self, engine, heuristic: Bot,
                 determinize: Callable[[InfoSet, random.Random], dict],
                 evaluate: Callable[[dict, int], float], *,
                 iterations: int = DEFAULT_ITERATIONS, time_ms: float = DEFAULT_TIME_MS,
                 depth: int = DEFAULT_DEPTH, confidence: float = 1.0, keep_arms: int = 6,
                 screen_after: int = 4,
                 searchable: Callable[[InfoSet], bool] | None = None,
                 reward: Callable[[list, int], float] = placing_reward,
                 expand: Callable[[dict, list], list] | None = None,
                 rollout_view: Callable[[dict, int], dict] | None = None):
        self.engine = engine
        self.heuristic = heuristic
        self.determinize = determinize
        self.evaluate = evaluate
        self.iterations = iterations
        self.time_ms = time_ms
        self.depth = depth
        self.confidence = confidence
        self.keep_arms = keep_arms
        self.screen_after = screen_after
        self.searchable = searchable
        self.reward = reward
        self.expand = expand
        self.rollout_view = rollout_view or engine.view

    def choose(self, view: dict, legal_actions: list[dict], rng: random.Random, *,
               iterations: int | None = None, time_ms: float | None = None,
               history: list | tuple = ()) -> dict:
        # Copies, so that nothing the caller holds (and nothing of the real state) is shared.
        info = InfoSet(seat=view["seat"], view=json.loads(json.dumps(view)),
                       legal=tuple(json.loads(json.dumps(legal_actions))),
                       history=tuple(json.loads(json.dumps(list(history)))))
        return self.search(info, rng, iterations=iterations, time_ms=time_ms)["action"]

    def search(self, info: InfoSet, rng: random.Random, *, iterations: int | None = None,
               time_ms: float | None = None) -> dict:
        """The chosen action and the search statistics (``iterations``, ``arms``)."""
        budget = self.iterations if iterations is None else iterations
        limit_ms = self.time_ms if time_ms is None else time_ms
        # The heuristic's choice is drawn first, so the RNG stream does not depend on timing.
        guess = self.heuristic.choose(info.view, list(info.legal), rng)
        arms: dict[str, dict] = {}
        candidates = self.expand(info.view, list(info.legal)) if self.expand else info.legal
        for action in candidates:
            arms.setdefault(_key(action), action)
        guess_key = _key(guess)
        if guess_key not in arms:
            arms[guess_key] = guess
        if len(arms) == 1 or budget <= 0 or (
                self.searchable is not None and not self.searchable(info)):
            return {"action": guess, "iterations": 0, "arms": {}}
        deadline = time.perf_counter() + limit_ms / 1000 if limit_ms else None
        keys = list(arms)
        rewards: dict[str, list[float]] = {k: [] for k in keys}
        done = 0
        try:
            while done + len(keys) <= budget or not done:
                if deadline is not None and done and time.perf_counter() > deadline:
                    break
                world = self.determinize(info, rng)
                seed = rng.getrandbits(64)
                worlds = len(rewards[keys[0]])
                for key in keys:
                    if deadline is not None and worlds and time.perf_counter() > deadline:
                        # Out of time within a world: drop its playouts, keep pairs whole.
                        for k in keys:
                            del rewards[k][worlds:]
                        raise TimeUp
                    rewards[key].append(self._playout(world, info.seat, arms[key],
                                                      random.Random(seed)))
                done += len(keys)
                if len(rewards[keys[0]]) == self.screen_after and len(keys) > self.keep_arms:
                    ranked = sorted(keys, key=lambda k: -sum(rewards[k]))
                    kept = set(ranked[:self.keep_arms]) | {guess_key}
                    keys = [k for k in keys if k in kept]
        except CannotSearch:
            return {"action": guess, "iterations": done, "arms": {}}
        except TimeUp:
            pass
        best_key = max(keys, key=lambda k: (sum(rewards[k]), k == guess_key))
        if best_key != guess_key:
            diffs = [b - g for b, g in zip(rewards[best_key], rewards[guess_key], strict=True)]
            w = len(diffs)
            mean = sum(diffs) / w
            var = sum((d - mean) ** 2 for d in diffs) / (w - 1) if w > 1 else 0.0
            if mean <= self.confidence * math.sqrt(var / w):
                best_key = guess_key
        return {"action": arms[best_key], "iterations": done,
                "arms": {k: (len(r), sum(r) / len(r) if r else None)
                         for k, r in rewards.items()}}

    def _playout(self, state: dict, seat: int, action: dict, rng: random.Random) -> float:
        engine = self.engine
        # The moves come from the engine's legal actions: its input checks are not needed.
        apply = engine._apply
        is_round_over = engine.is_round_over
        actors_of = engine.actors
        legal_of = engine.legal_actions
        view_of = self.rollout_view
        choose = self.heuristic.choose
        state, _ = apply(state, seat, action)
        for _ in range(self.depth):
            if is_round_over(state):
                return self.reward(engine.round_result(state)["placings"], seat)
            actors = actors_of(state)
            actor = actors[0] if len(actors) == 1 else rng.choice(actors)
            state, _ = apply(state, actor, choose(view_of(state, actor), legal_of(state, actor),
                                                  rng))
        if is_round_over(state):
            return self.reward(engine.round_result(state)["placings"], seat)
        return self.evaluate(state, seat)


def strong_bot(game_id: str) -> SearchBot:
    """The registered `strong` bot of a game."""
    from . import bot_for

    return bot_for(game_id, "strong")
