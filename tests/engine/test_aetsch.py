"""Ätsch, Ätsch: one test per ruling of RULES.md, each on a dealt-to-order deck."""

from collections import Counter

import pytest

from games.engine import GAMES, IllegalAction, InvalidDeck, InvalidOptions
from games.engine.aetsch import AETSCH, FULL_DECK

G = AETSCH


def deck_for(hands, top, draw=()):
    """A full deck that deals ``hands`` (by seat, seat 0 left of the dealer), turns up ``top``
    and then draws ``draw``; the remaining cards follow, jokers last."""
    n = len(hands)
    size = len(hands[0])
    assert all(len(h) == size for h in hands)
    deck = [hands[k][r] for r in range(size) for k in range(n)] + [top] + list(draw)
    rest = Counter(FULL_DECK)
    rest.subtract(deck)
    assert all(v >= 0 for v in rest.values()), "more copies than the deck holds"
    for card in sorted(rest, key=lambda c: (c == "joker", FULL_DECK.index(c))):
        deck += [card] * rest[card]
    return deck


def new(hands, top, draw=(), seed=1, **options):
    options = {"hand_size": len(hands[0]), **options}
    return G.new_game(len(hands), seed, options, deck=deck_for(hands, top, draw))


def act(state, who, type_, **fields):
    return G.apply(state, who, {"type": type_, **fields})


def play(state, seat, card, **fields):
    return act(state, seat, "play", card=card, **fields)[0]


def types(events):
    return [e["type"] for e in events]


FILL2 = ["clubs-3", "clubs-4", "clubs-6"]
FILL3 = ["diamonds-3", "diamonds-4", "diamonds-6"]
FILL4 = ["spades-3", "spades-4", "spades-6"]


# --- the game and its options ---------------------------------------------------------------

def test_registered_as_aetsch_for_two_to_six_players():
    assert GAMES["aetsch"] is G
    assert (G.id, G.name, G.min_players, G.max_players) == ("aetsch", "Ätsch, Ätsch", 2, 6)
    for bad in (1, 7, True, "4"):
        with pytest.raises(InvalidOptions):
            G.new_game(bad, 1)


def test_deck_is_two_french_packs_and_six_jokers():
    deck = G.full_deck(G.default_options())
    assert len(deck) == 110
    counts = Counter(deck)
    assert counts["joker"] == 6
    assert counts["hearts-10"] == 2 and counts["spades-J"] == 2 and counts["clubs-2"] == 2
    assert len(counts) == 4 * 13 + 1


def test_options_defaults_and_ranges():
    assert G.default_options() == {"hand_size": 8, "play_drawn": True, "jack_on_jack": False,
                                   "rounds": 1}
    for bad in ({"hand_size": 2}, {"hand_size": 11}, {"rounds": 0}, {"rounds": 101},
                {"play_drawn": 1}, {"jack_on_jack": "no"}, {"colour": 1}):
        with pytest.raises(InvalidOptions):
            G.new_game(3, 1, bad)


def test_a_deck_that_is_not_the_full_deck_is_rejected():
    deck = deck_for([FILL2, FILL3], "hearts-5")
    with pytest.raises(InvalidDeck):
        G.new_game(2, 1, {"hand_size": 3}, deck=deck[:-1])
    with pytest.raises(InvalidDeck):
        G.new_game(2, 1, {"hand_size": 3}, deck=deck[:-1] + ["hearts-5"])


# --- deal and first card -------------------------------------------------------------------

def test_deal_one_at_a_time_from_seat_zero_then_turn_up_the_next_card():
    deck = deck_for([FILL2, FILL3, FILL4], "hearts-5", ["hearts-9"])
    state = G.new_game(3, 1, {"hand_size": 3}, deck=deck)
    assert state["hands"] == [FILL2, FILL3, FILL4]
    assert state["discard_pile"] == ["hearts-5"]
    assert state["draw_pile"][0] == "hearts-9"
    assert state["dealer"] == 2
    view = G.view(state, 0)
    assert view["hand"] == FILL2 and view["hand_counts"] == [3, 3, 3]
    assert view["top"] == "hearts-5" and view["suit"] == "hearts" and view["direction"] == 1
    assert view["actors"] == [0] and view["dealer"] == 2 and view["round"] == 1


def test_default_hand_size_is_eight():
    state = G.new_game(4, 7)
    assert [len(h) for h in state["hands"]] == [8, 8, 8, 8]


@pytest.mark.parametrize("top", ["hearts-7", "hearts-2", "hearts-A", "hearts-J", "hearts-5",
                                 "hearts-10", "hearts-K"])
def test_first_card_effect_does_not_apply(top):
    state = new([FILL2, FILL3, FILL4], top)
    assert G.actors(state) == [0]
    assert state["phase"] == "play" and state["direction"] == 1
    assert G.view(state, 0)["pending_two"] == 0
    assert state["suit"] == "hearts"  # a turned-up J wishes nothing


