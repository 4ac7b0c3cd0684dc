"""KaTO rulings of RULES.md, one test each, on dealt-to-order decks."""

from collections import Counter

import pytest

from games.engine import GAMES, IllegalAction, InvalidDeck, InvalidOptions
from games.engine.kato import BASE_DECK, KATO

P = {"type": "pass"}
D = {"type": "draw"}
A = {"type": "accept"}
CH = {"type": "challenge"}


def deck_for(hands, up, pile=(), cones=0):
    """A full deck order: ``hands`` dealt one at a time from seat 0, then ``up`` turned up,
    then ``pile`` drawn in that order, then the rest of the deck."""
    size = len(hands[0])
    assert all(len(h) == size for h in hands)
    order = [hands[seat][i] for i in range(size) for seat in range(len(hands))]
    order += ([up] if isinstance(up, str) else list(up)) + list(pile)
    rest = Counter(BASE_DECK + ["cone"] * cones)
    rest.subtract(Counter(order))
    assert all(v >= 0 for v in rest.values()), "more copies than the deck has"
    # Neutral filler first so tests that draw past ``pile`` get predictable colours.
    return order + sorted(rest.elements(), key=lambda c: (c.startswith("wild"), c))


def game(hands, up, pile=(), **options):
    options.setdefault("hand_size", len(hands[0]))
    deck = deck_for(hands, up, pile, options.get("cone_cards", 0))
    return KATO.new_game(len(hands), 1, options, deck=deck)


def play(card, color=None, call=None):
    action = {"type": "play", "cards": card if isinstance(card, list) else [card]}
    if color:
        action["color"] = color
    if call is not None:
        action["call"] = call
    return action


def act(state, seat, action):
    return KATO.apply(state, seat, action)[0]


def hand(state, seat):
    return state["hands"][seat]


# --- deck and deal ------------------------------------------------------------------------

def test_registered_as_kato_for_2_to_10_players():
    assert GAMES["kato"] is KATO and KATO.name == "KaTO"
    assert (KATO.min_players, KATO.max_players) == (2, 10)


def test_deck_has_108_cards_and_cone_cards_by_option():
    deck = KATO.full_deck(KATO.default_options())
    assert len(deck) == 108
    c = Counter(deck)
    assert c["red-0"] == 1 and c["red-7"] == 2 and c["blue-skip"] == 2
    assert c["wild"] == 4 and c["wild-draw4"] == 4
    assert Counter(KATO.full_deck({"cone_cards": 3}))["cone"] == 3


def test_options_and_defaults():
    assert KATO.default_options() == {
        "hand_size": 7, "target_score": 500, "rounds": 0, "scoring": "winner_collects",
        "stacking": "none", "multi_play": "none", "kato_penalty": 2, "challenge": True,
        "draw_until_playable": False, "cone_cards": 0, "cone_effect": "bounce"}
    for bad in ({"hand_size": 2}, {"stacking": "some"}, {"challenge": 1}, {"nope": 1},
                {"cone_cards": 5}):
        with pytest.raises(InvalidOptions):
            KATO.new_game(4, 1, bad)
    with pytest.raises(InvalidOptions):
        KATO.new_game(11, 1)


def test_a_deck_that_is_not_the_full_deck_is_rejected():
    with pytest.raises(InvalidDeck):
        KATO.new_game(2, 1, deck=BASE_DECK[:-1])


def test_deal_is_one_card_at_a_time_seat_0_first():
    s = game([["red-1", "red-2", "red-3"], ["blue-1", "blue-2", "blue-3"]], "green-5")
    assert hand(s, 0) == ["red-1", "red-2", "red-3"]
    assert hand(s, 1) == ["blue-1", "blue-2", "blue-3"]
    assert s["discard"] == ["green-5"] and s["color"] == "green"
    assert s["actors"] == [0] and s["dealer"] == 1


def test_wild_draw4_turned_up_goes_to_the_bottom_and_the_next_card_is_turned_up():
    s = game([["red-1", "red-2", "red-3"], ["blue-1", "blue-2", "blue-3"]],
             ["wild-draw4", "green-5"])
    assert s["discard"] == ["green-5"] and s["draw_pile"][-1] == "wild-draw4"


# --- first-card effects -------------------------------------------------------------------

H3 = [["red-1", "red-2", "red-3"], ["blue-1", "blue-2", "blue-3"],
      ["green-1", "green-2", "green-3"]]


def test_first_skip_skips_seat_0_and_seat_1_starts():
    s = game(H3, "yellow-skip")
    assert s["actors"] == [1] and s["color"] == "yellow"


def test_first_reverse_dealer_starts_counter_clockwise():
    s = game(H3, "yellow-reverse")
    assert s["actors"] == [2] and s["direction"] == -1
    s = act(s, 2, D)  # filler draws: turn goes on counter-clockwise
    assert s["turn"] in (1, 2)
    if s["phase"] == "drawn":
        s = act(s, 2, P)
    assert s["turn"] == 1


