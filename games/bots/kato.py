"""KaTO bots: the random baseline and a heuristic player.

The heuristic decides from the seat's view and legal actions only. It always calls KaTO and
catches others, keeps its wilds for when nothing else fits, plays a wild-draw4 only honestly,
sheds its high cards (and hits with action cards) when an opponent is close to going out,
picks the colour it holds most of, and challenges a wild-draw4 when the player holds enough
cards that a bluff is likely.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from functools import partial

from games.engine.kato import COLOR, COLORS, IS_WILD, KATO, POINTS, RANK, WILD4

from .base import Bot, GameBots, RandomBot
from .search import (
    Beliefs,
    CannotSearch,
    InfoSet,
    SearchBot,
    among_best,
    chance_value,
    counts_before,
    hand_chances,
    hold_out_draw_pile,
    placing_reward,
    public_piles,
    take,
    unseen,
)

_HITS = {"skip", "reverse", "draw2"}


class HeuristicBot(Bot):
    level = "heuristic"
    description = "plays by fixed rules of thumb, one move at a time"

    # Weights of a play, tuned against random opponents (tests/bench/bench_kato.py).
    wild_penalty = 30.0
    hit_bonus = 2.0
    hit_bonus_next_low = 25.0
    color_weight = 1.0

    def choose(self, view: dict, legal_actions: list[dict], rng: random.Random) -> dict:
        by_type: dict[str, list[dict]] = {}
        for action in legal_actions:
            by_type.setdefault(action["type"], []).append(action)
        if "call" in by_type:
            return by_type["call"][0]
        if "catch" in by_type:
            return by_type["catch"][0]
        hand = view["hand"] or []
        if "choose_color" in by_type:
            return {"type": "choose_color", "color": self._best_color(hand, None)}
        plays = by_type.get("play", [])
        if view["phase"] == "pending":
            return self._answer_draw(view, hand, plays, by_type)
        if view["phase"] == "drawn":
            if plays and (not IS_WILD[plays[0]["cards"][0]] or len(hand) <= 3
                          or self._honest_or_plain(plays[0], view, hand)):
                return self._with_call(self._colored(plays[0], hand), hand)
            return by_type.get("pass", plays)[0]
        if plays:
            best = self._best_play(view, hand, plays)
            if best is not None:
                return self._with_call(best, hand)
        return by_type.get("draw", legal_actions)[0]

    # --- helpers -------------------------------------------------------------------------
    @staticmethod
    def _with_call(action: dict, hand: list) -> dict:
        if len(hand) - len(action["cards"]) == 1:
            return {**action, "call": True}
        return action

    @staticmethod
    def _best_color(hand: list, excluding: list | None) -> str:
        counts = dict.fromkeys(COLORS, 0)
        skip = list(excluding or [])
        for card in hand:
            if card in skip:
                skip.remove(card)
                continue
            color = COLOR[card]
            if color:
                counts[color] += 1 + POINTS[card] / 100
        return max(COLORS, key=lambda c: counts[c])

    def _colored(self, action: dict, hand: list) -> dict:
        if "color" in action:
            return {**action, "color": self._best_color(hand, action["cards"])}
        return action

    @staticmethod
    def _honest_or_plain(action: dict, view: dict, hand: list) -> bool:
        card = action["cards"][-1]
        if RANK[card] != "wild-draw4":
            return True
        color = view["color"]
        rest = list(hand)
        rest.remove(card)
        return not any(COLOR[c] == color for c in rest)

    def _answer_draw(self, view, hand, plays, by_type):
        # Passing a pending draw on is always better than taking it.
        if plays:
            return self._colored(plays[0], hand)
        if "challenge" in by_type:
            seat = view["seat"]
            direction = view["direction"]
            bluffer = (seat - direction) % view["players"]
            # The more cards the player kept, the likelier one had the judged colour.
            if view["hand_counts"][bluffer] >= 2:
                return by_type["challenge"][0]
        return by_type["accept"][0]

    def _best_play(self, view, hand, plays):
        best, best_score = None, None
        for action, score in self._scored_plays(view, hand, plays):
            if best_score is None or score > best_score:
                best, best_score = action, score
        if best is None:
            return None
        return self._colored(best, hand)

    def _scored_plays(self, view, hand, plays):
        """Each distinct play (by its cards) with its score, in the order of ``plays``; a
        dishonest wild-draw4 is left out."""
        seat = view["seat"]
        counts = view["hand_counts"]
        n = view["players"]
        nxt = (seat + view["direction"]) % n
        danger = min(c for i, c in enumerate(counts) if i != seat) <= 2
        next_low = counts[nxt] <= 2
        color_counts = dict.fromkeys(COLORS, 0)
        for card in hand:
            if COLOR[card]:
                color_counts[COLOR[card]] += 1
        seen = set()
        for action in plays:
            cards = action["cards"]
            key = tuple(cards)
            if key in seen:
                continue
            seen.add(key)
            top = cards[-1]
            rank = RANK[top]
            score = 10.0 * len(cards)
            if IS_WILD[top]:
                if rank == "wild-draw4" and not self._honest_or_plain(action, view, hand):
                    continue  # never bluff: random challengers call it half the time
                score -= self.wild_penalty  # keep wilds for when nothing else fits
                if next_low and rank != "wild":
                    score += 45
            else:
                score += self.color_weight * color_counts[COLOR[top]]  # stay in the colour we hold most
                if rank in _HITS:
                    score += self.hit_bonus_next_low if next_low else self.hit_bonus
            if danger:
                score += sum(POINTS[c] for c in cards) / 5  # shed points before the end
            else:
                score += sum(POINTS[c] for c in cards) / 40
            yield action, score


_FEATURES = {c: (("wild",) if IS_WILD[c] else ("c:" + COLOR[c], "r:" + RANK[c], "x:" + c))
             for c in RANK}
_DIGITS = "0123456789"


def _passed_over(card: str) -> set:
    """The cards of its colour a heuristic player did not hold when it followed the colour
    with the number ``card``: it plays a skip, reverse or draw2 before any number of the
    colour, and of the numbers the one of most points (its scores have no random part)."""
    rank = RANK[card]
    if rank not in _DIGITS:
        return set()
    color = COLOR[card]
    return ({f"x:{color}-{hit}" for hit in _HITS}
            | {f"x:{color}-{d}" for d in _DIGITS if int(d) > int(rank)})


def _wished(color: str, hand: list) -> bool:
    """Whether the heuristic, holding ``hand`` after its wild, names ``color``."""
    return HeuristicBot._best_color(hand, None) == color


def _replays_play(seen: dict, cards: list, hand: list) -> bool:
    """Whether the heuristic, holding ``hand`` where it played ``cards`` from its hand (the
    public position ``seen``: seat, colour, top card, hand counts, direction, house rules),
    would have played them: their score is the best of its plays (a tie may have gone
    either way)."""
    p = seen["seat"]
    hands = [[] for _ in range(seen["players"])]
    hands[p] = hand
    legal = KATO.legal_actions(
        {"actors": [p], "window": -1, "turn": p, "phase": "play", "hands": hands,
         "color": seen["color"], "discard": [seen["top"]], "options": seen["options"]}, p)
    plays = [a for a in legal if a["type"] == "play"]
    return among_best(_HEURISTIC._scored_plays({**seen, "hand": hand}, hand, plays),
                      lambda action: action["cards"] == cards)


def _undo(counts: list, e: dict) -> None:
    """One event taken back from the hand sizes (``counts_before``)."""
    kind = e.get("type")
    if kind == "played":
        counts[e["seat"]] += len(e["cards"])
    elif kind == "drew":
        counts[e["seat"]] -= e["count"]


def features(card: str) -> tuple:
    """What makes a card fit (see ``Beliefs``): a wild fits anything, another card by its
    colour or its rank."""
    return _FEATURES[card]


def observe(info: InfoSet) -> Beliefs:
    """The round's public events as seen by the seat: a player who drew held nothing that
    fitted (no card of the colour or the rank, no wild: the heuristic plays whenever it can,
    and never bluffs a wild-draw4), nor did the drawn card when it did not fit; a plain wild
    is played only when no other card fits, a wild-draw4 from the hand only honestly (no card
    of the colour in force: a challenge of it is then read as lost); a hand shown to the
    seat after a challenge. Checks of a whole hand (``Beliefs.checks``): a play from the hand
    is one the heuristic scores best, and a colour named for a wild is the one the player
    holds most of."""
    v = info.view
    me = info.seat
    b = Beliefs(v["players"], features)
    played = any(e.get("type") == "played" for e in info.history)
    top = None if played else v["top"]  # the first card turned up is still on top
    color = None if played else v["color"]
    drew_last = None
    pending = v["phase"] == "pending" and not any(
        e.get("type") in ("draw_pending", "accepted") for e in info.history)
    before = counts_before(info.history, v["hand_counts"], _undo)
    start = max((i for i, e in enumerate(info.history) if e.get("type") == "round_started"),
                default=0)
    flips = sum(1 for e in info.history[start:] if e.get("type") == "direction")
    direction = v["direction"] * (-1) ** flips
    for i, e in enumerate(info.history):
        kind = e.get("type")
        p = e.get("seat")
        if kind == "round_started":
            b = Beliefs(v["players"], features)
            direction = v["direction"] * (-1) ** flips
            top = e.get("top")
            color = COLOR.get(top)  # None for a wild turned up: colour_chosen names it
        elif kind == "color_chosen":
            color = e.get("color")
            if p is not None and p != me and color:
                b.require(p, partial(_wished, color))
        elif kind == "direction":
            direction = e["direction"]
        elif kind == "draw_pending":
            pending = True
        elif kind == "accepted":
            pending = False
        elif kind == "played":
            cards = e["cards"]
            if (cards[-1] == "wild" and drew_last != p and top is not None
                    and color is not None):
                b.forbid(p, {"c:" + color, "r:" + RANK[top]})
            elif (cards[-1] == WILD4 and drew_last != p and not pending and p != me
                  and color is not None):
                b.forbid(p, {"c:" + color})  # honest: the heuristic never bluffs
            elif (len(cards) == 1 and drew_last != p and not pending and p != me
                  and COLOR[cards[0]] == color):
                b.forbid(p, _passed_over(cards[0]))
            if (p != me and drew_last != p and not pending and top is not None
                    and color is not None and before[i] is not None):
                b.require(p, partial(_replays_play, {
                    "seat": p, "players": v["players"], "color": color, "top": top,
                    "hand_counts": before[i], "direction": direction,
                    "options": v["options"]}, list(cards)))
            pending = False
            for card in cards:
                b.remove(p, card)
            top, color = cards[-1], e.get("color")
            if IS_WILD[top] and p != me and color:
                b.require(p, partial(_wished, color))
        elif kind == "drew":
            b.add_unknown(p, e["count"])
        elif kind == "drawn_card_fits" and top is not None and color is not None:
            unfit = {"c:" + color, "r:" + RANK[top], "wild"}
            b.forbid(p, unfit, skip_newest=0 if not e.get("fits") else 1)
        elif kind == "hand_shown" and p != me:
            b.reveal(p, e["cards"])
        if kind == "drawn_card_fits":
            drew_last = p  # a play that follows is the drawn card's: it tells nothing more
        elif kind == "played":
            drew_last = None
    return b


def determinize(info: InfoSet, rng: random.Random, beliefs: Beliefs | None = None) -> dict:
    """A full KaTO state consistent with the seat's view: the cards it has not seen (all but
    its hand, the discard pile its history shows and a hand shown to it) are shuffled into
    the other hands and the draw pile, with the counts the view shows; after a reshuffle the
    draw pile is made of reshuffled cards (``public_piles``)."""
    v = info.view
    seat, n, opts = info.seat, v["players"], v["options"]
    top = v["top"]
    shown = v["shown_hand"]
    known: dict[int, list] = {}
    if shown and shown["seat"] != seat:
        known[shown["seat"]] = list(shown["cards"])[:v["hand_counts"][shown["seat"]]]
    below, made_of = public_piles(info.history, v["discard_count"], seat)
    pool = unseen(KATO.full_deck(opts), v["hand"], [top], below or [], *known.values())
    rng.shuffle(pool)
    held = hold_out_draw_pile(pool, made_of, v["draw_count"])
    hands = []
    if beliefs is not None:
        dealt = beliefs.deal(pool, {p: v["hand_counts"][p] - len(known.get(p, []))
                                    for p in range(n) if p != seat}, rng)
    for p in range(n):
        if p == seat:
            hands.append(list(v["hand"]))
        else:
            mine = known.get(p, [])
            hands.append(mine + (dealt[p] if beliefs is not None
                                 else take(pool, v["hand_counts"][p] - len(mine))))
    pool[:0] = held
    turn = v["turn"]
    drawn = v["drawn"]
    if v["phase"] == "drawn" and drawn is None:  # another seat drew a card that fits
        def fits(c):
            return IS_WILD[c] or COLOR[c] == v["color"] or RANK[c] == RANK[top]
        hand = hands[turn]
        fitting = [c for c in hand if fits(c)]
        if not fitting:
            spare = [i for i, c in enumerate(pool) if fits(c)]
            if not spare:
                raise CannotSearch("no card fits the drawn phase")
            i = spare[0]
            # The fitting card comes off the draw pile for a card of the hand; after a
            # reshuffle, one the draw pile may hold (a reshuffled card), where there is one.
            room = Counter(made_of) - Counter(pool)  # reshuffled cards not in the pile
            room[pool[i]] += 1
            out = next((j for j in range(len(hand) - 1, -1, -1)
                        if made_of is None or room[hand[j]] > 0), len(hand) - 1)
            card, pool[i] = pool[i], hand.pop(out)
            hand.append(card)
            fitting = [card]
        drawn = fitting[0]
    discard = (below if below is not None else take(pool, v["discard_count"] - 1)) + [top]
    draw_pile = take(pool, v["draw_count"])
    chal_seat = (turn - v["direction"]) % n if v["challengeable"] else -1
    chal_color = v["challenge_color"]
    chal_honest = chal_seat >= 0 and not any(COLOR[c] == chal_color for c in hands[chal_seat])
    window = v["kato_window"]
    return {
        "players": n, "options": dict(opts), "rng": rng.getrandbits(62) + 1,
        "round": v["round"], "dealer": v["dealer"], "scores": list(v["scores"]),
        "over": v["over"], "last_result": v["last_result"], "hands": hands,
        "draw_pile": draw_pile, "discard": discard, "color": v["color"],
        "direction": v["direction"], "turn": turn if turn is not None else 0,
        "phase": v["phase"], "pending": v["pending_draw"], "pending_kind": v["pending_kind"],
        "chal_seat": chal_seat, "chal_honest": chal_honest, "chal_color": chal_color,
        "drawn": drawn, "window": -1 if window is None else window,
        "shown": ({"to": seat, "seat": shown["seat"], "cards": list(shown["cards"])}
                  if shown else None),
        "actors": list(v["actors"]),
    }


def rollout_view(state: dict, seat: int) -> dict:
    """The fields of the seat's view the heuristic reads, straight from a sampled world (a
    playout's own guess, never the real state): no copies, nothing else."""
    return {"seat": seat, "hand": state["hands"][seat], "phase": state["phase"],
            "color": state["color"], "direction": state["direction"],
            "players": state["players"], "hand_counts": [len(h) for h in state["hands"]]}