def test_joker_turned_up_goes_to_the_bottom_and_the_next_card_is_turned_up():
    deck = deck_for([FILL2, FILL3], "joker", ["joker", "spades-9", "hearts-3"])
    state = G.new_game(2, 1, {"hand_size": 3}, deck=deck)
    assert state["discard_pile"] == ["spades-9"]
    assert state["draw_pile"][0] == "hearts-3"
    assert state["draw_pile"][-2:] == ["joker", "joker"]
    assert state["suit"] == "spades"


def three_player_win(**options):
    """Seat 0 goes out with calls over three turns; seat 2 plays a drawn card on the way.
    Ends with cards left [0, 4, 4]."""
    state = new([["hearts-7", "hearts-8", "hearts-9"], FILL3, FILL4], "hearts-3",
                ["hearts-4", "spades-5", "clubs-5"], **options)
    state = play(state, 0, "hearts-7")                       # seat 1 is skipped
    state, _ = act(state, 2, "draw")                         # hearts-4 fits
    state = play(state, 2, "hearts-4")
    state = play(state, 0, "hearts-8", call=True)            # "Ätsch!"
    state, _ = act(state, 1, "draw")                         # spades-5 does not fit
    state, _ = act(state, 2, "draw")                         # clubs-5 does not fit
    return act(state, 0, "play", card="hearts-9", call=True)  # "Ätsch, Ätsch!"


def test_dealer_moves_one_seat_clockwise_each_round_and_left_of_dealer_starts():
    from games.engine import cards, rng

    state, _ = three_player_win(rounds=3)
    assert G.is_round_over(state) and not G.is_over(state)
    assert G.actors(state) == []
    shuffled = rng.shuffled(state["rng"], FULL_DECK)[1]
    state, events = G.start_next_round(state)
    assert state["dealer"] == 0 and state["round"] == 2
    assert G.actors(state) == [1]                     # left of the dealer starts
    hands, _ = cards.deal_round_robin(shuffled, 3, 3, first=1)
    assert state["hands"] == hands                    # and is dealt to first
    assert state["direction"] == 1
    assert "round_started" in types(events)
    dealt = [e for e in events if e["type"] == "dealt"]
    assert [e["visible_to"] for e in dealt] == [[0], [1], [2]]


# --- matching ------------------------------------------------------------------------------

def test_play_a_card_of_the_suit_in_force():
    state = new([["hearts-9", "clubs-9", "spades-4"], FILL3], "hearts-5")
    state = play(state, 0, "hearts-9")
    assert state["discard_pile"][-1] == "hearts-9" and G.actors(state) == [1]
    assert state["hands"][0] == ["clubs-9", "spades-4"]


def test_play_a_card_of_the_rank_of_the_top_card():
    state = new([["clubs-5", "clubs-9", "spades-4"], FILL3], "hearts-5")
    state = play(state, 0, "clubs-5")
    assert state["suit"] == "clubs"


def test_a_card_that_fits_neither_suit_nor_rank_is_rejected():
    state = new([["clubs-9", "hearts-9", "spades-4"], FILL3], "hearts-5")
    with pytest.raises(IllegalAction) as info:
        act(state, 0, "play", card="clubs-9")
    assert info.value.code == "does_not_match"
    assert G.legal_actions(state, 0) == [{"type": "play", "card": "hearts-9"}, {"type": "draw"}]


def test_jack_on_anything_but_a_jack_with_a_wished_suit():
    state = new([["spades-J", "clubs-9", "spades-4"],
                 ["clubs-3", "diamonds-J", "hearts-6"]], "hearts-5")
    state, events = act(state, 0, "play", card="spades-J", suit="clubs")
    assert state["suit"] == "clubs" and G.view(state, 1)["suit"] == "clubs"
    assert events[0] == {"type": "played", "visible_to": "all", "seat": 0, "card": "spades-J",
                         "suit": "clubs"}
    # The wished suit is in force; a J may not follow a J; hearts-6 fits nothing.
    assert G.legal_actions(state, 1) == [{"type": "play", "card": "clubs-3"}, {"type": "draw"}]
    with pytest.raises(IllegalAction) as info:
        act(state, 1, "play", card="diamonds-J", suit="hearts")
    assert info.value.code == "does_not_match"


def test_jack_on_jack_is_refused_even_in_the_wished_suit():
    state = new([["spades-J", "clubs-9", "spades-4"], ["clubs-J", "hearts-6", "hearts-8"]],
                "hearts-5")
    state = play(state, 0, "spades-J", suit="clubs")
    with pytest.raises(IllegalAction):
        act(state, 1, "play", card="clubs-J", suit="hearts")


def test_jack_on_jack_allowed_with_option():
    state = new([["spades-J", "clubs-9", "spades-4"], ["diamonds-J", "hearts-6", "hearts-8"]],
                "hearts-5", jack_on_jack=True)
    state = play(state, 0, "spades-J", suit="clubs")
    plays = [a for a in G.legal_actions(state, 1) if a["type"] == "play"]
    assert plays == [{"type": "play", "card": "diamonds-J", "suit": s}
                     for s in ("clubs", "spades", "hearts", "diamonds")]
    state = play(state, 1, "diamonds-J", suit="hearts")
    assert state["suit"] == "hearts"