def test_first_reverse_with_two_players_dealer_starts_clockwise():
    s = game(H3[:2], "yellow-reverse")
    assert s["actors"] == [1] and s["direction"] == 1


def test_first_draw2_seat_0_draws_2_and_is_skipped():
    s = game(H3, "yellow-draw2", ["red-8", "red-9"])
    assert hand(s, 0) == ["red-1", "red-2", "red-3", "red-8", "red-9"]
    assert s["actors"] == [1] and s["pending"] == 0


def test_first_wild_seat_0_chooses_the_colour_then_plays():
    s = game(H3, "wild")
    assert s["phase"] == "color" and s["actors"] == [0]
    assert KATO.legal_actions(s, 0) == [{"type": "choose_color", "color": c}
                                        for c in ("red", "yellow", "green", "blue")]
    with pytest.raises(IllegalAction):
        act(s, 0, play("red-1"))
    s = act(s, 0, {"type": "choose_color", "color": "red"})
    assert s["color"] == "red" and s["actors"] == [0] and s["phase"] == "play"
    s = act(s, 0, play("red-1"))
    assert s["turn"] == 1


def test_first_cone_seat_0_chooses_the_colour_and_its_effect_does_not_apply():
    s = game(H3, "cone", cone_cards=1, cone_effect="draw10")
    assert s["phase"] == "color" and s["actors"] == [0] and len(hand(s, 0)) == 3


def test_in_later_rounds_first_card_effects_hold_for_the_seat_left_of_that_rounds_dealer():
    s = game(H3, "green-5")
    s = dict(s, dealer=0)  # round two's dealer
    deck = deck_for([["red-1", "red-2", "red-3"], ["blue-1", "blue-2", "blue-3"],
                     ["green-1", "green-2", "green-3"]], "yellow-draw2", ["red-8", "red-9"])
    s2 = KATO.deal_round(s, deck)
    # dealt from seat 1 (left of dealer 0): seat 1 got the first card
    assert hand(s2, 1)[:3] == ["red-1", "red-2", "red-3"]
    assert hand(s2, 1)[3:] == ["red-8", "red-9"] and s2["actors"] == [2]
    s3 = KATO.deal_round(s, deck_for(H3, "yellow-reverse"))
    assert s3["actors"] == [0] and s3["direction"] == -1


def test_dealer_rotates_clockwise_each_round():
    s = game([["red-1", "red-2", "red-3"], ["blue-1", "blue-2", "blue-3"]], "red-5")
    s = act(s, 0, play("red-1"))
    s = act(s, 1, D)
    s = dict(s, hands=[["red-2"], s["hands"][1]], turn=0, phase="play", actors=[0])
    s = act(s, 0, play("red-2"))
    assert KATO.is_round_over(s) and not KATO.is_over(s)
    s2, events = KATO.start_next_round(s)
    assert s2["dealer"] == 0 and s2["round"] == 2
    assert any(e["type"] == "round_started" for e in events)
    first = s2["actors"][0]
    assert first in (1, 0)  # seat 1 starts unless the first card skips it


# --- a turn -------------------------------------------------------------------------------

def test_play_must_match_the_colour_or_the_rank_of_the_top_card():
    s = game([["red-1", "blue-5", "yellow-2"], ["blue-1", "blue-2", "blue-3"]], "green-5")
    with pytest.raises(IllegalAction) as e:
        act(s, 0, play("red-1"))
    assert e.value.code == "does_not_match"
    s = act(s, 0, play("blue-5"))
    assert s["color"] == "blue" and s["turn"] == 1
    assert {"type": "play", "cards": ["blue-1"]} in KATO.legal_actions(s, 1)


def test_wild_may_always_be_played_and_needs_a_colour():
    s = game([["red-1", "wild", "yellow-2"], ["blue-1", "blue-2", "blue-3"]], "green-5")
    with pytest.raises(IllegalAction) as e:
        act(s, 0, play("wild"))
    assert e.value.code == "color_required"
    s = act(s, 0, play("wild", "red"))
    assert s["color"] == "red" and s["discard"][-1] == "wild"


def test_an_illegal_action_changes_nothing_and_hides_other_hands():
    s = game([["red-1", "wild", "yellow-2"], ["blue-1", "blue-2", "blue-3"]], "green-5")
    with pytest.raises(IllegalAction) as e:
        act(s, 0, play("blue-1"))
    assert e.value.code == "card_not_in_hand" and "blue-1" not in e.value.message
    with pytest.raises(IllegalAction) as e:
        act(s, 1, D)
    assert e.value.code == "not_your_turn"


