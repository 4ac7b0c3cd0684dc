"""Bots for Ätsch, Ätsch, deciding from the seat's view and legal actions only.

The calls ("Ätsch!", "Ätsch, Ätsch!") are a flag a player adds to a play, not a legal action
of their own, so a bot that only picks among ``legal_actions`` would never call and never win.
The random bot therefore tosses a coin for the call whenever its play leaves one card or none;
the heuristic bot always calls.
"""

from __future__ import annotations

import random
from collections import Counter
from functools import partial

from games.engine.aetsch import AETSCH, PLAY, RANK_OF, SUIT_OF

from .base import Bot, GameBots, RandomBot
from .search import (
    Beliefs,
    InfoSet,
    SearchBot,
    among_best,
    chance_value,
    counts_before,
    deal_hands,
    hand_chances,
    hold_out_draw_pile,
    public_piles,
    take,
    unseen,
    win_reward,
)

SUITS = ("clubs", "spades", "hearts", "diamonds")
PLAIN_RANKS = ("3", "4", "6", "8", "9", "Q")

# How much the heuristic likes to get rid of a card now (higher = sooner). Wild cards are kept
# for when nothing else fits; a 5 sends five cards to others, a K sheds a second card.
PLAY_PREFERENCE = {"K": 6.0, "5": 5.5, "2": 4.0, "7": 4.0, "A": 3.0, "10": 3.0, "J": -4.0,
                   "joker": -2.0}


# A card's suit (None for a joker) and rank ("joker" for a joker): table look-ups, as the
# heuristic asks for them for every card of every candidate play.
_suit = SUIT_OF.get


def _rank(card: str) -> str:
    return RANK_OF.get(card, "joker")


def _remove_one(hand: list, card: str) -> list:
    out = list(hand)
    out.remove(card)
    return out


class AetschRandomBot(RandomBot):
    """Uniform among the legal actions; calls on a coin toss when its play needs a call."""

    def choose(self, view: dict, legal_actions: list[dict], rng: random.Random) -> dict:
        action = rng.choice(legal_actions)
        if action["type"] == "play" and len(view["hand"]) <= 2 and rng.random() < 0.5:
            action = {**action, "call": True}
        return action


class HeuristicBot(Bot):
    """Always calls, pushes a pending 2 back, sheds specials before wild cards, wishes the
    suit it holds most and aims its gifts, peeks and swaps at the player with fewest cards."""

    level = "heuristic"
    description = "plays by fixed rules of thumb, one move at a time"

    def choose(self, view: dict, legal_actions: list[dict], rng: random.Random) -> dict:
        me = view["seat"]
        hand = view["hand"]
        counts = view["hand_counts"]
        others = [t for t in range(len(counts)) if t != me]
        leader = min(others, key=lambda t: (counts[t], t))
        plays = [a for a in legal_actions if a["type"] == "play"]
        by_type = {a["type"]: a for a in legal_actions}

        if plays:
            return {**self._best_play(view, hand, plays, rng), "call": True}
        if "give_drawn" in by_type:
            return {"type": "give_drawn", "to": leader}
        if "peek" in by_type:
            return {"type": "peek", "seat": leader}
        if "give" in by_type:
            return {"type": "give", "card": self._card_to_give(hand)}
        if "swap" in by_type or "reroll" in by_type:
            return self._swap(view, legal_actions, counts, others, leader)
        for kind in ("draw", "pass"):
            if kind in by_type:
                return by_type[kind]
        return legal_actions[0]

    @staticmethod
    def _wish(rest: list) -> str:
        held = Counter(_suit(c) for c in rest if c != "joker")
        return max(SUITS, key=lambda s: (held[s], -SUITS.index(s)))

    def _best_play(self, view: dict, hand: list, plays: list[dict],
                   rng: random.Random) -> dict:
        best, best_score = None, None
        for choice, score in self._scored_plays(view, hand, plays):
            score += 0.3 * rng.random()  # breaks ties, and cycles between heuristic bots
            if best_score is None or score > best_score:
                best, best_score = choice, score
        return best

    def _scored_plays(self, view: dict, hand: list, plays: list[dict]):
        """Each distinct play (by its card, a wild one with the suit it would wish) with its
        score before the tie-break, in the order of ``plays``."""
        counts = view["hand_counts"]
        nxt = (view["seat"] + view["direction"]) % len(counts)
        small = len(hand) <= 2
        scarce = view["draw_count"] < 10
        seen: set = set()
        for action in plays:
            card = action["card"]
            if card in seen:
                continue
            seen.add(card)
            rest = _remove_one(hand, card)
            rank = _rank(card)
            if rank in ("J", "joker"):
                new_suit = self._wish(rest)
                choice = {"type": "play", "card": card, "suit": new_suit}
            else:
                new_suit = _suit(card)
                choice = {"type": "play", "card": card}
            score = PLAY_PREFERENCE.get(rank, 3.5)
            if scarce and rank in ("2", "5"):
                # Nearly every card is in a hand: a 2 or a 5 would only pull the played cards
                # back into hands, and bots doing so forever never finish the round.
                score = -6.0
            if small and rank in ("J", "joker"):
                score += 8.0
            if rank == "K" and not rest:
                score -= 5.0  # a K as last card still has to be followed by a gift
            if counts[nxt] <= 2 and rank in ("2", "7", "joker"):
                score += 4.0
            score += 0.6 * sum(1 for c in rest if _suit(c) == new_suit)
            yield choice, score

    def _card_to_give(self, hand: list) -> str:
        held = Counter(_suit(c) for c in hand if c != "joker")

        def usefulness(card: str) -> tuple:
            rank = _rank(card)
            plain = rank in PLAIN_RANKS
            wild = rank in ("J", "joker")
            # Hand the next player a plain card of a suit we hold little of; keep wild cards.
            return (wild, not plain, held.get(_suit(card), 0))

        return min(hand, key=usefulness)

    def _swap(self, view, legal_actions, counts, others, leader) -> dict:
        me = view["seat"]
        if len(counts) == 2:
            if counts[leader] < counts[me]:
                return {"type": "swap", "seats": sorted([me, leader])}
            return {"type": "reroll"}
        most = max((t for t in others if t != leader), key=lambda t: (counts[t], -t))
        return {"type": "swap", "seats": sorted([leader, most])}


