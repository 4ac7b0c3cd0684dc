"""Helpers for decks, piles, seats and results shared by every game.

All of them are pure: they take lists and return new ones, never touching their input, so a
game's ``apply`` can copy only what an action changes instead of the whole state.
"""

from collections import Counter

from . import rng
from .errors import InvalidDeck


def check_deck(deck: list, full_deck: list) -> list:
    """Return ``deck`` as a list if it is exactly ``full_deck`` in some order."""
    if not isinstance(deck, (list, tuple)) or not all(isinstance(c, str) for c in deck):
        raise InvalidDeck("invalid_deck", "deck must be a list of card codes")
    if len(deck) != len(full_deck) or Counter(deck) != Counter(full_deck):
        raise InvalidDeck("invalid_deck", "deck must be exactly the game's full deck")
    return list(deck)


def shuffled_deck(rng_state: int, full_deck: list, deck: list | None) -> tuple[int, list]:
    """The draw pile to deal from: the given ``deck`` checked, or ``full_deck`` shuffled."""
    if deck is not None:
        return rng_state, check_deck(deck, full_deck)
    return rng.shuffled(rng_state, full_deck)


def deal_round_robin(pile: list, players: int, count: int, first: int = 0) -> tuple[list, list]:
    """Deal ``count`` cards each, one at a time, starting at seat ``first``.

    ``pile[0]`` is the next card to leave the pile. Returns ``(hands, rest_of_pile)``.
    """
    hands: list[list] = [[] for _ in range(players)]
    pos = 0
    for _ in range(count):
        for k in range(players):
            hands[(first + k) % players].append(pile[pos])
            pos += 1
    return hands, pile[pos:]


def draw_cards(rng_state: int, draw_pile: list, discard_pile: list, count: int,
               reshuffle: bool = True) -> tuple[int, list, list, list, bool]:
    """Draw up to ``count`` cards from the front of ``draw_pile``.

    When it runs out and ``reshuffle`` is set, the discard pile except its top card (the last
    element) is shuffled into a new draw pile. Returns
    ``(rng_state, drawn, draw_pile, discard_pile, reshuffled)``; fewer cards are drawn when
    nothing is left, which is never an error.
    """
    drawn = draw_pile[:count]
    draw_pile = draw_pile[count:]
    reshuffled = False
    if len(drawn) < count and reshuffle and len(discard_pile) > 1:
        rng_state, new_pile = rng.shuffled(rng_state, discard_pile[:-1])
        discard_pile = discard_pile[-1:]
        reshuffled = True
        missing = count - len(drawn)
        drawn = drawn + new_pile[:missing]
        draw_pile = new_pile[missing:]
    return rng_state, drawn, draw_pile, discard_pile, reshuffled


def replace_at(items: list, index: int, value) -> list:
    """A copy of ``items`` with ``items[index]`` replaced."""
    out = list(items)
    out[index] = value
    return out


def remove_cards(hand: list, cards: list) -> list | None:
    """A copy of ``hand`` without ``cards`` (one occurrence each), or None if not all held."""
    out = list(hand)
    for card in cards:
        try:
            out.remove(card)
        except ValueError:
            return None
    return out


def next_seat(seat: int, direction: int, players: int, steps: int = 1) -> int:
    return (seat + direction * steps) % players


def placings(values: list, *, lower_is_better: bool = True) -> list[int]:
    """Competition ranking by seat: 1 is best, ties share a place (1, 1, 3)."""
    order = sorted(values) if lower_is_better else sorted(values, reverse=True)
    return [order.index(v) + 1 for v in values]


def event(type_: str, visible_to="all", **data) -> dict:
    """An engine event. ``visible_to`` is ``"all"`` or a list of seats."""
    return {"type": type_, "visible_to": visible_to, **data}