def test_drawn_card_that_fits_may_be_played_at_once():
    s = game([["red-1", "red-2", "red-3"], ["blue-1", "blue-2", "blue-3"]], "green-5",
             ["green-7"])
    s = act(s, 0, D)
    assert s["phase"] == "drawn" and s["actors"] == [0]
    assert KATO.legal_actions(s, 0) == [play("green-7"), P]
    assert KATO.view(s, 0)["drawn"] == "green-7" and KATO.view(s, 1)["drawn"] is None
    with pytest.raises(IllegalAction):
        act(s, 0, D)
    s = act(s, 0, play("green-7"))
    assert s["discard"][-1] == "green-7" and s["turn"] == 1


def test_drawn_card_that_fits_may_be_kept_with_pass():
    s = game([["red-1", "red-2", "red-3"], ["blue-1", "blue-2", "blue-3"]], "green-5",
             ["green-7"])
    s = act(act(s, 0, D), 0, P)
    assert "green-7" in hand(s, 0) and s["turn"] == 1


def test_only_the_drawn_card_may_be_played_after_drawing():
    s = game([["green-1", "red-2", "red-3"], ["blue-1", "blue-2", "blue-3"]], "green-5",
             ["green-7"])
    s = act(s, 0, D)
    with pytest.raises(IllegalAction) as e:
        act(s, 0, play("green-1"))
    assert e.value.code == "must_play_drawn_card"


def test_drawn_card_that_does_not_fit_ends_the_turn_at_once():
    s = game([["red-1", "red-2", "red-3"], ["blue-1", "blue-2", "blue-3"]], "green-5",
             ["yellow-7"])
    s, events = KATO.apply(s, 0, D)
    assert s["turn"] == 1 and s["phase"] == "play" and "yellow-7" in hand(s, 0)
    pub = [e for e in events if e["visible_to"] == "all"]
    assert pub == [{"type": "drew", "visible_to": "all", "seat": 0, "count": 1},
                   {"type": "drawn_card_fits", "visible_to": "all", "seat": 0, "fits": False}]
    priv = [e for e in events if e["visible_to"] != "all"]
    assert priv[0]["cards"] == ["yellow-7"] and priv[0]["visible_to"] == [0]


def test_draw_until_playable_draws_until_a_card_fits_and_it_must_be_played():
    s = game([["red-1", "red-2", "red-3"], ["blue-1", "blue-2", "blue-3"]], "green-5",
             ["yellow-7", "red-9", "green-8"], draw_until_playable=True)
    s = act(s, 0, D)
    assert hand(s, 0)[-3:] == ["yellow-7", "red-9", "green-8"]
    assert KATO.legal_actions(s, 0) == [play("green-8")]
    with pytest.raises(IllegalAction):
        act(s, 0, P)


# --- action cards -------------------------------------------------------------------------

def test_skip_skips_the_next_player():
    s = game([["red-skip", "red-2", "red-3"], ["blue-1", "blue-2", "blue-3"],
              ["green-1", "green-2", "green-3"]], "red-5")
    s, events = KATO.apply(s, 0, play("red-skip"))
    assert s["turn"] == 2 and {"type": "skipped", "visible_to": "all", "seat": 1} in events


def test_reverse_changes_the_direction():
    s = game([["red-reverse", "red-2", "red-3"], ["blue-1", "blue-2", "blue-3"],
              ["green-1", "green-2", "green-3"]], "red-5")
    s = act(s, 0, play("red-reverse"))
    assert s["direction"] == -1 and s["turn"] == 2 and KATO.view(s, 1)["direction"] == -1


def test_reverse_with_two_players_acts_as_skip():
    s = game([["red-reverse", "red-2", "red-3"], ["blue-1", "blue-2", "blue-3"]], "red-5")
    s = act(s, 0, play("red-reverse"))
    assert s["direction"] == 1 and s["turn"] == 0


def test_draw2_the_next_player_draws_2_and_is_skipped():
    s = game([["red-draw2", "red-2", "red-3"], ["blue-1", "blue-2", "blue-3"],
              ["green-1", "green-2", "green-3"]], "red-5", ["yellow-1", "yellow-2"])
    s = act(s, 0, play("red-draw2"))
    assert hand(s, 1)[-2:] == ["yellow-1", "yellow-2"] and s["turn"] == 2


def test_last_card_draw2_makes_the_next_player_draw_before_the_round_is_scored():
    s = game([["red-draw2", "red-2", "red-3"], ["blue-1", "blue-2", "blue-3"]], "red-5",
             stacking="all")
    s = dict(s, hands=[["red-draw2"], hand(s, 1)])
    s = act(s, 0, play("red-draw2"))
    assert KATO.is_round_over(s) and len(hand(s, 1)) == 5
    r = KATO.round_result(s)
    assert r["scores"] == [r["points_left"][1], 0] and r["points_left"][1] > 6