def _wished(suit: str, hand: list) -> bool:
    """Whether the heuristic, holding ``hand`` after its J or joker, wishes ``suit``."""
    return HeuristicBot._wish(hand) == suit


def _replays_play(seen: dict, card: str, hand: list) -> bool:
    """Whether the heuristic, holding ``hand`` where it played ``card`` from its hand (the
    public position ``seen``: seat, top card, suit, hand counts, direction, house rules),
    may have played it: its score is within the tie-break (0.3) of the best of its plays,
    with the draw pile low or not as ``seen["scarce"]`` allows (True, False or None:
    either)."""
    p = seen["seat"]
    hands = [[] for _ in range(len(seen["hand_counts"]))]
    hands[p] = hand
    legal = AETSCH.legal_actions(
        {"phase": PLAY, "turn": p, "hands": hands, "players": len(hands),
         "discard_pile": [seen["top"]], "suit": seen["suit"], "options": seen["options"]}, p)
    plays = [a for a in legal if a["type"] == "play"]
    return any(
        among_best(_HEURISTIC._scored_plays(
            {**seen, "hand": hand, "draw_count": 0 if scarce else 10}, hand, plays),
            lambda choice: choice["card"] == card, slack=0.3)
        for scarce in ((True, False) if seen["scarce"] is None else (seen["scarce"],)))


def features(card: str) -> tuple:
    """What makes a card fit (see ``Beliefs``): a joker or a J fits whatever the suit (a J
    unless J on J is barred), any other card by its suit or its rank."""
    rank = _rank(card)
    if rank in ("J", "joker"):
        return (rank,)
    return ("s:" + _suit(card), "r:" + rank, "x:" + card)


# What the heuristic would rather have played than a card of this rank, following suit with
# more than two cards in hand (PLAY_PREFERENCE, ahead by more than its 0.3 tie-break): it
# had none of these of the suit in force. 2s and 5s drop out once the draw pile runs low.
_PREFERRED = {
    "K": (), "5": ("K",), "2": ("K", "5"), "7": ("K", "5"),
    "3": ("K", "5", "2", "7"), "4": ("K", "5", "2", "7"), "6": ("K", "5", "2", "7"),
    "8": ("K", "5", "2", "7"), "9": ("K", "5", "2", "7"), "Q": ("K", "5", "2", "7"),
    "A": ("K", "5", "2", "7", "3", "4", "6", "8", "9", "Q"),
    "10": ("K", "5", "2", "7", "3", "4", "6", "8", "9", "Q"),
}
_RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "Q", "K", "A")


