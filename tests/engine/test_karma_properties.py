"""Karma properties over random matches, for every player count and option value.

Besides the shared contract (purity, JSON, conservation, illegal actions change nothing,
replay), these check that nothing hidden leaks: two games whose states differ only in cards a
seat cannot see give that seat identical views, legal actions and events, and no view shows a
face-down card, not even to its owner (with ``foresight`` the owner sees the set only).
"""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.karma import FULL_DECK, KARMA
from tests.engine.contract import (
    check_every_legal_action_applies,
    random_match,
    replay,
)

players = st.integers(min_value=2, max_value=6)
seeds = st.integers(min_value=0, max_value=2**32)
foresight = st.booleans()


@settings(max_examples=25, deadline=None)
@given(n=players, seed=seeds, fs=foresight)
def test_random_matches_keep_the_contract_end_and_replay(n, seed, fs):
    options = {"foresight": fs}
    state, history = random_match(KARMA, n, seed, options)
    assert KARMA.is_over(state)
    result = KARMA.result(state)
    assert sorted(result["placings"]) == list(range(1, n + 1))
    loser = result["loser"]
    assert result["placings"][loser] == n and result["scores"][loser] > 0
    assert sum(result["scores"]) == result["scores"][loser]
    assert replay(KARMA, n, seed, options, history) == state


@settings(max_examples=20, deadline=None)
@given(n=players, seed=seeds, fs=foresight)
def test_every_legal_action_applies(n, seed, fs):
    rnd = random.Random(seed)
    state = KARMA.new_game(n, seed, {"foresight": fs})
    step = 0
    while not KARMA.is_over(state):
        if step % 5 == 0:
            check_every_legal_action_applies(KARMA, state)
        seat = rnd.choice(KARMA.actors(state))
        state, _ = KARMA.apply(state, seat, rnd.choice(KARMA.legal_actions(state, seat)))
        step += 1


# --- nothing hidden leaks -------------------------------------------------------------------

def _seen_events(events, seat):
    return [e for e in events if e["visible_to"] == "all"
            or (seat is not None and seat in e["visible_to"])]


def differ_only_where_hidden(a, b, seat):
    """True if states ``a`` and ``b`` differ only in cards ``seat`` cannot see."""
    hidden = {"hands", "choices", "table_down", "draw_pile", "rng"}
    for key in a:
        if key not in hidden and a[key] != b[key]:
            return False
    if a["rng"] != b["rng"] or len(a["draw_pile"]) != len(b["draw_pile"]):
        return False
    foresight = a["options"]["foresight"]
    n = a["players"]
    for p in range(n):
        if p == seat:
            if a["hands"][p] != b["hands"][p] or a["choices"][p] != b["choices"][p]:
                return False
        elif len(a["hands"][p]) != len(b["hands"][p]) or \
                (a["choices"][p] is None) != (b["choices"][p] is None):
            return False
        down_a, down_b = a["table_down"][p], b["table_down"][p]
        if [c is None for c in down_a] != [c is None for c in down_b]:
            return False
        if p == seat and foresight and \
                sorted(c for c in down_a if c) != sorted(c for c in down_b if c):
            return False
    return True


def _hidden_slots(n, seat, foresight):
    """Deck positions whose cards ``seat`` cannot see right after the deal."""
    slots = []
    for pos in range(3):
        for p in range(n):
            if not (foresight and p == seat):
                slots.append(pos * n + p)
    for r in range(6):
        for p in range(n):
            if p != seat:
                slots.append(3 * n + r * n + p)
    slots.extend(range(9 * n, len(FULL_DECK)))
    return slots