def test_last_card_wild_draw4_makes_the_next_player_draw_4_without_challenge():
    s = game([["wild-draw4", "red-2", "red-3"], ["blue-1", "blue-2", "blue-3"]], "red-5",
             ["green-1", "green-2", "green-3", "green-4"])
    s = dict(s, hands=[["wild-draw4"], hand(s, 1)])
    s = act(s, 0, play("wild-draw4", "blue"))
    assert KATO.is_round_over(s)
    assert hand(s, 1) == ["blue-1", "blue-2", "blue-3", "green-1", "green-2", "green-3",
                          "green-4"]
    assert KATO.round_result(s)["scores"] == [6 + 10, 0]


# --- pending draws and the challenge -----------------------------------------------------

W4 = [["wild-draw4", "red-2", "yellow-3"], ["blue-1", "blue-2", "blue-3"],
      ["green-1", "green-2", "green-3"]]


def test_wild_draw4_waits_for_the_victims_accept_when_a_challenge_is_possible():
    s = game(W4, "blue-5", ["red-7", "red-8", "red-9", "yellow-9"])
    s = act(s, 0, play("wild-draw4", "green"))
    assert s["phase"] == "pending" and s["actors"] == [1] and s["pending"] == 4
    assert KATO.legal_actions(s, 1) == [A, CH]
    v = KATO.view(s, 2)
    assert v["pending_draw"] == 4 and v["challengeable"] is True


def test_accept_draws_the_whole_total_and_skips_the_victim():
    s = game(W4, "blue-5", ["red-7", "red-8", "red-9", "yellow-9"])
    s = act(act(s, 0, play("wild-draw4", "green")), 1, A)
    assert hand(s, 1)[3:] == ["red-7", "red-8", "red-9", "yellow-9"]
    assert s["turn"] == 2 and s["pending"] == 0 and s["color"] == "green"


def test_wild_draw4_honest_challenge_costs_the_challenger_6_and_skips_them():
    s = game(W4, "blue-5", ["red-7", "red-8", "red-9", "yellow-9", "yellow-8", "yellow-7"])
    s = act(s, 0, play("wild-draw4", "green"))  # no blue card in hand: honest
    s, events = KATO.apply(s, 1, CH)
    assert len(hand(s, 1)) == 9 and s["turn"] == 2
    assert {"type": "challenged", "visible_to": "all", "seat": 1, "target": 0,
            "honest": True} in events


def test_wild_draw4_bluff_costs_the_bluffer_4():
    hands = [["wild-draw4", "blue-2", "yellow-3"], ["blue-1", "red-2", "blue-3"],
             ["green-1", "green-2", "green-3"]]
    s = game(hands, "blue-5", ["red-7", "red-8", "red-9", "yellow-9"])
    s = act(s, 0, play("wild-draw4", "green"))  # holds blue-2: a bluff
    s = act(s, 1, CH)
    assert hand(s, 0) == ["blue-2", "yellow-3", "red-7", "red-8", "red-9", "yellow-9"]
    assert len(hand(s, 1)) == 3 and s["turn"] == 1 and s["phase"] == "play"
    assert s["color"] == "green"
    assert {"type": "play", "cards": ["green-1"]} not in KATO.legal_actions(s, 1)


def test_only_the_colour_in_force_makes_a_wild_draw4_a_bluff():
    hands = [["wild-draw4", "red-5", "yellow-skip"], ["blue-1", "red-2", "blue-3"],
             ["green-1", "green-2", "green-3"]]
    s = game(hands, "blue-5", ["red-7", "red-8", "red-9", "yellow-9", "yellow-8", "yellow-7"])
    s = act(act(s, 0, play("wild-draw4", "red")), 1, CH)  # same number, other colour: honest
    assert len(hand(s, 1)) == 9


def test_the_challenged_hand_is_shown_to_the_challenger_only():
    s = game(W4, "blue-5", ["red-7", "red-8", "red-9", "yellow-9", "yellow-8", "yellow-7"])
    s = act(s, 0, play("wild-draw4", "green"))
    s, events = KATO.apply(s, 1, CH)
    shown = [e for e in events if e["type"] == "hand_shown"]
    assert shown == [{"type": "hand_shown", "visible_to": [1], "seat": 0,
                      "cards": ["red-2", "yellow-3"]}]
    assert KATO.view(s, 1)["shown_hand"] == {"seat": 0, "cards": ["red-2", "yellow-3"]}
    assert KATO.view(s, 2)["shown_hand"] is None and KATO.view(s, None)["shown_hand"] is None
    s = act(s, 2, D)
    assert KATO.view(s, 1)["shown_hand"] is None


def test_without_challenge_a_wild_draw4_is_drawn_at_once():
    s = game(W4, "blue-5", ["red-7", "red-8", "red-9", "yellow-9"], challenge=False)
    s = act(s, 0, play("wild-draw4", "green"))
    assert s["phase"] == "play" and len(hand(s, 1)) == 7 and s["turn"] == 2


