"""Information-set search: the `strong` bot level of every game. Pure Python, no Django.

The searcher never sees the game state. ``SearchBot.choose`` gets what a person in the seat
gets (the seat's ``view``, its legal actions and, optionally, the events it was sent) and wraps
copies of them in an ``InfoSet``; nothing else reaches the search.

The search is determinized flat Monte Carlo with common random numbers, one step of policy
improvement over the game's heuristic:

* Each *world* is one full state sampled by the game's determinizer consistently with the
  seat's knowledge (the unseen cards shuffled into the hidden zones with the counts the view
  shows, the public zones as the view shows them), re-drawn for every world. The game's
  ``observe`` reads the seat's history once per move into ``Beliefs`` (cards a seat is known
  to hold, cards it cannot hold: it drew instead of playing, or the heuristic's habits say it
  would have played them), and the hidden hands are dealt within those.
* In each world every candidate move is played and then the game continues with the heuristic
  for every seat, all candidates with the same playout seed. Averaged over worlds this values
  a move against the hidden cards the seat cannot know; comparing candidates world by world
  (paired) cancels most of the luck of the deal, which is what the choice rests on.
* A playout stops when the round ends (valued by the round's placings, a win counting far
  more than a good placing: the round's winner is what scores; or by the game's
  ``round_value`` of the finished round, e.g. KaTO's chance to win the match from the totals
  it leaves) or after ``depth`` moves
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
none; checked before every world and every playout move, so a move overruns it by at most one
playout step; a world cut short is dropped, and with no whole world the heuristic's move is
played). The clock draws nothing from the RNG: with a seeded ``random.Random`` and no time
limit reached, the move is deterministic.
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

# The search's clock (a module attribute, so that tests can drive time without waiting).
clock = time.perf_counter


@dataclass(frozen=True)
class InfoSet:
    """Everything the seat may know, and nothing else: the search's only input."""

    seat: int
    view: dict
    legal: tuple
    history: tuple = field(default=())


def seat_history(events, seat: int) -> list[dict]:
    """The events as sent to ``seat`` (games/realtime.py ``redact_events``, kept pure here):
    those visible to it, without the audience field. What a strong bot may be given."""
    out = []
    for e in events:
        to = e.get("visible_to", "all")
        if to == "all" or seat in to:
            out.append({k: v for k, v in e.items() if k != "visible_to"})
    return out


DEALT = 1_000_000