def _undo(now: list, e: dict) -> None:
    """One event taken back from the hand sizes (``counts_before``)."""
    kind = e.get("type")
    p = e.get("seat")
    if kind == "played":
        now[p] += 1
    elif kind == "drew" and not e.get("unseen"):
        now[p] -= e["count"]
    elif kind == "gave":
        now[p] += 1
        now[e["to"]] -= 1
    elif kind == "gave_drawn":
        now[e["to"]] -= 1
    elif kind == "swapped":
        a, b = e["seats"]
        now[a], now[b] = now[b], now[a]


def _unfitting(top: str | None, suit: str | None, options: dict) -> set:
    """The features no card has that a player held when it drew instead of playing (the
    heuristic plays whenever a card fits; a person may not, then the constraint is loose)."""
    out = {"joker"}
    top_rank = None if top is None or top == "joker" else _rank(top)
    if suit:
        out.add("s:" + suit)
    if top_rank and top_rank != "J":
        out.add("r:" + top_rank)
    if top_rank != "J" or options.get("jack_on_jack"):
        out.add("J")
    return out


def _passed_over(card: str, top: str, suit: str, counts: list | None, p: int,
                 direction: int, *, sure_not_scarce: bool) -> set:
    """The cards a heuristic player did not hold, since it played ``card`` instead of them
    (on ``top`` with ``suit`` in force): nothing when its choice had other reasons (two
    cards or fewer, the next player close to out)."""
    if counts is None or counts[p] <= 2 or counts[(p + direction) % len(counts)] <= 2:
        return set()
    rank = _rank(card)
    skip = () if sure_not_scarce else ("2", "5")
    if rank in ("J", "joker"):
        # Wild cards are kept for when nothing else fits (a J even behind a joker).
        top_rank = None if top == "joker" else _rank(top)
        out = {"x:" + suit + "-" + r for r in _RANKS if r not in skip}
        if top_rank and top_rank != "J":
            out |= {"x:" + s + "-" + top_rank for s in SUITS if top_rank not in skip}
        if rank == "J":
            out.add("joker")
        return out
    if _suit(card) != suit:
        return set()  # matched the rank: its suit counts decided as much as its rank
    return {"x:" + suit + "-" + r for r in _PREFERRED.get(rank, ()) if r not in skip}


def _hands_given_away(history: tuple, me: int, hand: list) -> dict[int, list]:
    """The seat's own hand just before each swap it was part of, by the index of the
    ``swapped`` event: what the other player of the swap holds from then on. Followed from
    the events the seat was sent (its deal, the cards it drew, was given, gave and played,
    the hand a swap gave it); empty when that account does not end in the view's hand (a
    history cut short)."""
    mine: list | None = None
    out: dict[int, list] = {}
    for i, e in enumerate(history):
        kind = e.get("type")
        if kind == "round_started":
            mine, out = None, {}
        elif kind == "dealt" and e.get("seat") == me:
            mine = list(e["cards"])
        elif mine is None:
            continue
        elif kind == "drew_cards" and e.get("seat") == me:
            mine.extend(e["cards"])
        elif kind == "received_card" and e.get("seat") == me:
            mine.append(e["card"])
        elif kind == "gave_card" and e.get("to") == me:
            mine.append(e["card"])
        elif kind in ("gave_card", "played") and e.get("seat") == me:
            if e["card"] not in mine:
                return {}
            mine.remove(e["card"])
        elif kind == "swapped" and me in e["seats"]:
            out[i] = list(mine)
        elif kind == "hand_swapped" and e.get("seat") == me:
            mine = list(e["cards"])
    if mine is None or Counter(mine) != Counter(hand):
        return {}
    return out