def test_a_pending_draw2_waits_under_stacking_whatever_the_victim_holds():
    hands = [["red-draw2", "red-2", "red-3"], ["blue-1", "blue-2", "blue-3"],
             ["green-1", "green-2", "green-3"]]
    s = game(hands, "red-5", stacking="draw2")
    s = act(s, 0, play("red-draw2"))
    assert s["phase"] == "pending" and KATO.legal_actions(s, 1) == [A]


def test_stacking_draw2_puts_plus2_on_plus2_and_the_total_goes_to_who_accepts():
    hands = [["red-draw2", "red-2", "red-3"], ["blue-draw2", "blue-2", "blue-3"],
             ["green-1", "green-2", "green-3"]]
    s = game(hands, "red-5", stacking="draw2")
    s = act(s, 0, play("red-draw2"))
    assert play("blue-draw2") in KATO.legal_actions(s, 1)
    with pytest.raises(IllegalAction) as e:
        act(s, 1, play("blue-2"))
    assert e.value.code == "must_answer_draw"
    s = act(s, 1, play("blue-draw2"))
    assert s["pending"] == 4 and s["turn"] == 2
    s = act(s, 2, A)
    assert len(hand(s, 2)) == 7 and s["turn"] == 0


def test_stacking_all_allows_plus4_on_plus2_but_never_plus2_on_plus4():
    hands = [["red-draw2", "red-2", "red-3"], ["wild-draw4", "blue-2", "blue-3"],
             ["green-draw2", "green-2", "green-3"]]
    s = game(hands, "red-5", stacking="all")
    s = act(s, 0, play("red-draw2"))
    s = act(s, 1, play("wild-draw4", "green"))
    assert s["pending"] == 6 and s["turn"] == 2
    assert KATO.legal_actions(s, 2) == [A]  # no +2 on +4, no challenge of a stacked +4
    with pytest.raises(IllegalAction):
        act(s, 2, CH)
    with pytest.raises(IllegalAction):
        act(s, 2, play("green-draw2"))


def test_stacking_draw2_does_not_allow_plus4_on_plus2():
    hands = [["red-draw2", "red-2", "red-3"], ["wild-draw4", "blue-2", "blue-3"],
             ["green-1", "green-2", "green-3"]]
    s = game(hands, "red-5", stacking="draw2")
    s = act(s, 0, play("red-draw2"))
    with pytest.raises(IllegalAction):
        act(s, 1, play("wild-draw4", "red"))


def test_honest_challenge_under_stacking_costs_the_pending_total_plus_2():
    hands = [["wild-draw4", "red-2", "red-3"], ["blue-1", "blue-2", "blue-3"],
             ["green-1", "green-2", "green-3"]]
    s = game(hands, "green-5", stacking="all")
    s = act(s, 0, play("wild-draw4", "red"))
    s = act(s, 1, CH)
    assert len(hand(s, 1)) == 3 + 6


def test_against_a_pending_draw_only_single_cards_may_be_played():
    hands = [["red-draw2", "red-2", "red-3"], ["blue-draw2", "blue-draw2", "blue-3"],
             ["green-1", "green-2", "green-3"]]
    s = game(hands, "red-5", stacking="draw2", multi_play="same_number")
    s = act(s, 0, play("red-draw2"))
    with pytest.raises(IllegalAction):
        act(s, 1, play(["blue-draw2", "blue-draw2"]))


# --- KaTO call and catch ------------------------------------------------------------------

KH = [["red-1", "red-2", "red-3"], ["blue-1", "blue-2", "blue-3"],
      ["green-1", "green-2", "green-3"]]


def _to_two_cards(s):
    return dict(s, hands=[["red-1", "red-2"], hand(s, 1), hand(s, 2)])


def test_a_play_with_call_leaves_one_card_without_a_window():
    s = _to_two_cards(game(KH, "red-5"))
    s, events = KATO.apply(s, 0, play("red-1", call=True))
    assert s["actors"] == [1] and s["window"] == -1
    assert {"type": "called", "visible_to": "all", "seat": 0} in events


def test_a_play_leaving_one_card_without_call_opens_the_window_for_every_seat():
    s = _to_two_cards(game(KH, "red-5"))
    s = act(s, 0, play("red-1"))
    assert s["actors"] == [0, 1, 2] and KATO.view(s, 2)["kato_window"] == 0
    assert KATO.legal_actions(s, 0) == [{"type": "call"}]
    assert KATO.legal_actions(s, 2) == [{"type": "catch", "seat": 0}]
    assert {"type": "catch", "seat": 0} in KATO.legal_actions(s, 1)


def test_a_late_call_closes_the_window():
    s = _to_two_cards(game(KH, "red-5"))
    s = act(act(s, 0, play("red-1")), 0, {"type": "call"})
    assert s["actors"] == [1]
    with pytest.raises(IllegalAction):
        act(s, 1, {"type": "catch", "seat": 0})