class Beliefs:
    """What the public history tells about each seat's hidden hand, kept while reading it.

    ``known[p]``: cards seat ``p`` is known to hold (a pile it took, a card the seat gave it);
    ``groups[p]``: its other cards as ``[count, forbidden]`` groups, oldest first, where
    ``forbidden`` is a set of card features (e.g. ``"s:hearts"``, ``"joker"``) none of the
    group's cards has: a player who drew instead of playing held no card that fitted, but
    the cards it drew afterwards may fit. Counts are reconciled with the view when a world
    is dealt (``deal``), so a reading that lost track costs information, never consistency.

    ``checks[p]``: what a choice of ``p`` tells about its whole hand, which no feature of
    single cards can say (e.g. a colour wished is the colour the heuristic holds most of), as
    ``[check, played, received]``: ``check(hand)`` holds for its hand at that choice, which is
    its hand now plus the cards it ``played`` since, less those it was given face up
    (``received``). A change the seat did not see (a draw, a card given away unseen) ends
    what the check can say. Only the ``max_checks`` newest are kept (each costs a look at
    every hand dealt). ``deal`` with an RNG deals a seat again (up to ``redeals`` times)
    until its checks hold; a hand that never passes is kept (a person may wish otherwise),
    and after ``give_up_after`` such worlds the seat's checks are no longer dealt for (what
    the rest of the reading allows seems to contradict them: no use paying for them).
    """

    redeals = 24
    max_checks = 4
    give_up_after = 3

    def __init__(self, players: int, features: Callable[[str], tuple]):
        self.players = players
        self.features = features
        self.known: list[list] = [[] for _ in range(players)]
        # The cards dealt, as many as there were: ``deal`` gives the oldest group what the
        # view's count leaves, so the reading need not know the size of the deal.
        self.groups: list[list[list]] = [[[DEALT, set()]] for _ in range(players)]
        self.checks: list[list[list]] = [[] for _ in range(players)]
        self.misses = [0] * players  # worlds in which no hand dealt met a seat's checks

    def require(self, p: int, check: Callable[[list], bool]) -> None:
        """``check(hand)`` holds for ``p``'s hand as it is now (see ``checks``)."""
        checks = self.checks[p]
        checks.append([check, [], []])
        if len(checks) > self.max_checks:
            del checks[0]

    def holds(self, p: int, hand: list) -> bool:
        """Whether ``hand`` as ``p``'s hand now meets every check of ``p``."""
        for check, played, received in self.checks[p]:
            then = list(hand) + played
            for card in received:
                if card in then:
                    then.remove(card)
            if not check(then):
                return False
        return True

    def add_unknown(self, p: int, count: int) -> None:
        if count > 0:
            self.groups[p].append([count, set()])
            self.checks[p] = []

    def add_known(self, p: int, cards) -> None:
        self.known[p].extend(cards)
        for _, _, received in self.checks[p]:
            received.extend(cards)

    def forbid(self, p: int, forbidden, *, skip_newest: int = 0) -> None:
        """No card ``p`` holds now (but the ``skip_newest`` newest groups) has these."""
        groups = self.groups[p]
        for group in groups[:len(groups) - skip_newest]:
            group[1].update(forbidden)

    def remove(self, p: int, card: str) -> None:
        """``p`` played or gave ``card``: from its known cards, else from the most
        constrained of its groups that may hold it (cautious, as ``remove_unknown``)."""
        for _, played, _ in self.checks[p]:
            played.append(card)
        if card in self.known[p]:
            self.known[p].remove(card)
            return
        features = set(self.features(card))
        for group in sorted(self.groups[p], key=lambda g: -len(g[1])):
            if group[0] > 0 and not group[1] & features:
                group[0] -= 1
                self._clean(p)
                return
        self.remove_unknown(p, 1)

    def remove_unknown(self, p: int, count: int = 1) -> None:
        """``p`` lost cards the seat did not see: taken from the most constrained groups (the
        cautious reading: it forgets constraints rather than invents them). They may have
        been known ones, so none is known any more."""
        self.checks[p] = []
        if self.known[p]:
            self.add_unknown(p, len(self.known[p]))
            self.known[p] = []
        for group in sorted(self.groups[p], key=lambda g: -len(g[1])):
            if count <= 0:
                break
            k = min(count, group[0])
            group[0] -= k
            count -= k
        self._clean(p)

    def reveal(self, p: int, cards) -> None:
        """``p``'s whole hand was shown to the seat."""
        self.known[p] = list(cards)
        self.groups[p] = []
        self.checks[p] = []

    def swap(self, a: int, b: int) -> None:
        self.known[a], self.known[b] = self.known[b], self.known[a]
        self.groups[a], self.groups[b] = self.groups[b], self.groups[a]
        self.checks[a], self.checks[b] = self.checks[b], self.checks[a]

    def clear(self, p: int) -> None:
        self.known[p] = []
        self.groups[p] = []
        self.checks[p] = []

    def _clean(self, p: int) -> None:
        self.groups[p] = [g for g in self.groups[p] if g[0] > 0]

    def deal(self, pool: list, counts: dict[int, int],
             rng: random.Random | None = None) -> dict[int, list]:
        """Hands for the seats in ``counts`` (seat -> cards held) from the shuffled ``pool``
        (the cards the seat has not seen), removed from it: known cards first, then each
        group's cards among those without its forbidden features, the most constrained
        groups first. A constraint no card left can meet is dropped (a human may draw
        while holding a card that fits). With ``rng``, a seat whose hand fails its
        ``checks`` gives it back and is dealt again from the reshuffled rest, seat by seat
        (rejection sampling of each hand given the others)."""
        hands = self._deal(pool, counts)
        if rng is None:
            return hands
        for p in counts:
            if not self.checks[p] or self.misses[p] >= self.give_up_after:
                continue
            for _ in range(self.redeals):
                if self.holds(p, hands[p]):
                    break
                pool.extend(hands[p])
                rng.shuffle(pool)
                hands[p] = self._deal(pool, {p: counts[p]})[p]
            else:
                self.misses[p] += not self.holds(p, hands[p])
        return hands

    def _deal(self, pool: list, counts: dict[int, int]) -> dict[int, list]:
        hands: dict[int, list] = {}
        todo = []
        for p, count in counts.items():
            hand = []
            for card in self.known[p]:
                if len(hand) < count and card in pool:
                    pool.remove(card)
                    hand.append(card)
            hands[p] = hand
            need = count - len(hand)
            for group in reversed(self.groups[p]):  # the newest cards are the likeliest kept
                k = min(need, group[0])
                if k > 0 and group[1]:
                    todo.append((len(group[1]), p, k, group[1]))
                need -= k
            todo.append((0, p, count - len(hand) - sum(t[2] for t in todo if t[1] == p),
                         None))
        todo.sort(key=lambda t: -t[0])
        features = self.features
        for _, p, k, forbidden in todo:
            if k <= 0:
                continue
            if forbidden is None:
                hands[p].extend(take(pool, k))
                continue
            picked = []
            for i in range(len(pool) - 1, -1, -1):
                if forbidden.isdisjoint(features(pool[i])):
                    picked.append(i)
                    if len(picked) == k:
                        break
            chosen = [pool[i] for i in picked]
            for i in picked:  # descending indexes: each deletion leaves the rest in place
                del pool[i]
            hands[p].extend(chosen)
            hands[p].extend(take(pool, k - len(chosen)))
        return hands