def test_jack_and_joker_need_a_suit_and_other_cards_take_none():
    state = new([["spades-J", "joker", "hearts-4"], FILL3], "hearts-5")
    for card in ("spades-J", "joker"):
        with pytest.raises(IllegalAction) as info:
            act(state, 0, "play", card=card)
        assert info.value.code == "suit_required"
        with pytest.raises(IllegalAction) as info:
            act(state, 0, "play", card=card, suit="red")
        assert info.value.code == "invalid_value"
    with pytest.raises(IllegalAction) as info:
        act(state, 0, "play", card="hearts-4", suit="clubs")
    assert info.value.code == "suit_not_allowed"


def test_joker_on_anything():
    state = new([["joker", "clubs-9", "spades-4"], FILL3], "hearts-5")
    assert {"type": "play", "card": "joker", "suit": "clubs"} in G.legal_actions(state, 0)
    state, _ = act(state, 0, "play", card="joker", suit="clubs")
    assert state["discard_pile"][-1] == "joker" and state["suit"] == "clubs"


# --- drawing --------------------------------------------------------------------------------

def test_draw_is_always_allowed_and_a_card_that_does_not_fit_ends_the_turn():
    state = new([["hearts-9", "clubs-9", "spades-4"], FILL3], "hearts-5", ["spades-9"])
    assert {"type": "draw"} in G.legal_actions(state, 0)
    state, events = act(state, 0, "draw")
    assert state["hands"][0][-1] == "spades-9"
    assert G.actors(state) == [1]
    public = [e for e in events if e["type"] == "drew"]
    private = [e for e in events if e["type"] == "drew_cards"]
    assert public == [{"type": "drew", "visible_to": "all", "seat": 0, "count": 1,
                       "reason": "draw"}]
    assert private[0]["visible_to"] == [0] and private[0]["cards"] == ["spades-9"]


def test_a_drawn_card_that_fits_may_be_played_at_once():
    state = new([["clubs-9", "clubs-8", "spades-4"], FILL3], "hearts-5", ["hearts-9"])
    state, _ = act(state, 0, "draw")
    assert state["phase"] == "drawn" and G.actors(state) == [0]
    assert G.view(state, 0)["drawn_card"] == "hearts-9"
    assert G.view(state, 1)["drawn_card"] is None
    assert G.legal_actions(state, 0) == [{"type": "play", "card": "hearts-9"}, {"type": "pass"}]
    state = play(state, 0, "hearts-9")
    assert state["discard_pile"][-1] == "hearts-9" and G.actors(state) == [1]


def test_a_drawn_card_that_fits_may_be_kept_with_pass():
    state = new([["clubs-9", "clubs-8", "spades-4"], FILL3], "hearts-5", ["hearts-9"])
    state, _ = act(state, 0, "draw")
    state, events = act(state, 0, "pass")
    assert state["hands"][0] == ["clubs-9", "clubs-8", "spades-4", "hearts-9"]
    assert G.actors(state) == [1] and "passed" in types(events)


def test_after_drawing_only_the_drawn_card_may_be_played():
    state = new([["hearts-8", "clubs-8", "spades-4"], FILL3], "hearts-5", ["hearts-9"])
    state, _ = act(state, 0, "draw")
    with pytest.raises(IllegalAction) as info:
        act(state, 0, "play", card="hearts-8")
    assert info.value.code == "not_drawn_card"
    with pytest.raises(IllegalAction) as info:
        act(state, 0, "draw")
    assert info.value.code == "wrong_phase"


def test_without_play_drawn_the_turn_ends_after_drawing():
    state = new([["clubs-9", "clubs-8", "spades-4"], FILL3], "hearts-5", ["hearts-9"],
                play_drawn=False)
    state, _ = act(state, 0, "draw")
    assert state["phase"] == "play" and G.actors(state) == [1]


def test_pass_is_only_allowed_after_drawing_a_fitting_card():
    state = new([["clubs-9", "clubs-8", "spades-4"], FILL3], "hearts-5")
    with pytest.raises(IllegalAction) as info:
        act(state, 0, "pass")
    assert info.value.code == "wrong_phase"


def test_an_empty_draw_pile_is_refilled_from_the_discard_pile_and_else_fewer_are_drawn():
    state = new([["clubs-9", "clubs-8", "spades-4"], ["hearts-9", "clubs-3", "clubs-4"]],
                "hearts-5")
    while state["draw_pile"] or state["phase"] == "drawn":
        seat = G.actors(state)[0]
        state, _ = act(state, seat, "pass" if state["phase"] == "drawn" else "draw")
    assert state["discard_pile"] == ["hearts-5"]
    seat = G.actors(state)[0]
    before = len(state["hands"][seat])
    state, events = act(state, seat, "draw")               # nothing left: never an error
    assert len(state["hands"][seat]) == before
    assert [e for e in events if e["type"] == "drew"][0]["count"] == 0
    # seat 1 plays; the next draw reshuffles the one card under the top
    if seat == 1:
        state, _ = act(state, 0, "draw")
    state = play(state, 1, "hearts-9")
    state, events = act(state, 0, "draw")
    assert "reshuffled" in types(events)
    assert state["discard_pile"] == ["hearts-9"] and state["hands"][0][-1] == "hearts-5"