# A cut-off playout's value: each seat's chance to win the round from where it stands, a
# softmax over a score per seat, fitted (maximum likelihood) on 11,263 positions (every 5th
# move in the play phase) of the first three rounds of 400 matches of four heuristic bots, and
# checked on 4,174 positions of 150 other matches:
#
#   score = -0.327 x cards held + 0.825 x wild cards + 0.087 x skip/reverse/draw2 held
#           + 0.109 for the seat to play
#
# Log-loss on the held-out positions: 1.177 with this score, 1.386 for a fair share, and
# 1.396 for the softmax over cards held alone with a scale of 1.5 cards that this replaced
# (worse than knowing nothing: it took a card fewer for a large edge, and a wild card in hand
# for nothing).
_CARD, _WILD, _HIT, _TO_PLAY = -0.327, 0.825, 0.087, 0.109
_CARD_SCORE = {c: _CARD + (_WILD if IS_WILD[c] else _HIT if RANK[c] in _HITS else 0.0)
               for c in RANK}


def win_chances(state: dict) -> list[float]:
    """Each seat's chance to win the round from a sampled world's position (see above)."""
    return hand_chances(state["hands"], state["turn"], _CARD_SCORE, _TO_PLAY)


def evaluate(state: dict, seat: int) -> float:
    """A cut-off playout: the seat's chance to win the round (``win_chances``), plus a fifth
    of its share of the seats it holds fewer cards than, as ``reward`` values a lost round."""
    return chance_value(win_chances(state), [len(h) for h in state["hands"]], seat)