def counts_before(history: tuple, counts: list, undo: Callable[[list, dict], None]) -> list:
    """Every seat's hand size before each event of the round (None before the round),
    worked back from the view's ``counts``; ``undo(counts, event)`` takes one event back."""
    now = list(counts)
    out: list = [None] * len(history)
    for i in range(len(history) - 1, -1, -1):
        e = history[i]
        if e.get("type") == "round_started":
            break
        undo(now, e)
        out[i] = list(now)
    return out


def among_best(scored, mine: Callable[[dict], bool], slack: float = 0.0) -> bool:
    """Whether a play ``mine`` picks out of ``scored`` (``(action, score)`` pairs, a
    heuristic's) scores within ``slack`` of the best: a play the heuristic may have made."""
    best = ours = None
    for action, score in scored:
        best = score if best is None else max(best, score)
        if mine(action):
            ours = score
    return ours is not None and ours >= best - slack - 1e-9


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


def discarded(history: tuple, discard_count: int) -> list | None:
    """The discard pile below its top card, read from the seat's history of the round: the
    card turned up and every card played since, back to the top card alone where the pile was
    reshuffled into the draw pile. They were all shown to every seat, so a sampled world must
    not deal them into hands. None where the history does not account for the view's count
    (a history cut short, a bot given none): the pile is then sampled as unseen cards."""
    return public_piles(history, discard_count, -1)[0]


def public_piles(history: tuple, discard_count: int, seat: int) -> tuple:
    """``(discarded(...), reshuffled)``: ``reshuffled`` is, after the round's last reshuffle,
    the cards the new draw pile was made of (the discard pile below its top, all public) less
    those ``seat`` drew since: the draw pile is some of them, the rest went to whoever drew.
    None before any reshuffle, and wherever ``discarded`` is None."""
    pile: list = []
    made_of: Counter | None = None
    # The draw that ran the pile out took its first cards from the old pile, and the events
    # do not say how many: the seat's cards of that draw are not subtracted (a card of the
    # same code may then be dealt to the draw pile instead of a hand; never the other way).
    crossing = None
    for e in history:
        kind = e.get("type")
        if kind == "round_started":
            pile = [e["top"]] if e.get("top") else []
            made_of = None
        elif kind == "played":
            pile.extend(e["cards"] if "cards" in e else [e["card"]])
        elif kind == "reshuffled":
            made_of = Counter(pile[:-1])
            pile = pile[-1:]
            crossing = "next"
        elif kind == "drew" and crossing == "next":
            crossing = e.get("seat")
        elif kind == "drew_cards" and made_of is not None and e.get("seat") == seat:
            if crossing == seat:
                crossing = None
            else:
                made_of.subtract(e["cards"])
    if not pile or len(pile) != discard_count:
        return None, None
    return pile[:-1], (None if made_of is None else tuple(sorted(made_of.elements())))


def hold_out_draw_pile(pool: list, made_of: tuple | None, count: int) -> list:
    """Take ``count`` cards that are among ``made_of`` (as many as it holds) out of the
    (shuffled) ``pool`` and return them: after a reshuffle the draw pile is made of those, so
    the hands are dealt from the rest; put them back in front of the pool afterwards
    (``pool[:0] = held``), where they are taken last, as the draw pile."""
    if made_of is None or count <= 0:
        return []
    left = Counter(made_of)
    held, rest = [], []
    for card in pool:
        if len(held) < count and left[card] > 0:
            left[card] -= 1
            held.append(card)
        else:
            rest.append(card)
    pool[:] = rest
    return held


def deal_hands(view: dict, seat: int, pool: list, beliefs: Beliefs | None,
               rng: random.Random | None = None) -> list[list]:
    """Every seat's hand of a sampled world: the seat's own as the view shows it, the others'
    from the (shuffled) ``pool`` with the view's counts, within ``beliefs`` when given (and
    their checks, given ``rng``)."""
    n = view["players"]
    if beliefs is None:
        return [list(view["hand"]) if p == seat else take(pool, view["hand_counts"][p])
                for p in range(n)]
    dealt = beliefs.deal(pool, {p: view["hand_counts"][p] for p in range(n) if p != seat},
                         rng)
    return [list(view["hand"]) if p == seat else dealt[p] for p in range(n)]


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


