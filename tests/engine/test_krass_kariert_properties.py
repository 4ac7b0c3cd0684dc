"""Krass Kariert properties over random matches (3, 4 and 5 players, random valid options):
conservation, legality, purity, replay, termination and views independent of unseen cards."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import IllegalAction
from games.engine.krass_kariert import FULL_DECK, KRASS_KARIERT
from tests.engine.contract import check_every_legal_action_applies, random_match, replay

G = KRASS_KARIERT


@st.composite
def tables(draw):
    players = draw(st.sampled_from([3, 4, 5]))
    max_hand = len(FULL_DECK) // players - 2
    options = {"chips": draw(st.integers(1, 5))}
    hand_size = draw(st.one_of(st.none(), st.integers(1, max_hand)))
    if hand_size is not None or draw(st.booleans()):
        options["hand_size"] = hand_size
    return players, options, draw(st.integers(0, 2**32))


def _checking_choice(state, seat, legal, rnd):
    if rnd.random() < 0.05:
        check_every_legal_action_applies(G, state)
    return rnd.choice(legal)


@settings(max_examples=30, deadline=None)
@given(tables())
def test_random_matches_keep_the_contract_end_and_replay(table):
    players, options, seed = table
    final, history = random_match(G, players, seed, options, choose=_checking_choice)
    assert G.is_over(final) and G.actors(final) == []
    result = G.result(final)
    loser = result["loser"]
    assert result["placings"][loser] == players
    assert sorted(result["placings"])[:-1] == sorted(
        p for s, p in enumerate(result["placings"]) if s != loser)
    assert replay(G, players, seed, options, history) == final


@settings(max_examples=20, deadline=None)
@given(tables())
def test_random_matches_from_a_given_deck_replay(table):
    players, options, seed = table
    deck = list(FULL_DECK)
    random.Random(seed).shuffle(deck)
    final, history = random_match(G, players, seed, options, deck=deck, check=False)
    assert replay(G, players, seed, options, history, deck=deck) == final


def _hidden_slots(players, hand_size, viewer):
    """Deck positions whose cards ``viewer`` cannot see at the deal: other hands, draw pile."""
    dealt = players * hand_size
    others = [i for i in range(dealt) if i % players != viewer]
    return others + list(range(dealt + 2 * players, len(FULL_DECK)))


def _own_events(events, seat):
    return [e for e in events if e["visible_to"] == "all" or seat in e["visible_to"]]


def _revealed(events):
    """What an action shows everyone about hidden cards: the cards played or taken, and
    whether the next seat could act at all (the deal ends at once when it cannot)."""
    return [(e["type"], e.get("cards"), e.get("card")) for e in events
            if e["visible_to"] == "all"
            and e["type"] in ("played", "took_reserve", "no_legal_action")]


@settings(max_examples=60, deadline=None)
@given(tables(), st.data())
def test_views_do_not_depend_on_cards_the_seat_cannot_see(table, data):
    players, options, seed = table
    hand_size = G.hand_size(players, options)
    viewer = data.draw(st.integers(0, players - 1))
    slots = _hidden_slots(players, hand_size, viewer)
    if len(slots) < 2:
        return
    a, b = data.draw(st.lists(st.sampled_from(slots), min_size=2, max_size=2, unique=True))
    deck = list(FULL_DECK)
    random.Random(seed).shuffle(deck)
    other = list(deck)
    other[a], other[b] = other[b], other[a]
    s1 = G.new_game(players, seed, options, deck=deck)
    s2 = G.new_game(players, seed, options, deck=other)
    rnd = random.Random(seed)
    assert G.view(s1, viewer) == G.view(s2, viewer)
    for _ in range(400):
        if G.is_round_over(s1) or G.is_round_over(s2):
            break
        seat = G.actors(s1)[0]
        if G.actors(s2) != [seat]:
            break
        action = rnd.choice(G.legal_actions(s1, seat))
        try:
            n2, e2 = G.apply(s2, seat, action)
        except IllegalAction:
            break
        n1, e1 = G.apply(s1, seat, action)
        if _revealed(e1) != _revealed(e2):
            break  # the swapped cards were shown to everyone: the worlds may differ now
        if n1["drawer"] == viewer and n1["drawn"] != n2["drawn"]:
            break  # the viewer drew one of the swapped cards
        s1, s2 = n1, n2
        assert G.view(s1, viewer) == G.view(s2, viewer)
        assert _own_events(e1, viewer) == _own_events(e2, viewer)
        if seat == viewer or viewer not in G.actors(s1):
            continue
        assert G.legal_actions(s1, viewer) == G.legal_actions(s2, viewer)