@settings(max_examples=60, deadline=None)
@given(n=players, seed=seeds, fs=foresight, data=st.data())
def test_a_seat_cannot_tell_apart_deals_that_differ_in_cards_it_cannot_see(n, seed, fs, data):
    rnd = random.Random(seed)
    seat = data.draw(st.sampled_from([*range(n), None]), label="seat")
    deck_a = list(FULL_DECK)
    rnd.shuffle(deck_a)
    deck_b = list(deck_a)
    slots = _hidden_slots(n, seat if seat is not None else -1, fs)
    for _ in range(data.draw(st.integers(1, 4), label="swaps")):
        i, j = rnd.sample(slots, 2)
        deck_b[i], deck_b[j] = deck_b[j], deck_b[i]
    if fs and seat is not None:
        # the owner knows the set of its face-down cards, never their positions
        own = [pos * n + seat for pos in range(3)]
        perm = rnd.sample(own, 3)
        moved = [deck_b[i] for i in perm]
        for i, card in zip(own, moved, strict=True):
            deck_b[i] = card
    a = KARMA.new_game(n, seed, {"foresight": fs}, deck=deck_a)
    b = KARMA.new_game(n, seed, {"foresight": fs}, deck=deck_b)
    compared = 0
    for _ in range(400):
        if not differ_only_where_hidden(a, b, seat):
            break
        assert KARMA.view(a, seat) == KARMA.view(b, seat)
        if seat is not None:
            assert KARMA.legal_actions(a, seat) == KARMA.legal_actions(b, seat)
        compared += 1
        if KARMA.is_over(a):
            break
        actor = rnd.choice(KARMA.actors(a))
        action = rnd.choice(KARMA.legal_actions(a, actor))
        if action not in KARMA.legal_actions(b, actor):
            break
        a, events_a = KARMA.apply(a, actor, action)
        b, events_b = KARMA.apply(b, actor, action)
        if differ_only_where_hidden(a, b, seat):
            seen_a, seen_b = _seen_events(events_a, seat), _seen_events(events_b, seat)
            # A face-down card played blind is turned up for everyone: from then on the deals
            # may be told apart, rightly, even where the card went on into a hidden hand
            # (a blind card that does not fit is taken up with the pile).
            if any(e["type"] == "played_blind" for e in seen_a + seen_b):
                assert ([e for e in seen_a if e["type"] != "played_blind"]
                        == [e for e in seen_b if e["type"] != "played_blind"])
                break
            assert seen_a == seen_b
    assert compared >= 1


def _shuffle_hidden(state, rnd):
    """The same state with the cards nobody may see shuffled among themselves."""
    s = dict(state)
    n = state["players"]
    down = [list(d) for d in state["table_down"]]
    if state["options"]["foresight"]:
        for p in range(n):
            cards = [c for c in down[p] if c is not None]
            rnd.shuffle(cards)
            it = iter(cards)
            down[p] = [next(it) if c is not None else None for c in down[p]]
        s["table_down"] = down
        return s
    pool = [c for d in down for c in d if c is not None] + list(state["draw_pile"])
    rnd.shuffle(pool)
    it = iter(pool)
    s["table_down"] = [[next(it) if c is not None else None for c in d] for d in down]
    s["draw_pile"] = list(it)
    return s


@settings(max_examples=30, deadline=None)
@given(n=players, seed=seeds, fs=foresight)
def test_no_view_shows_a_face_down_card_not_even_to_its_owner(n, seed, fs):
    rnd = random.Random(seed)
    state = KARMA.new_game(n, seed, {"foresight": fs})
    step = 0
    while not KARMA.is_over(state):
        if step % 3 == 0:
            other = _shuffle_hidden(state, rnd)
            for seat in [*range(n), None]:
                assert KARMA.view(state, seat) == KARMA.view(other, seat)
                if seat is not None:
                    assert KARMA.legal_actions(state, seat) == KARMA.legal_actions(other, seat)
            if fs:
                for seat in range(n):
                    own = KARMA.view(state, seat)["own_table_down"]
                    assert own == sorted(
                        (c for c in state["table_down"][seat] if c is not None),
                        key=(list(dict.fromkeys(FULL_DECK))).index)
        seat = rnd.choice(KARMA.actors(state))
        state, events = KARMA.apply(state, seat, rnd.choice(KARMA.legal_actions(state, seat)))
        for ev in events:
            # a face-down card only ever shows up when it is played
            assert ev["type"] == "played_blind" or "position" not in ev
        step += 1