def test_a_catch_costs_kato_penalty_cards_and_uses_nobodys_turn():
    s = _to_two_cards(game(KH, "red-5", kato_penalty=3))
    s = act(s, 0, play("red-1"))
    s, events = KATO.apply(s, 2, {"type": "catch", "seat": 0})
    assert len(hand(s, 0)) == 4 and s["actors"] == [1] and s["turn"] == 1
    assert {"type": "caught", "visible_to": "all", "seat": 0, "by": 2, "penalty": 3} in events


def test_the_next_action_of_the_player_whose_turn_it_is_closes_the_window():
    s = _to_two_cards(game(KH, "red-5"))
    s = act(act(s, 0, play("red-1")), 1, D)
    assert s["window"] == -1 and 0 not in s["actors"] or s["turn"] == 0
    with pytest.raises(IllegalAction):
        act(s, 2, {"type": "catch", "seat": 0})


def test_catching_a_player_who_is_not_in_the_window_is_illegal():
    s = _to_two_cards(game(KH, "red-5"))
    s = act(s, 0, play("red-1"))
    with pytest.raises(IllegalAction) as e:
        act(s, 2, {"type": "catch", "seat": 1})
    assert e.value.code == "nothing_to_catch"
    with pytest.raises(IllegalAction):
        act(s, 2, {"type": "catch", "seat": "0"})


# --- round end and scoring ----------------------------------------------------------------

def _end_with(hands_left, **options):
    s = game([["red-1", "red-2", "red-3"], ["blue-1", "blue-2", "blue-3"],
              ["green-1", "green-2", "green-3"]], "red-5", **options)
    s = dict(s, hands=[["red-9"], *hands_left])
    return KATO.apply(s, 0, play("red-9"))


def test_winner_collects_the_points_of_all_other_hands():
    s, events = _end_with([["blue-7", "wild"], ["green-skip", "red-0"]])
    r = KATO.round_result(s)
    assert r["scores"] == [57 + 20, 0, 0] and r["points_left"] == [0, 57, 20]
    assert r["placings"] == [1, 3, 2] and KATO.view(s, 1)["scores"] == [77, 0, 0]
    assert any(e["type"] == "round_over" for e in events) and s["actors"] == []


def test_own_penalty_each_player_adds_their_own_points_and_the_lowest_total_wins():
    s, _ = _end_with([["blue-7", "wild"], ["green-skip", "red-0"]], scoring="own_penalty",
                     rounds=1)
    assert KATO.round_result(s)["scores"] == [0, 57, 20]
    assert KATO.is_over(s) and KATO.result(s)["placings"] == [1, 3, 2]


def test_round_placings_put_the_winner_first_and_ties_share_a_place():
    s, _ = _end_with([["blue-7"], ["green-7"]])
    assert KATO.round_result(s)["placings"] == [1, 2, 2]


def test_the_match_ends_when_someone_reaches_target_score():
    s, events = _end_with([["blue-7", "wild"], ["green-skip"]], target_score=77)
    assert KATO.is_over(s) and KATO.result(s)["placings"] == [1, 2, 2]
    assert any(e["type"] == "match_over" for e in events)
    with pytest.raises(IllegalAction):
        KATO.start_next_round(s)
    s, _ = _end_with([["blue-7", "wild"], ["green-skip"]], target_score=78)
    assert not KATO.is_over(s)
    s2, _ = KATO.start_next_round(s)
    assert s2["round"] == 2 and s2["scores"] == [77, 0, 0] and not KATO.is_round_over(s2)


def test_with_rounds_the_match_is_that_many_rounds_and_the_most_points_wins():
    s, _ = _end_with([["blue-7", "wild"], ["green-skip"]], rounds=2, target_score=1)
    assert not KATO.is_over(s)
    s, _ = KATO.start_next_round(s)
    s = dict(s, hands=[["wild"], ["blue-9"], ["blue-1"]], turn=2, phase="play", actors=[2],
             color="blue")
    s = act(s, 2, play("blue-1"))
    assert KATO.is_over(s) and KATO.result(s)["scores"] == [77, 0, 59]
    assert KATO.result(s)["placings"] == [1, 3, 2]


def test_a_round_not_over_cannot_be_followed_by_the_next():
    s = game(KH, "red-5")
    with pytest.raises(IllegalAction) as e:
        KATO.start_next_round(s)
    assert e.value.code == "round_not_over"


# --- reshuffle ---------------------------------------------------------------------------

