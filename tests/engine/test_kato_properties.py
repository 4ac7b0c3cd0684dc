"""KaTO properties over many random matches: 2..10 players, random valid options."""

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import IllegalAction
from games.engine.kato import KATO
from tests.engine.contract import check_every_legal_action_applies, random_match, replay

FAST = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])


@st.composite
def options(draw):
    opts = {
        "hand_size": draw(st.integers(3, 10)),
        "scoring": draw(st.sampled_from(["winner_collects", "own_penalty"])),
        "stacking": draw(st.sampled_from(["none", "draw2", "all"])),
        "multi_play": draw(st.sampled_from(["none", "doubling", "same_number"])),
        "kato_penalty": draw(st.integers(0, 4)),
        "challenge": draw(st.booleans()),
        "draw_until_playable": draw(st.booleans()),
        "cone_cards": draw(st.integers(0, 4)),
        "cone_effect": draw(st.sampled_from(["bounce", "reverse", "draw10"])),
    }
    # Short matches: a few rounds, or a low target.
    if draw(st.booleans()):
        opts["rounds"] = draw(st.integers(1, 2))
    else:
        opts["target_score"] = draw(st.integers(1, 120))
    return opts


def eager(state, seat, legal, rnd):
    """Random play that prefers playing cards and calling, so matches stay short."""
    if rnd.random() < 0.02:
        check_every_legal_action_applies(KATO, state)
    calls = [a for a in legal if a["type"] == "call"]
    if calls and rnd.random() < 0.5:
        return calls[0]
    plays = [a for a in legal if a["type"] == "play"]
    plain = [a for a in plays if a["cards"][-1] not in ("cone", "wild-draw4")]
    if plain and rnd.random() < 0.8:
        plays = plain  # mostly keep the big draw cards, or random hands grow for ever
    if plays and rnd.random() < 0.85:
        action = dict(rnd.choice(plays))
        if rnd.random() < 0.5:
            action["call"] = True
        return action
    return rnd.choice(legal)


@FAST
@given(players=st.integers(2, 10), seed=st.integers(0, 2**32), opts=options())
def test_random_matches_conserve_cards_apply_every_legal_action_end_and_replay(
        players, seed, opts):
    state, history = random_match(KATO, players, seed, opts, choose=eager, max_steps=30_000)
    assert KATO.is_over(state)
    assert replay(KATO, players, seed, opts, history) == state


@settings(max_examples=15, deadline=None)
@given(players=st.integers(2, 10), seed=st.integers(0, 2**32))
def test_uniformly_random_single_rounds_end(players, seed):
    # Uniformly random seats draw often and never call KaTO, so rounds run long (a median
    # of ~1,500 actions with 4 players, with a heavy tail); they still end.
    state, _ = random_match(KATO, players, seed, {"rounds": 1}, max_steps=400_000,
                            check=False)
    assert KATO.is_over(state)


def _visible(events, seat):
    return [e for e in events if e["visible_to"] == "all" or seat in e["visible_to"]]


@settings(max_examples=200, deadline=None)
@given(players=st.integers(2, 10), seed=st.integers(0, 2**32), opts=options(),
       data=st.data())
def test_deals_differing_only_in_cards_a_seat_cannot_see_give_it_identical_views(
        players, seed, opts, data):
    rnd = random.Random(seed)
    deck = KATO.full_deck(KATO.validate_options(opts))
    rnd.shuffle(deck)
    viewer = data.draw(st.integers(0, players - 1))
    dealt = players * opts["hand_size"]
    # Other players' hand cards and draw-pile cards well below the turned-up card.
    hidden = [i for i in range(dealt) if i % players != viewer]
    hidden += list(range(dealt + 5, len(deck)))
    i = data.draw(st.sampled_from(hidden))
    j = data.draw(st.sampled_from(hidden))
    other = list(deck)
    other[i], other[j] = other[j], other[i]
    a = KATO.new_game(players, seed, opts, deck=deck)
    b = KATO.new_game(players, seed, opts, deck=other)
    assert KATO.view(a, viewer) == KATO.view(b, viewer)
    for _ in range(400):
        if KATO.is_round_over(a):
            break
        seat = rnd.choice(a["actors"])
        action = eager(a, seat, KATO.legal_actions(a, seat), rnd)
        try:
            b2, events_b = KATO.apply(b, seat, action)
        except IllegalAction:
            break  # the swapped cards made the worlds differ for the acting seat
        a2, events_a = KATO.apply(a, seat, action)
        if _visible(events_a, viewer) != _visible(events_b, viewer):
            break  # something the viewer may learn differs; the views may differ too
        a, b = a2, b2
        assert KATO.view(a, viewer) == KATO.view(b, viewer)
        assert KATO.legal_actions(a, viewer) == KATO.legal_actions(b, viewer)
        assert KATO.view(a, None) == KATO.view(b, None)