def softmax(scores: list[float]) -> list[float]:
    """Each seat's share of ``exp(score)``: scores read as chances that sum to 1."""
    top = max(scores)
    weights = [math.exp(x - top) for x in scores]
    total = sum(weights)
    return [w / total for w in weights]


def hand_chances(hands: list, turn, card_score: dict, to_play: float) -> list[float]:
    """Each seat's chance to win from a position: a softmax over the sum of its cards'
    ``card_score`` (a fitted value per card code), plus ``to_play`` for the seat whose turn
    it is."""
    return softmax([sum(card_score[c] for c in hand) + (to_play if seat == turn else 0.0)
                    for seat, hand in enumerate(hands)])


def chance_value(chances: list[float], left: list, seat: int, rest: float = 0.2) -> float:
    """A cut-off playout's value when going out first is what counts: the seat's chance to
    win, plus ``rest`` times its expected placing share (``progress_reward``) otherwise."""
    p = chances[seat]
    return p + (1 - p) * rest * progress_reward(left, seat)


def win_share(left: list, seat: int, scale: float = 2.0, rest: float = 0.2) -> float:
    """``chance_value`` with the chances a softmax over minus the cards each seat holds
    (``scale`` cards apart is a factor e)."""
    return chance_value(softmax([-c / scale for c in left]), left, seat, rest)


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
                 round_value: Callable[[dict, int], float] | None = None,
                 expand: Callable[[dict, list], list] | None = None,
                 rollout_view: Callable[[dict, int], dict] | None = None,
                 observe: Callable[[InfoSet], Beliefs] | None = None):
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
        # A finished round's state valued for the seat (e.g. by the match standing it leaves);
        # without it, ``reward`` of the round's placings.
        self.round_value = round_value or (
            lambda state, seat: reward(engine.round_result(state)["placings"], seat))
        self.expand = expand
        self.rollout_view = rollout_view or engine.view
        # Reads the seat's history once per move; its beliefs go to every world's
        # ``determinize(info, rng, beliefs)`` (without it: ``determinize(info, rng)``).
        self.observe = observe

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
        deadline = clock() + limit_ms / 1000 if limit_ms else None
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
        if self.observe is not None:
            beliefs = self.observe(info)
            determinize = lambda info, rng: self.determinize(info, rng, beliefs)  # noqa: E731
        else:
            determinize = self.determinize
        keys = list(arms)
        rewards: dict[str, list[float]] = {k: [] for k in keys}
        done = 0
        worlds = 0
        try:
            while done + len(keys) <= budget or not done:
                if deadline is not None and clock() > deadline:
                    break
                world = determinize(info, rng)
                seed = rng.getrandbits(64)
                for key in keys:
                    rewards[key].append(self._playout(world, info.seat, arms[key],
                                                      random.Random(seed), deadline))
                done += len(keys)
                worlds += 1
                if len(rewards[keys[0]]) == self.screen_after and len(keys) > self.keep_arms:
                    ranked = sorted(keys, key=lambda k: -sum(rewards[k]))
                    kept = set(ranked[:self.keep_arms]) | {guess_key}
                    keys = [k for k in keys if k in kept]
        except CannotSearch:
            return {"action": guess, "iterations": done, "arms": {}}
        except TimeUp:
            # Out of time within a world: drop its playouts, so that pairs stay whole.
            for k in keys:
                del rewards[k][worlds:]
        if not worlds:
            return {"action": guess, "iterations": 0, "arms": {}}
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

    def _playout(self, state: dict, seat: int, action: dict, rng: random.Random,
                 deadline: float | None = None) -> float:
        engine = self.engine
        # The moves come from the engine's legal actions: its input checks are not needed.
        apply = engine._apply
        is_round_over = engine.is_round_over
        actors_of = engine.actors
        legal_of = engine.legal_actions
        view_of = self.rollout_view
        choose = self.heuristic.choose
        value = self.round_value
        state, _ = apply(state, seat, action)
        for _ in range(self.depth):
            if is_round_over(state):
                return value(state, seat)
            if deadline is not None and clock() > deadline:
                raise TimeUp
            actors = actors_of(state)
            actor = actors[0] if len(actors) == 1 else rng.choice(actors)
            state, _ = apply(state, actor, choose(view_of(state, actor), legal_of(state, actor),
                                                  rng))
        if is_round_over(state):
            return value(state, seat)
        return self.evaluate(state, seat)


def strong_bot(game_id: str) -> SearchBot:
    """The registered `strong` bot of a game."""
    from . import bot_for

    return bot_for(game_id, "strong")