# --- 2 --------------------------------------------------------------------------------------

def test_two_next_player_draws_two_and_play_continues_after_them():
    state = new([["hearts-2", "clubs-9", "spades-4"], FILL3, FILL4], "hearts-5",
                ["spades-7", "spades-8"])
    state, events = act(state, 0, "play", card="hearts-2")
    assert state["phase"] == "two" and G.actors(state) == [1]
    assert G.view(state, 2)["pending_two"] == 2
    assert G.legal_actions(state, 1) == [{"type": "draw"}]
    state, _ = act(state, 1, "draw")
    assert state["hands"][1] == FILL3 + ["spades-7", "spades-8"]
    assert G.actors(state) == [2] and G.view(state, 2)["pending_two"] == 0


def test_two_pushed_back_costs_the_first_player_four_and_play_continues_after_the_target():
    state = new([["hearts-2", "clubs-9", "spades-4"], ["clubs-2", "clubs-8", "clubs-7"], FILL4],
                "hearts-5", ["spades-7", "spades-8", "spades-9", "spades-10"])
    state = play(state, 0, "hearts-2")
    state = play(state, 1, "clubs-2")
    assert G.actors(state) == [0] and G.view(state, 0)["pending_two"] == 4
    state, _ = act(state, 0, "draw")
    assert state["hands"][0] == ["clubs-9", "spades-4", "spades-7", "spades-8", "spades-9",
                                 "spades-10"]
    assert G.actors(state) == [2] and state["suit"] == "clubs"


def test_two_ping_pong_grows_the_total_by_two_each_push():
    state = new([["hearts-2", "diamonds-2", "spades-4"], ["clubs-2", "spades-2", "clubs-7"],
                 FILL4], "hearts-5")
    state = play(state, 0, "hearts-2")
    state = play(state, 1, "clubs-2")
    state = play(state, 0, "diamonds-2", call=True)
    assert G.actors(state) == [1] and G.view(state, 1)["pending_two"] == 6
    state = play(state, 1, "spades-2", call=True)
    assert G.actors(state) == [0] and G.view(state, 0)["pending_two"] == 8
    state, _ = act(state, 0, "draw")
    assert len(state["hands"][0]) == 1 + 8
    assert G.actors(state) == [2]


def test_only_a_two_may_be_played_against_a_pending_two():
    state = new([["hearts-2", "clubs-9", "spades-4"], ["hearts-7", "spades-J", "joker"], FILL4],
                "hearts-5")
    state = play(state, 0, "hearts-2")
    for card, fields in (("hearts-7", {}), ("spades-J", {"suit": "clubs"}),
                         ("joker", {"suit": "clubs"})):
        with pytest.raises(IllegalAction) as info:
            act(state, 1, "play", card=card, **fields)
        assert info.value.code == "must_answer_two"
    assert G.legal_actions(state, 1) == [{"type": "draw"}]


def test_any_two_may_push_back_whatever_its_suit():
    state = new([["hearts-2", "clubs-9", "spades-4"], ["spades-2", "clubs-8", "clubs-7"]],
                "hearts-5")
    state = play(state, 0, "hearts-2")
    assert G.legal_actions(state, 1) == [{"type": "play", "card": "spades-2"}, {"type": "draw"}]


def test_two_with_two_players_the_player_of_the_two_plays_again_after_the_draw():
    state = new([["hearts-2", "clubs-9", "spades-4"], FILL3], "hearts-5")
    state = play(state, 0, "hearts-2")
    state, _ = act(state, 1, "draw")
    assert G.actors(state) == [0] and len(state["hands"][1]) == 5


def test_two_pushed_back_with_two_players_the_drawer_plays_next():
    state = new([["hearts-2", "clubs-9", "spades-4"], ["clubs-2", "clubs-8", "clubs-7"]],
                "hearts-5")
    state = play(state, 0, "hearts-2")
    state = play(state, 1, "clubs-2")
    state, _ = act(state, 0, "draw")
    # play continues after the first target (seat 1), which with two players is seat 0
    assert len(state["hands"][0]) == 2 + 4 and G.actors(state) == [0]


# --- 5, 7, 10, K, A -------------------------------------------------------------------------

FIVE_DRAWN = ["spades-7", "spades-8", "spades-9", "spades-10", "spades-Q"]