def test_an_empty_draw_pile_is_refilled_from_the_discard_pile_except_its_top():
    s = game(KH, "red-5")
    s = dict(s, draw_pile=[], discard=["blue-9", "green-9", "red-5"])
    s, events = KATO.apply(s, 0, D)
    assert s["discard"] == ["red-5"] and any(e["type"] == "reshuffled" for e in events)
    assert len(hand(s, 0)) == 4 and len(s["draw_pile"]) == 1
    s = dict(s, draw_pile=[], discard=["red-5"], phase="play", turn=1, actors=[1])
    s = act(s, 1, D)  # nothing to draw is never an error
    assert len(hand(s, 1)) == 3 and s["turn"] == 2


# --- multi_play ---------------------------------------------------------------------------

def test_doubling_plays_two_identical_number_cards_together():
    hands = [["red-7", "red-7", "blue-7"], ["blue-1", "blue-2", "blue-3"]]
    s = game(hands, "red-5", multi_play="doubling")
    assert play(["red-7", "red-7"]) in KATO.legal_actions(s, 0)
    with pytest.raises(IllegalAction):
        act(s, 0, play(["red-7", "blue-7"]))
    s = act(s, 0, play(["red-7", "red-7"], call=True))
    assert hand(s, 0) == ["blue-7"] and s["discard"][-2:] == ["red-7", "red-7"]


def test_same_number_plays_several_numbers_the_first_fits_the_last_lies_on_top():
    hands = [["red-7", "blue-7", "green-7"], ["blue-1", "blue-2", "blue-3"]]
    s = game(hands, "red-5", multi_play="same_number")
    legal = KATO.legal_actions(s, 0)
    assert play(["red-7", "green-7", "blue-7"]) in legal
    assert play(["blue-7", "red-7"]) not in legal
    with pytest.raises(IllegalAction):
        act(s, 0, play(["blue-7", "red-7"]))
    s = act(s, 0, play(["red-7", "blue-7"], call=True))
    assert s["color"] == "blue" and s["discard"][-1] == "blue-7"


def test_without_multi_play_only_one_card_is_played():
    hands = [["red-7", "red-7", "blue-7"], ["blue-1", "blue-2", "blue-3"]]
    s = game(hands, "red-5")
    with pytest.raises(IllegalAction) as e:
        act(s, 0, play(["red-7", "red-7"]))
    assert e.value.code == "one_card_only"


def test_same_number_is_not_allowed_with_a_just_drawn_card():
    hands = [["blue-7", "yellow-1", "yellow-2"], ["blue-1", "blue-2", "blue-3"]]
    s = game(hands, "red-5", ["red-7"], multi_play="same_number")
    s = act(s, 0, D)
    assert KATO.legal_actions(s, 0) == [play("red-7"), P]
    with pytest.raises(IllegalAction):
        act(s, 0, play(["red-7", "blue-7"]))


# --- cone cards ----------------------------------------------------------------------------

def test_bounce_cone_sends_the_whole_pending_draw_to_the_next_player():
    hands = [["red-draw2", "red-2", "red-3"], ["cone", "blue-2", "blue-3"],
             ["green-1", "green-2", "green-3"]]
    s = game(hands, "red-5", cone_cards=1)
    s = act(s, 0, play("red-draw2"))
    assert s["phase"] == "pending"  # a bounce cone is in the deck: the draw waits
    assert play("cone", "green") in KATO.legal_actions(s, 1)
    s = act(s, 1, play("cone", "green"))
    assert s["turn"] == 2 and s["pending"] == 2 and s["color"] == "green"
    s = act(s, 2, A)
    assert len(hand(s, 2)) == 5 and s["turn"] == 0


def test_reverse_cone_is_a_wild_that_reverses():
    hands = [["cone", "red-2", "red-3"], ["blue-1", "blue-2", "blue-3"],
             ["green-1", "green-2", "green-3"]]
    s = game(hands, "red-5", cone_cards=1, cone_effect="reverse")
    s = act(s, 0, play("cone", "blue"))
    assert s["direction"] == -1 and s["turn"] == 2 and s["color"] == "blue"


def test_draw10_cone_the_next_player_draws_10_and_is_skipped():
    hands = [["cone", "red-2", "red-3"], ["blue-1", "blue-2", "blue-3"],
             ["green-1", "green-2", "green-3"]]
    s = game(hands, "red-5", cone_cards=2, cone_effect="draw10")
    s = act(s, 0, play("cone", "blue"))
    assert len(hand(s, 1)) == 13 and s["turn"] == 2 and s["phase"] == "play"
    assert KATO.view(s, 0)["hand_counts"] == [2, 13, 3]


def test_cone_points_are_50():
    s, _ = _end_with([["cone"], ["green-1"]], cone_cards=1)
    assert KATO.round_result(s)["points_left"] == [0, 50, 1]


# --- views --------------------------------------------------------------------------------