def reward(placings: list, seat: int) -> float:
    """Winning the round is what scores (the winner collects); the placing of the others only
    orders how many points they hand over."""
    return 1.0 if placings[seat] == 1 else 0.2 * placing_reward(placings, seat)


# --- the match standing ----------------------------------------------------------------------
# A match to `target_score` under `winner_collects` is a race: each round one seat wins and
# collects the points left in the other hands, and the first to the target wins the match. So
# a round is worth more than its winner: how many points it was worth, and to whom, moves
# everyone's chance to win the match. The search values a finished round (and a cut-off
# playout) by that chance, read off a model of the race:
#
# * each round is won by a seat drawn at random, every seat alike;
# * the winner collects a Gamma-distributed award. Heuristic play at four seats with 7 cards
#   collected 118.5 points a round (sd 64.2, over 10,387 rounds of 1,000 matches), so the
#   shape is (118.5 / 64.2)^2 = 3.4, and the mean scales with the cards the others were dealt.
#
# Rounds won by seats drawn alike are the events of equal-rate Poisson processes, one per
# seat, in the order they happen. A seat that needs K more round wins then finishes at a
# Gamma(K) time, independently of the others, and its chance to finish first is
# integral f_i(t) * prod_{j != i} S_j(t) dt, with S_j(t) = sum_m Pois(m; t) P(K_j > m) and
# P(K > m) = P(m awards sum to less than the points still needed) (Wilson-Hilferty). Points
# still needed are rounded up to 5 and every curve is cached, so a value costs a lookup.