def test_five_draws_five_unseen_and_gives_them_out_one_by_one():
    state = new([["hearts-5", "clubs-9", "clubs-10"], FILL3, FILL4], "hearts-3", FIVE_DRAWN)
    state, events = act(state, 0, "play", card="hearts-5")
    assert state["phase"] == "give_drawn" and G.actors(state) == [0]
    drew = [e for e in events if e["type"].startswith("drew")]
    assert drew == [{"type": "drew", "visible_to": "all", "seat": 0, "count": 5,
                     "reason": "five", "unseen": True}]
    view = G.view(state, 0)
    assert view["to_give_count"] == 5 and view["hand"] == ["clubs-9", "clubs-10"]
    assert not any(card in str(view) for card in FIVE_DRAWN)
    assert G.legal_actions(state, 0) == [{"type": "give_drawn", "to": 1},
                                         {"type": "give_drawn", "to": 2}]
    for k, to in enumerate([1, 2, 2, 1, 2]):
        with pytest.raises(IllegalAction) as info:
            act(state, to, "draw")                       # nobody else acts in between
        assert info.value.code == "not_your_turn"
        state, events = act(state, 0, "give_drawn", to=to)
        public, private = events[0], events[1]
        assert public == {"type": "gave_drawn", "visible_to": "all", "seat": 0, "to": to,
                          "left": 4 - k}
        assert private == {"type": "received_card", "visible_to": [to], "seat": to,
                           "card": FIVE_DRAWN[k], "from": 0}
    assert state["hands"][1] == FILL3 + ["spades-7", "spades-10"]
    assert state["hands"][2] == FILL4 + ["spades-8", "spades-9", "spades-Q"]
    assert state["phase"] == "play" and G.actors(state) == [1]


def test_five_cards_go_only_to_other_players():
    state = new([["hearts-5", "clubs-9", "clubs-10"], FILL3, FILL4], "hearts-3")
    state = play(state, 0, "hearts-5")
    # Not another player's seat: the game's answer; not a seat number at all: the shape's.
    for bad, code in ((0, "invalid_target"), (3, "invalid_target"), (-1, "invalid_value"),
                      (True, "invalid_type"), ("1", "invalid_type"), (None, "invalid_type")):
        with pytest.raises(IllegalAction) as info:
            act(state, 0, "give_drawn", to=bad)
        assert info.value.code == code


def test_seven_skips_the_next_player():
    state = new([["hearts-7", "clubs-9", "clubs-10"], FILL3, FILL4], "hearts-3")
    state, events = act(state, 0, "play", card="hearts-7")
    assert G.actors(state) == [2]
    assert {"type": "skipped", "visible_to": "all", "seat": 1} in events


def test_ten_lets_its_player_look_at_another_hand_seen_by_them_alone():
    state = new([["hearts-10", "clubs-9", "clubs-10"], FILL3, FILL4], "hearts-3")
    state = play(state, 0, "hearts-10")
    assert state["phase"] == "peek" and G.actors(state) == [0]
    assert G.legal_actions(state, 0) == [{"type": "peek", "seat": 1}, {"type": "peek", "seat": 2}]
    with pytest.raises(IllegalAction) as info:
        act(state, 0, "peek", seat=0)
    assert info.value.code == "invalid_target"
    state, events = act(state, 0, "peek", seat=2)
    assert G.view(state, 0)["peeked"] == {"seat": 2, "hand": FILL4}
    assert G.view(state, 1)["peeked"] is None and G.view(state, None)["peeked"] is None
    assert G.view(state, 2)["peeked"] is None
    for e in events:
        if e["visible_to"] == "all":
            assert "cards" not in e and "hand" not in e
    assert [e for e in events if e["type"] == "peeked_hand"][0]["visible_to"] == [0]
    assert G.actors(state) == [1]


def test_king_gives_one_hand_card_to_the_next_player():
    state = new([["hearts-K", "clubs-9", "clubs-10"], FILL3, FILL4], "hearts-3")
    state = play(state, 0, "hearts-K")
    assert state["phase"] == "give" and G.view(state, 2)["give_to"] == 1
    assert G.legal_actions(state, 0) == [{"type": "give", "card": "clubs-9"},
                                         {"type": "give", "card": "clubs-10"}]
    with pytest.raises(IllegalAction) as info:
        act(state, 0, "give", card="diamonds-3")
    assert info.value.code == "card_not_in_hand"
    state, events = act(state, 0, "give", card="clubs-10")
    assert state["hands"][0] == ["clubs-9"] and state["hands"][1] == FILL3 + ["clubs-10"]
    assert events[0] == {"type": "gave", "visible_to": "all", "seat": 0, "to": 1}
    assert events[1]["visible_to"] == [0, 1] and events[1]["card"] == "clubs-10"
    assert G.actors(state) == [1]


def test_king_giving_away_the_last_card_after_a_called_play_wins():
    state = new([["hearts-7", "hearts-K", "clubs-9"], FILL3], "hearts-3")
    state = play(state, 0, "hearts-7")                     # two players: seat 0 again
    state = play(state, 0, "hearts-K", call=True)          # leaves one card: "Ätsch!"
    state, events = act(state, 0, "give", card="clubs-9")
    assert G.is_over(state) and state["winner"] == 0
    assert G.result(state)["placings"] == [1, 2]
    assert G.round_result(state)["scores"] == [0, 4]