def observe(info: InfoSet) -> Beliefs:
    """The round's public events as seen by the seat: who drew instead of playing (void in
    what fitted), who gave whom what, whose hand the seat peeked at, hands swapped (and the
    hand it gave away in a swap of its own, known card by card); and a suit wished with a J or
    a joker is the suit the player holds most of, and a play from the hand is one the
    heuristic scores best but for its tie-break (checks of a whole hand, ``Beliefs.checks``)."""
    v = info.view
    me = info.seat
    b = Beliefs(v["players"], features)
    given_away = _hands_given_away(info.history, me, v["hand"])
    top = suit = None
    pending = None  # (seat, features) after a draw, until we see whether the card fitted
    before = counts_before(info.history, v["hand_counts"], _undo)
    # Directions and the draw pile's size at each play are not all in the events: the
    # direction is followed from "direction" events back from the view's, and the draw pile
    # was surely not low (a 2 or a 5 still preferred) when it is not low now and was not
    # reshuffled since.
    plenty = v["draw_count"] >= 10
    last_reshuffle = max((i for i, e in enumerate(info.history)
                          if e.get("type") == "reshuffled"), default=-1)
    flips = sum(1 for e in info.history if e.get("type") == "direction")
    direction = v["direction"] * (-1) ** flips
    two = None
    for i, e in enumerate(info.history):
        kind = e.get("type")
        p = e.get("seat")
        drew = pending is not None and pending[0] == p  # a play now is of the drawn card
        if kind == "direction":
            direction = e["direction"]
        elif kind == "two_pending":
            two = e.get("total")
        elif kind == "drew" and e.get("reason") == "two":
            two = None
        if pending is not None and not (kind == "played" and p == pending[0]):
            b.forbid(*pending)  # the drawn card did not fit either (or it was kept)
            pending = None
        elif kind == "played":
            pending = None
        if kind == "round_started":
            b = Beliefs(v["players"], features)
            top, suit = e.get("top"), None
            if top and top != "joker":
                suit = _suit(top)
        elif kind == "played":
            if p != me and top is not None and suit is not None and two is None:
                sure_not_scarce = i > last_reshuffle and plenty
                b.forbid(p, _passed_over(e["card"], top, suit, before[i], p, direction,
                                         sure_not_scarce=sure_not_scarce))
                if before[i] is not None and not drew:
                    b.require(p, partial(_replays_play, {
                        "seat": p, "top": top, "suit": suit, "hand_counts": before[i],
                        "direction": direction, "options": v["options"],
                        "scarce": False if sure_not_scarce else None}, e["card"]))
            b.remove(p, e["card"])
            top, suit = e["card"], e.get("suit")
            if p != me and suit and _rank(top) in ("J", "joker"):
                b.require(p, partial(_wished, suit))
            two = None
        elif kind == "drew":
            if e.get("unseen"):  # a 5's cards, to be given away one by one
                continue
            if e.get("reason") == "draw" and top is not None:
                pending = (p, _unfitting(top, suit, v["options"]))
                b.forbid(*pending)
            elif e.get("reason") == "two":
                b.forbid(p, {"r:2"})
            b.add_unknown(p, e["count"])
        elif kind == "gave_drawn":
            if e["to"] != me:
                b.add_unknown(e["to"], 1)
        elif kind == "gave":
            b.remove_unknown(p, 1)
            b.add_unknown(e["to"], 1)
        elif kind == "gave_card" and e["to"] != me:  # the seat gave it: it knows the card
            groups = b.groups[e["to"]]
            if groups and groups[-1] == [1, set()]:  # the unknown card of the "gave" event
                groups.pop()
            else:
                b.remove_unknown(e["to"], 1)
            b.add_known(e["to"], [e["card"]])
        elif kind == "peeked_hand":
            b.reveal(e["target"], e["cards"])
        elif kind == "swapped":
            b.swap(*e["seats"])
            if i in given_away:
                b.reveal(next(t for t in e["seats"] if t != me), given_away[i])
    if pending is not None and pending[0] != me and not (
            v["phase"] == "drawn" and v["turn"] == pending[0]):  # else it fitted: to play
        b.forbid(*pending)
    return b


