"""Ätsch, Ätsch: the contract's properties over random matches, 2 to 6 players."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.bots import BOTS
from games.engine import IllegalAction
from games.engine.aetsch import AETSCH, FULL_DECK
from tests.engine.contract import check_every_legal_action_applies, random_match, replay

G = AETSCH

players_st = st.integers(min_value=2, max_value=6)
seeds_st = st.integers(min_value=0, max_value=2**32)
options_st = st.fixed_dictionaries({
    "hand_size": st.integers(min_value=3, max_value=10),
    "play_drawn": st.booleans(),
    "jack_on_jack": st.booleans(),
    "rounds": st.integers(min_value=1, max_value=3),
})


def lively(state, seat, legal, rnd):
    """Random legal play that mostly plays rather than draws and mostly calls, so that random
    matches end in hundreds of steps rather than tens of thousands."""
    plays = [a for a in legal if a["type"] != "draw"]
    action = rnd.choice(plays) if plays and rnd.random() < 0.85 else rnd.choice(legal)
    if action["type"] == "play" and rnd.random() < 0.8:
        action = {**action, "call": True}
    return action


@settings(max_examples=20, deadline=None)
@given(players=players_st, seed=seeds_st, options=options_st)
def test_random_matches_end_keep_the_contract_and_replay_exactly(players, seed, options):
    state, history = random_match(G, players, seed, options, choose=lively)
    assert G.is_over(state)
    result = G.result(state)
    assert sorted(result["placings"])[0] == 1
    assert len(state["round_results"]) == options["rounds"]
    assert replay(G, players, seed, options, history) == state


@settings(max_examples=10, deadline=None)
@given(players=players_st, seed=seeds_st, options=options_st)
def test_every_legal_action_applies(players, seed, options):
    def choose(state, seat, legal, rnd):
        check_every_legal_action_applies(G, state)
        return lively(state, seat, legal, rnd)

    random_match(G, players, seed, {**options, "rounds": 1}, choose=choose, check=False)


@settings(max_examples=30, deadline=None)
@given(players=players_st, seed=seeds_st, level=st.sampled_from(["random", "heuristic"]))
def test_bots_choose_legal_actions_from_the_view(players, seed, level):
    bot = BOTS["aetsch"][level]

    def choose(state, seat, legal, rnd):
        # Seat 0 plays the bot under test; the others play lively random moves, which keeps
        # matches short (random bots, or bots that all gang up on the leader, take long).
        if seat != 0:
            return lively(state, seat, legal, rnd)
        chosen = bot.choose(G.view(state, seat), legal, rnd)
        bare = {k: v for k, v in chosen.items() if k != "call"}
        assert bare in legal
        assert chosen.get("call", True) is True
        return chosen

    random_match(G, players, seed, {"hand_size": 5}, choose=choose, check=False)


def _swap_hidden(deck, players, hand_size, viewer, rnd):
    """Swap two cards of ``deck`` that ``viewer`` cannot see: between two other hands, within
    another hand, or between another hand and the draw pile. Returns the new deck and the
    draw-pile position touched (None if none)."""
    dealt = players * hand_size
    others = [p for p in range(players) if p != viewer]
    positions = {p: [r * players + p for r in range(hand_size)] for p in others}
    kind = rnd.choice(["hands", "hand", "pile"] if len(others) > 1 else ["hand", "pile"])
    pile_pos = None
    if kind == "hands":
        a, b = rnd.sample(others, 2)
        i, j = rnd.choice(positions[a]), rnd.choice(positions[b])
    elif kind == "hand":
        i, j = rnd.sample(positions[rnd.choice(others)], 2)
    else:
        # Below the turned-up card; a joker there could change which card is turned up.
        i = rnd.choice(positions[rnd.choice(others)])
        j = rnd.randrange(dealt + 1, len(deck))
        pile_pos = j - dealt - 1
    out = list(deck)
    out[i], out[j] = out[j], out[i]
    return out, pile_pos


@settings(max_examples=40, deadline=None)
@given(players=players_st, seed=seeds_st, data=st.data())
def test_a_seat_sees_the_same_view_when_only_cards_it_cannot_see_differ(players, seed, data):
    rnd = random.Random(seed)
    hand_size = data.draw(st.integers(min_value=3, max_value=10))
    viewer = data.draw(st.integers(min_value=0, max_value=players - 1))
    deck = list(FULL_DECK)
    rnd.shuffle(deck)
    while deck[players * hand_size] == "joker":  # keep the turned-up card a plain one
        rnd.shuffle(deck)
    other, pile_pos = _swap_hidden(deck, players, hand_size, viewer, rnd)
    options = {"hand_size": hand_size}
    a = G.new_game(players, seed, options, deck=deck)
    b = G.new_game(players, seed, options, deck=other)
    pile_len = len(a["draw_pile"])
    for _step in range(300):
        assert G.view(a, viewer) == G.view(b, viewer)
        assert G.view(a, None) == G.view(b, None)
        if G.is_round_over(a):
            break
        seat = G.actors(a)[0]
        action = lively(a, seat, G.legal_actions(a, seat), rnd)
        shown = []  # hands the viewer is about to learn
        if seat == viewer and action["type"] == "peek":
            shown = [action["seat"]]
        elif action["type"] == "swap" and viewer in action["seats"]:
            shown = action["seats"]
        if any(a["hands"][s] != b["hands"][s] for s in shown):
            break  # the viewer legitimately learns a hand that differs
        a, events = G.apply(a, seat, action)
        try:
            b, _ = G.apply(b, seat, action)
        except IllegalAction:
            break  # the hidden difference surfaced as a play; nothing more to compare
        if pile_pos is not None and (pile_len - len(a["draw_pile"]) > pile_pos or any(
                e["type"] == "reshuffled" for e in events)):
            break  # the differing pile card was drawn: its drawer's knowledge differs now