def test_views_show_own_hand_counts_colour_direction_and_nothing_hidden():
    s = game(KH, "red-5")
    v = KATO.view(s, 1)
    assert v["hand"] == ["blue-1", "blue-2", "blue-3"] and v["hand_counts"] == [3, 3, 3]
    assert v["top"] == "red-5" and v["color"] == "red" and v["direction"] == 1
    assert v["actors"] == [0] and v["dealer"] == 2 and v["round"] == 1
    spectator = KATO.view(s, None)
    assert spectator["hand"] is None
    text = repr(spectator)
    assert "blue-1" not in text and "green-1" not in text


# --- more rulings -------------------------------------------------------------------------

def test_legal_actions_list_plays_without_call_and_one_entry_per_colour_for_wilds():
    s = game([["wild", "red-2", "red-2"], ["blue-1", "blue-2", "blue-3"]], "red-5")
    assert KATO.legal_actions(s, 0) == [
        play("wild", "red"), play("wild", "yellow"), play("wild", "green"),
        play("wild", "blue"), play("red-2"), D]
    assert KATO.legal_actions(s, 1) == []


def test_a_player_caught_during_a_pending_draw_still_draws_the_penalty():
    s = game(W4, "blue-5", ["red-7", "red-8", "red-9", "yellow-9", "yellow-1", "yellow-2"])
    s = dict(s, hands=[["wild-draw4", "red-2"], hand(s, 1), hand(s, 2)])
    s = act(s, 0, play("wild-draw4", "green"))  # leaves one card, no call
    assert s["actors"] == [0, 1, 2] and s["phase"] == "pending"
    s = act(s, 2, {"type": "catch", "seat": 0})
    assert len(hand(s, 0)) == 3 and s["actors"] == [1] and s["phase"] == "pending"


def test_kato_penalty_zero_makes_a_catch_cost_nothing():
    s = _to_two_cards(game(KH, "red-5", kato_penalty=0))
    s = act(act(s, 0, play("red-1")), 1, {"type": "catch", "seat": 0})
    assert hand(s, 0) == ["red-2"] and s["actors"] == [1]


def test_last_card_draw10_cone_still_makes_the_next_player_draw():
    s = game(KH, "red-5", cone_cards=1, cone_effect="draw10")
    s = dict(s, hands=[["cone"], hand(s, 1), hand(s, 2)])
    s = act(s, 0, play("cone", "red"))
    assert KATO.is_round_over(s) and len(hand(s, 1)) == 13


def test_reverse_cone_with_two_players_acts_as_skip():
    s = game([["cone", "red-2", "red-3"], ["blue-1", "blue-2", "blue-3"]], "red-5",
             cone_cards=1, cone_effect="reverse")
    s = act(s, 0, play("cone", "blue"))
    assert s["turn"] == 0 and s["direction"] == 1


def test_bounce_cone_as_last_card_sends_the_pending_draw_on_at_once():
    hands = [["red-draw2", "red-2", "red-3"], ["cone", "blue-2", "blue-3"],
             ["green-1", "green-2", "green-3"]]
    s = game(hands, "red-5", cone_cards=1)
    s = act(s, 0, play("red-draw2"))
    s = dict(s, hands=[hand(s, 0), ["cone"], hand(s, 2)])
    s = act(s, 1, play("cone", "green"))
    assert KATO.is_round_over(s) and len(hand(s, 2)) == 5
    assert KATO.round_result(s)["winner"] == 1


def test_a_bounced_draw_cannot_be_challenged():
    hands = [["wild-draw4", "red-2", "red-3"], ["cone", "blue-2", "blue-3"],
             ["green-1", "green-2", "green-3"]]
    s = game(hands, "blue-5", cone_cards=1)
    s = act(s, 0, play("wild-draw4", "red"))
    assert CH in KATO.legal_actions(s, 1)
    s = act(s, 1, play("cone", "yellow"))
    assert KATO.legal_actions(s, 2) == [A] and s["pending"] == 4


def test_round_result_and_views_are_copies():
    s, _ = _end_with([["blue-7"], ["green-7"]])
    KATO.round_result(s)["scores"].append(99)
    KATO.view(s, 0)["last_result"]["scores"].append(99)
    assert len(KATO.round_result(s)["scores"]) == 3


def test_malformed_fields_are_rejected_and_change_nothing():
    s = game(KH, "red-5")
    before = repr(s)
    for bad in ({"type": "play", "cards": "red-1"}, {"type": "play", "cards": []},
                {"type": "play", "cards": [7]}, {"type": "play", "cards": ["purple-1"]},
                {"type": "play", "cards": ["red-1"], "call": "yes"},
                {"type": "play", "cards": ["red-1"], "color": "blue"},
                {"type": "play", "cards": ["red-1"], "extra": 1},
                {"type": "draw", "cards": ["red-1"]}, {"type": "choose_color", "color": "red"},
                {"type": "accept"}, {"type": "challenge"}, {"type": "call"}, {"type": "pass"}):
        with pytest.raises(IllegalAction):
            act(s, 0, bad)
    assert repr(s) == before