def determinize(info: InfoSet, rng: random.Random, beliefs: Beliefs | None = None) -> dict:
    """A full Ätsch state consistent with the seat's view: the unseen cards (all but its hand
    and the discard pile its history shows) are shuffled into the other hands, the cards a 5
    hands out and the draw pile, with the counts the view shows (after a reshuffle the draw
    pile and a 5's cards are reshuffled cards, ``public_piles``). A pending 2's pusher
    follows from its total (the 2s go back and forth between the same two seats)."""
    v = info.view
    seat, n = info.seat, v["players"]
    top = v["top"]
    below, made_of = public_piles(info.history, v["discard_count"], seat)
    pool = unseen(AETSCH.full_deck(v["options"]), v["hand"], [top] if top else [], below or [])
    rng.shuffle(pool)
    # A 5's cards to hand out came off the draw pile too.
    held = hold_out_draw_pile(pool, made_of, v["draw_count"] + v["to_give_count"])
    hands = deal_hands(v, seat, pool, beliefs, rng)
    pool[:0] = held
    to_give = take(pool, v["to_give_count"])
    discard = ((below if below is not None else take(pool, v["discard_count"] - 1))
               + ([top] if top else []))
    draw_pile = take(pool, v["draw_count"])
    two = None
    if v["pending_two"]:
        target, d = v["two_target"], v["direction"]
        if (v["pending_two"] // 2) % 2 == 1:
            two = {"total": v["pending_two"], "target": target, "pusher": (target - d) % n,
                   "first_target": target}
        else:
            pusher = (target + d) % n
            two = {"total": v["pending_two"], "target": target, "pusher": pusher,
                   "first_target": pusher}
    peeks = [None] * n
    if v["peeked"]:
        peeks[seat] = dict(v["peeked"])
    hand = v["hand"]
    return {
        "players": n, "options": dict(v["options"]), "rng": rng.getrandbits(62) + 1,
        "round": v["round"], "dealer": v["dealer"], "hands": hands, "draw_pile": draw_pile,
        "discard_pile": discard, "suit": v["suit"], "direction": v["direction"],
        "turn": v["turn"], "phase": v["phase"], "two": two,
        "drawn": v["drawn_card"], "to_give": to_give,
        # A K that left one card was called (an uncalled one would have cost two cards).
        "give_called": v["phase"] == "give" and len(hand) == 1,
        "last_roll": dict(v["last_roll"]) if v["last_roll"] else None, "peeks": peeks,
        "winner": v["winner"], "round_results": [dict(r) for r in v["round_results"]],
    }


def rollout_view(state: dict, seat: int) -> dict:
    """The fields of the seat's view the heuristic reads, straight from a sampled world (a
    playout's own guess, never the real state): no copies, nothing else."""
    return {"seat": seat, "hand": state["hands"][seat], "direction": state["direction"],
            "hand_counts": [len(h) for h in state["hands"]],
            "draw_count": len(state["draw_pile"])}


# A cut-off playout's value: each seat's chance to win the round from where it stands, a
# softmax over a score per seat, fitted (maximum likelihood) on 6,000 positions of 600 rounds
# of four heuristic bots, every 7th move in the play phase, and checked on 2,823 others:
#
#   score = -0.137 x cards held + 0.19 x wild cards (J, joker) + 0.137 x 2s held
#           - 0.09 for a seat that is not the one to play
#
# Few cards say little in Ätsch: the heuristic aims its 5s' cards, its 2s, its peeks and the
# joker's swaps at the seat with fewest cards, and the seat with fewest cards goes on to win
# a round only 31 % of the time (25 % is a fair share). Log-loss on the held-out positions:
# 1.343 with this score, 1.386 for a fair share, 1.581 for the softmax over cards held alone
# with a scale of 2 cards that this replaced (overconfident: it valued being short of cards
# at move 40 as a likely win, and the search chased it).
_CARD, _WILD, _TWO, _WAITING = -0.137, 0.19, 0.137, -0.09
_CARD_SCORE = {c: _CARD + (_WILD if _rank(c) in ("J", "joker") else _TWO if _rank(c) == "2"
                           else 0.0) for c in [*RANK_OF, "joker"]}


def win_chances(state: dict) -> list[float]:
    """Each seat's chance to win the round from a sampled world's position (see above; a
    softmax does not change when every score moves alike, so -0.09 for each seat not to
    play is +0.09 for the seat to play)."""
    return hand_chances(state["hands"], state["turn"], _CARD_SCORE, -_WAITING)


def evaluate(state: dict, seat: int) -> float:
    """A cut-off playout: the seat's chance to win (``win_chances``), plus a fifth of its
    share of the seats it holds fewer cards than, as ``win_reward`` values a lost round."""
    return chance_value(win_chances(state), [len(h) for h in state["hands"]], seat)


def expand(view: dict, legal: list) -> list:
    """Plays are searched with the call the heuristic always makes: calling costs nothing,
    and a play with and without the flag would be the same move searched twice."""
    return [{**a, "call": True} if a["type"] == "play" else a for a in legal]


_HEURISTIC = HeuristicBot()
BOTS = GameBots("aetsch", (
    AetschRandomBot(),
    _HEURISTIC,
    SearchBot(AETSCH, _HEURISTIC, determinize, evaluate, expand=expand, reward=win_reward,
              depth=40, confidence=1.0, keep_arms=6, rollout_view=rollout_view,
              observe=observe),
))