def test_king_as_an_uncalled_last_card_draws_five_then_still_gives_a_card():
    state = new([["hearts-7", "hearts-7", "hearts-K"], FILL3], "hearts-3", FIVE_DRAWN)
    state = play(state, 0, "hearts-7")
    state = play(state, 0, "hearts-7", call=True)
    state = play(state, 0, "hearts-K")                     # no "Ätsch, Ätsch!"
    assert not G.is_round_over(state) and state["hands"][0] == FIVE_DRAWN
    assert state["phase"] == "give"
    state, _ = act(state, 0, "give", card="spades-Q")
    assert state["hands"][1] == FILL3 + ["spades-Q"] and G.actors(state) == [1]


def test_king_goes_to_the_next_player_in_the_current_direction():
    state = new([["hearts-A", "hearts-K", "clubs-9"], FILL3, FILL4, FILL2], "hearts-3")
    state = play(state, 0, "hearts-A")                     # direction now -1: seat 3
    state, _ = act(state, 3, "draw")                       # seat 3 passes the turn to 2
    state, _ = act(state, 2, "draw")
    state, _ = act(state, 1, "draw")
    state = play(state, 0, "hearts-K")
    assert G.view(state, 0)["give_to"] == 3
    state, _ = act(state, 0, "give", card="clubs-9")
    assert state["hands"][3][-1] == "clubs-9"


def test_ace_reverses_the_direction():
    state = new([["hearts-A", "clubs-9", "clubs-10"], FILL3, FILL4], "hearts-3")
    state, events = act(state, 0, "play", card="hearts-A")
    assert state["direction"] == -1 and G.view(state, 1)["direction"] == -1
    assert G.actors(state) == [2]
    assert {"type": "direction", "visible_to": "all", "direction": -1} in events


def test_ace_with_two_players_skips_the_opponent():
    state = new([["hearts-A", "clubs-9", "clubs-10"], FILL3], "hearts-3")
    state = play(state, 0, "hearts-A")
    assert state["direction"] == 1 and G.actors(state) == [0]


# --- joker and its die ----------------------------------------------------------------------

JOKER_DRAWS = ["diamonds-7", "diamonds-8", "diamonds-9", "diamonds-10", "diamonds-Q",
               "diamonds-K", "diamonds-A", "diamonds-5", "diamonds-2", "clubs-7"]


def joker_seeds(hands, players_draw=JOKER_DRAWS, top="hearts-5", limit=400):
    """For each die face, the first seed whose roll after seat 0's joker shows it."""
    found = {}
    for seed in range(limit):
        state = new(hands, top, players_draw, seed=seed)
        after, _ = act(state, 0, "play", card="joker", suit="spades")
        found.setdefault(after["last_roll"]["face"], seed)
        if len(found) == 6:
            break
    assert sorted(found) == [1, 2, 3, 4, 5, 6]
    return found


FOUR = [["joker", "hearts-8", "hearts-9"], FILL2, FILL3, FILL4]


def test_joker_wishes_then_rolls_and_every_face_has_its_effect():
    seeds = joker_seeds(FOUR)
    for face, seed in seeds.items():
        state = new(FOUR, "hearts-5", JOKER_DRAWS, seed=seed)
        state, events = act(state, 0, "play", card="joker", suit="spades")
        assert state["suit"] == "spades"                    # the wish stands whatever the roll
        roll = [e for e in events if e["type"] == "die_rolled"]
        assert roll == [{"type": "die_rolled", "visible_to": "all", "seat": 0, "face": face}]
        assert types(events).index("played") < types(events).index("die_rolled")
        assert G.view(state, 3)["last_roll"] == {"seat": 0, "face": face}
        hands = state["hands"]
        if face == 1:                                       # next player skipped
            assert G.actors(state) == [2] and hands[1] == FILL2
        elif face == 2:                                     # next draws 2, then plays
            assert hands[1] == FILL2 + JOKER_DRAWS[:2]
            assert G.actors(state) == [1] and state["phase"] == "play"
            assert G.view(state, 1)["pending_two"] == 0     # no pushing back
        elif face == 3:                                     # two others swap hands
            assert state["phase"] == "swap" and G.actors(state) == [0]
            assert G.legal_actions(state, 0) == [{"type": "swap", "seats": [1, 2]},
                                                 {"type": "swap", "seats": [1, 3]},
                                                 {"type": "swap", "seats": [2, 3]}]
            for bad, code in (([0, 1], "invalid_seats"), ([1, 1], "invalid_seats"),
                              ([1, 4], "invalid_seats"), ([1], "invalid_value"),
                              ("1,2", "invalid_type"), ([True, 2], "invalid_type")):
                with pytest.raises(IllegalAction) as info:
                    act(state, 0, "swap", seats=bad)
                assert info.value.code == code
            with pytest.raises(IllegalAction):
                act(state, 0, "reroll")
            state, events = act(state, 0, "swap", seats=[3, 1])
            assert state["hands"][1] == FILL4 and state["hands"][3] == FILL2
            assert {"type": "swapped", "visible_to": "all", "seat": 0, "seats": [3, 1]} in events
            assert G.actors(state) == [1]
        elif face == 4:                                     # next draws 4, then plays
            assert hands[1] == FILL2 + JOKER_DRAWS[:4] and G.actors(state) == [1]
        elif face == 5:                                     # every other player draws 3
            assert hands[1] == FILL2 + JOKER_DRAWS[0:3]
            assert hands[2] == FILL3 + JOKER_DRAWS[3:6]
            assert hands[3] == FILL4 + JOKER_DRAWS[6:9]
            assert hands[0] == ["hearts-8", "hearts-9"] and G.actors(state) == [1]
        else:                                               # next draws 4 and is skipped
            assert hands[1] == FILL2 + JOKER_DRAWS[:4] and G.actors(state) == [2]