AWARD_PER_CARD = 118.5 / 21
AWARD_SHAPE = 3.4
RACE_STEP = 5          # points still needed are rounded up to this
RACE_MAX_ROUNDS = 40   # targets further off than this many typical rounds: no race model


def _gamma_cdf(shape: float, x: float) -> float:
    """P(Gamma(shape, 1) < x), Wilson-Hilferty's normal approximation (good from shape 1)."""
    if x <= 0:
        return 0.0
    c = 1 / (9 * shape)
    z = ((x / shape) ** (1 / 3) - (1 - c)) / math.sqrt(c)
    return 0.5 * math.erfc(-z / math.sqrt(2))


class MatchRace:
    """The chance of each seat to win a match to ``target`` from its current totals."""

    def __init__(self, players: int, hand_size: int, target: int):
        self.players = players
        self.target = target
        self.scale = AWARD_PER_CARD * (players - 1) * hand_size / AWARD_SHAPE
        typical = AWARD_PER_CARD * (players - 1) * hand_size
        rounds = target / typical + 1
        self.usable = rounds <= RACE_MAX_ROUNDS
        top = int(rounds * 3 + 15)  # Gamma(K) times of every K that matters lie below this
        self.step = top / 400
        self.grid = [i * self.step for i in range(401)]
        self._curves: dict[int, tuple[list[float], list[float]]] = {}
        self._values: dict[tuple, tuple[float, ...]] = {}

    def _curve(self, need: int) -> tuple[list[float], list[float]]:
        """S(t) and f(t) on the grid for a seat that still needs ``need`` points (> 0)."""
        curve = self._curves.get(need)
        if curve is None:
            x = need / self.scale
            below = [1.0]  # P(K > m): m awards sum to less than the need
            while below[-1] > 1e-7 and len(below) < 4 * RACE_MAX_ROUNDS:
                below.append(_gamma_cdf(AWARD_SHAPE * len(below), x))
            below.append(0.0)
            survive, density = [], []
            for t in self.grid:
                p = math.exp(-t)
                s = f = 0.0
                for m in range(len(below) - 1):
                    s += p * below[m]
                    f += p * (below[m] - below[m + 1])
                    p *= t / (m + 1)
                survive.append(s)
                density.append(f)
            curve = self._curves[need] = (survive, density)
        return curve

    def values(self, totals: list | tuple) -> tuple[float, ...]:
        """Each seat's chance to win the match (they sum to 1)."""
        step = RACE_STEP
        needs = tuple(max(0, -((t - self.target) // step)) * step for t in totals)
        value = self._values.get(needs)
        if value is None:
            if 0 in needs:  # the match is over: the seat at the target has won it
                value = tuple(1.0 if n == 0 else 0.0 for n in needs)
            else:
                curves = [self._curve(n) for n in needs]
                raw = []
                for i, (_, density) in enumerate(curves):
                    others = [c[0] for j, c in enumerate(curves) if j != i]
                    total = 0.0
                    for k, f in enumerate(density):
                        for survive in others:
                            f *= survive[k]
                        total += f
                    raw.append(total)
                norm = sum(raw) or 1.0
                value = tuple(r / norm for r in raw)
            if len(self._values) > 100_000:
                self._values.clear()
            self._values[needs] = value
        return value


_RACES: dict[tuple, MatchRace | None] = {}


def match_race(state: dict) -> MatchRace | None:
    """The race model of this match, or None where points do not decide it that way (a
    fixed number of rounds, own-penalty scoring, a target very far off)."""
    opts = state["options"]
    key = (state["players"], opts["hand_size"], opts["target_score"], opts["scoring"],
           opts["rounds"])
    if key not in _RACES:
        race = None
        if opts["scoring"] == "winner_collects" and not opts["rounds"]:
            race = MatchRace(state["players"], opts["hand_size"], opts["target_score"])
            race = race if race.usable else None
        _RACES[key] = race
    return _RACES[key]


def round_value(state: dict, seat: int) -> float:
    """A finished round: the seat's chance to win the match from the new totals (a match of
    several rounds to a target), else the round's own reward."""
    race = match_race(state)
    if race is None:
        return reward(state["last_result"]["placings"], seat)
    return race.values(state["scores"])[seat]


def evaluate_standing(state: dict, seat: int) -> float:
    """A cut-off playout in a match to a target: over who may win the round
    (``win_chances``), the seat's chance to win the match once that seat has collected the
    points in the other hands."""
    race = match_race(state)
    if race is None:
        return evaluate(state, seat)
    points = [sum(POINTS[c] for c in h) for h in state["hands"]]
    all_points = sum(points)
    totals = state["scores"]
    value = 0.0
    for w, chance in enumerate(win_chances(state)):
        after = list(totals)
        after[w] += all_points - points[w]
        value += chance * race.values(after)[seat]
    return value


def expand(view: dict, legal: list) -> list:
    """A play that leaves one card is searched with its KaTO call (never calling only
    invites a catch)."""
    hand = view["hand"] or []
    return [HeuristicBot._with_call(a, hand) if a["type"] == "play" else a for a in legal]


_HEURISTIC = HeuristicBot()
BOTS = GameBots("kato", (
    RandomBot(),
    _HEURISTIC,
    SearchBot(KATO, _HEURISTIC, determinize, evaluate_standing, reward=reward,
              round_value=round_value, expand=expand, depth=30, rollout_view=rollout_view,
              observe=observe),
))
