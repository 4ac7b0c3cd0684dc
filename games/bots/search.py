"""Information-set search: the `strong` bot level of every game. Pure Python, no Django.

The searcher never sees the game state. ``SearchBot.choose`` gets what a person in the seat
gets (the seat's ``view``, its legal actions and, optionally, the events it was sent) and wraps
them in an ``InfoSet``; nothing else reaches the search. Each step asks the game's
*determinizer* for one full state consistent with that knowledge (the unseen cards shuffled
into the hidden zones with the right counts, the public zones as the view shows them) and plays
every candidate move out in it with the game's heuristic for every seat, all with the same
playout seed (determinized Monte Carlo with common random numbers: averaged over the hidden
cards the seat cannot know, and compared pairwise, which cuts the noise of the comparison).
A playout that runs long is cut off and valued by the game's estimate from the cards left.
The heuristic's own move is kept unless another is better by a clear paired margin, so the
search only departs from a good prior when the sampled worlds say so.

The budget is plain arguments: ``iterations`` (work) and ``time_ms`` (wall clock; 0 = none).
With a seeded ``random.Random`` and no time limit reached, the move is deterministic.
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


def progress_reward(left: list, seat: int) -> float:
    """An estimate of the placing from the cards still held (fewer is better)."""
    mine = left[seat]
    others = [c for i, c in enumerate(left) if i != seat]
    if not others:
        return 0.5
    score = sum(1.0 if c > mine else 0.5 if c == mine else 0.0 for c in others)
    return score / len(others)


def lead_reward(left: list, seat: int, scale: float = 2.5) -> float:
    """A cut-off playout's value when going out first is what counts: how far ahead of the
    closest opponent the seat is, squashed into (0, 1)."""
    closest = min(c for i, c in enumerate(left) if i != seat)
    return 0.5 + 0.5 * math.tanh((closest - left[seat]) / scale)


def _key(action: dict) -> str:
    return json.dumps(action, sort_keys=True)


class SearchBot(Bot):
    """Determinized UCT at the root with heuristic rollouts, over one game's engine.

    ``determinize(info, rng)`` samples a full state; ``cards_left(state)`` scores a cut-off
    rollout; ``heuristic`` is the rollout policy and the fallback.
    """

    level = "strong"
    description = ("searches sampled deals from its own view (information-set Monte Carlo) "
                   "with the heuristic as playout policy; never sees hidden cards")

    def __init__(self, engine, heuristic: Bot,
                 determinize: Callable[[InfoSet, random.Random], dict],
                 cards_left: Callable[[dict], list], *, iterations: int = DEFAULT_ITERATIONS,
                 time_ms: float = DEFAULT_TIME_MS, depth: int = DEFAULT_DEPTH,
                 keep_margin: float = 0.0, confidence: float = 1.0, keep_arms: int = 6,
                 screen_after: int = 4,
                 searchable: Callable[[InfoSet], bool] | None = None,
                 reward: Callable[[list, int], float] = placing_reward,
                 expand: Callable[[dict, list], list] | None = None,
                 cutoff: Callable[[list, int], float] = progress_reward):
        self.engine = engine
        self.heuristic = heuristic
        self.determinize = determinize
        self.cards_left = cards_left
        self.iterations = iterations
        self.time_ms = time_ms
        self.depth = depth
        self.keep_margin = keep_margin
        self.confidence = confidence
        self.keep_arms = keep_arms
        self.screen_after = screen_after
        self.searchable = searchable
        self.reward = reward
        self.expand = expand
        self.cutoff = cutoff

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
        arms: dict[str, list] = {}
        candidates = self.expand(info.view, list(info.legal)) if self.expand else info.legal
        for action in candidates:
            arms.setdefault(_key(action), [action, 0, 0.0])
        guess_key = _key(guess)
        if guess_key not in arms:
            arms[guess_key] = [guess, 0, 0.0]
        if len(arms) == 1 or budget <= 0 or (
                self.searchable is not None and not self.searchable(info)):
            return {"action": guess, "iterations": 0, "arms": {}}
        deadline = time.perf_counter() + limit_ms / 1000 if limit_ms else None
        keys = list(arms)
        rewards: dict[str, list[float]] = {k: [] for k in keys}
        done = 0
        try:
            # Every candidate is played out in the same sampled world with the same playout
            # seed (common random numbers): the differences between candidates, which are
            # what the choice rests on, then vary far less than the rewards themselves.
            while done + len(keys) <= budget or not done:
                if deadline is not None and done and time.perf_counter() > deadline:
                    break
                world = self.determinize(info, rng)
                seed = rng.getrandbits(64)
                for key in keys:
                    rewards[key].append(self._playout(world, info.seat, arms[key][0],
                                                      random.Random(seed)))
                done += len(keys)
                worlds = len(rewards[keys[0]])
                if worlds == self.screen_after and len(keys) > self.keep_arms:
                    # Many candidates: keep the best few (and the heuristic's) for the rest.
                    ranked = sorted(keys, key=lambda k: -sum(rewards[k]))
                    kept = set(ranked[:self.keep_arms]) | {guess_key}
                    keys = [k for k in keys if k in kept]
        except CannotSearch:
            return {"action": guess, "iterations": done, "arms": {}}
        best_key = max(keys, key=lambda k: (sum(rewards[k]), k == guess_key))
        # Keep the heuristic's move unless the search found one clearly better (its paired
        # advantage over the heuristic's move is ``confidence`` standard errors above 0):
        # the heuristic is a good prior, and a noisy search alone plays worse than it.
        if best_key != guess_key:
            diffs = [b - g for b, g in zip(rewards[best_key], rewards[guess_key], strict=True)]
            w = len(diffs)
            mean = sum(diffs) / w
            var = sum((d - mean) ** 2 for d in diffs) / (w - 1) if w > 1 else 0.0
            if mean <= self.keep_margin + self.confidence * math.sqrt(var / w):
                best_key = guess_key
        return {"action": arms[best_key][0], "iterations": done,
                "arms": {k: (len(r), sum(r) / len(r) if r else None)
                         for k, r in rewards.items()}}

    def _playout(self, state: dict, seat: int, action: dict, rng: random.Random) -> float:
        engine = self.engine
        state, _ = engine.apply(state, seat, action)
        policy = self.heuristic
        for _ in range(self.depth):
            if engine.is_round_over(state):
                return self.reward(engine.round_result(state)["placings"], seat)
            actors = engine.actors(state)
            actor = actors[0] if len(actors) == 1 else rng.choice(actors)
            legal = engine.legal_actions(state, actor)
            state, _ = engine.apply(state, actor,
                                    policy.choose(engine.view(state, actor), legal, rng))
        if engine.is_round_over(state):
            return self.reward(engine.round_result(state)["placings"], seat)
        return self.cutoff(self.cards_left(state), seat)


def strong_bot(game_id: str) -> SearchBot:
    """The registered `strong` bot of a game."""
    from . import bot_for

    return bot_for(game_id, "strong")