def test_joker_three_with_two_players_swaps_with_the_opponent_or_rerolls():
    two = [["joker", "hearts-8", "hearts-9"], FILL2]
    seed = joker_seeds(two)[3]
    state = new(two, "hearts-5", JOKER_DRAWS, seed=seed)
    state = play(state, 0, "joker", suit="spades")
    assert G.legal_actions(state, 0) == [{"type": "swap", "seats": [0, 1]}, {"type": "reroll"}]
    swapped, _ = act(state, 0, "swap", seats=[0, 1])
    assert swapped["hands"] == [FILL2, ["hearts-8", "hearts-9"]]
    assert G.actors(swapped) == [1]
    rerolled, events = act(state, 0, "reroll")
    assert types(events)[:2] == ["rerolled", "die_rolled"]
    assert rerolled["last_roll"]["face"] == events[1]["face"]


def test_after_a_joker_only_the_wished_suit_a_jack_or_a_joker_may_follow():
    two = [["joker", "hearts-8", "hearts-9"], ["spades-9", "clubs-J", "hearts-5"]]
    seeds = joker_seeds(two)
    seed = seeds.get(2, seeds.get(4))
    state = new(two, "hearts-5", JOKER_DRAWS, seed=seed)
    state = play(state, 0, "joker", suit="spades")
    assert G.actors(state) == [1]
    plays = {a["card"] for a in G.legal_actions(state, 1) if a["type"] == "play"}
    assert plays == {"spades-9", "clubs-J"}  # not hearts-5: a joker has neither suit nor rank


# --- calls, winning and placings ------------------------------------------------------------

def test_a_play_leaving_one_card_without_a_call_draws_two_at_once():
    state = new([["hearts-7", "hearts-8", "clubs-9"], FILL3], "hearts-3",
                ["spades-7", "spades-8"])
    state = play(state, 0, "hearts-7")
    state, events = act(state, 0, "play", card="hearts-8")
    assert state["hands"][0] == ["clubs-9", "spades-7", "spades-8"]
    assert {"type": "penalty", "visible_to": "all", "seat": 0, "count": 2,
            "reason": "no_call"} in events
    assert G.actors(state) == [1]


def test_a_called_play_leaving_one_card_is_not_penalised():
    state = new([["hearts-7", "hearts-8", "clubs-9"], FILL3], "hearts-3")
    state = play(state, 0, "hearts-7")
    state, events = act(state, 0, "play", card="hearts-8", call=True)
    assert state["hands"][0] == ["clubs-9"]
    assert {"type": "called", "visible_to": "all", "seat": 0, "call": "Ätsch!"} in events
    assert "penalty" not in types(events)


def test_a_last_card_played_without_a_call_draws_five_and_plays_on():
    state = new([["hearts-7", "hearts-7", "hearts-9"], FILL3], "hearts-3",
                ["spades-7", "spades-8", "spades-9", "spades-10", "spades-Q"])
    state = play(state, 0, "hearts-7")
    state = play(state, 0, "hearts-7", call=True)
    state, events = act(state, 0, "play", card="hearts-9")
    assert not G.is_round_over(state)
    assert state["hands"][0] == ["spades-7", "spades-8", "spades-9", "spades-10", "spades-Q"]
    assert G.actors(state) == [1]


def test_a_penalty_is_drawn_before_the_cards_own_effect():
    state = new([["hearts-7", "hearts-5", "clubs-9"], FILL3], "hearts-3",
                ["spades-7", "spades-8"] + FIVE_DRAWN)
    state = play(state, 0, "hearts-7")
    state, events = act(state, 0, "play", card="hearts-5")  # leaves one card, no call
    assert state["hands"][0] == ["clubs-9", "spades-7", "spades-8"]
    assert state["to_give"] == FIVE_DRAWN and state["phase"] == "give_drawn"
    assert types(events).index("penalty") < [i for i, e in enumerate(events)
                                             if e.get("reason") == "five"][0]


def test_the_first_player_out_with_a_call_wins_at_once_and_the_last_effect_is_dropped():
    state = new([["hearts-7", "hearts-7", "joker"], FILL3], "hearts-3")
    state = play(state, 0, "hearts-7")
    state = play(state, 0, "hearts-7", call=True)
    state, events = act(state, 0, "play", card="joker", suit="clubs", call=True)
    assert "die_rolled" not in types(events) and state["last_roll"] is None
    assert {"type": "called", "visible_to": "all", "seat": 0, "call": "Ätsch, Ätsch!"} in events
    assert G.is_round_over(state) and G.is_over(state)
    assert G.actors(state) == [] and G.legal_actions(state, 1) == []
    assert G.round_result(state) == {"round": 1, "winner": 0, "placings": [1, 2],
                                     "scores": [0, 3]}
    assert "match_over" in types(events)
    with pytest.raises(IllegalAction) as info:
        act(state, 1, "draw")
    assert info.value.code == "game_over"


def test_the_others_are_placed_by_cards_left_and_ties_share():
    state, events = three_player_win()
    result = G.round_result(state)
    assert result["scores"] == [0, 4, 4] and result["placings"] == [1, 2, 2]
    assert [e for e in events if e["type"] == "round_over"][0]["result"] == result


def test_a_match_of_several_rounds_is_ranked_by_summed_placings():
    import random

    from games.bots import BOTS
    from games.engine import cards

    state, _ = three_player_win(rounds=2)
    with pytest.raises(IllegalAction) as info:
        act(state, 1, "draw")
    assert info.value.code == "round_over"
    state, _ = G.start_next_round(state)
    with pytest.raises(IllegalAction) as info:
        G.start_next_round(state)
    assert info.value.code == "round_not_over"
    bot = BOTS["aetsch"]["heuristic"]
    rnd = random.Random(3)
    while not G.is_round_over(state):
        seat = G.actors(state)[0]
        state, _ = G.apply(state, seat, bot.choose(G.view(state, seat),
                                                   G.legal_actions(state, seat), rnd))
    assert G.is_over(state)
    rounds = state["round_results"]
    sums = [rounds[0]["placings"][s] + rounds[1]["placings"][s] for s in range(3)]
    result = G.result(state)
    assert result["placing_sums"] == sums and result["placings"] == cards.placings(sums)
    assert result["scores"] == [rounds[0]["scores"][s] + rounds[1]["scores"][s]
                                for s in range(3)]
    assert G.view(state, 1)["round_results"] == rounds
    with pytest.raises(IllegalAction) as info:
        G.start_next_round(state)
    assert info.value.code == "game_over"


# --- the contract ---------------------------------------------------------------------------

def test_illegal_actions_have_stable_codes_and_change_nothing():
    import copy

    state = new([["hearts-7", "hearts-K", "clubs-9"], FILL3], "hearts-3")
    before = copy.deepcopy(state)
    cases = [({"type": "play", "card": "hearts-7", "extra": 1}, "unknown_field"),
             ({"type": "play", "card": "hearts-77"}, "invalid_value"),
             ({"type": "play", "card": 7}, "invalid_type"),
             ({"type": "play", "card": "diamonds-7"}, "card_not_in_hand"),
             ({"type": "play", "card": "hearts-7", "call": "yes"}, "invalid_type"),
             ({"type": "give", "card": "hearts-7"}, "wrong_phase"),
             ({"type": "reroll"}, "wrong_phase"),
             ({"type": "draw", "card": "hearts-7"}, "unknown_field")]
    for action, code in cases:
        with pytest.raises(IllegalAction) as info:
            G.apply(state, 0, action)
        assert info.value.code == code, action
    with pytest.raises(IllegalAction) as info:
        G.apply(state, 1, {"type": "draw"})
    assert info.value.code == "not_your_turn"
    assert state == before


def test_null_is_no_value_in_the_engine_the_api_drops_it_before():
    state = new([["hearts-7", "hearts-K", "clubs-9"], FILL3], "hearts-3")
    with pytest.raises(IllegalAction) as info:
        G.apply(state, 0, {"type": "play", "card": "hearts-7", "suit": None})
    assert (info.value.code, info.value.field) == ("invalid_type", "suit")
    state, _ = G.apply(state, 0, {"type": "play", "card": "hearts-7"})
    assert state["discard_pile"][-1] == "hearts-7"


def test_spectator_view_shows_no_hand():
    state = new([["hearts-7", "hearts-K", "clubs-9"], FILL3], "hearts-3")
    view = G.view(state, None)
    assert view["hand"] is None and view["hand_counts"] == [3, 3] and view["top"] == "hearts-3"
    assert "hearts-K" not in str(view) and "clubs-9" not in str(view)
    for key in ("suit", "direction", "pending_two", "phase", "last_roll", "dealer", "round",
                "round_results", "actors"):
        assert key in view
