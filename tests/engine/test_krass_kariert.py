"""Krass Kariert rulings (RULES.md "Krass Kariert"), one test each, on dealt-to-order decks."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from games.engine import GAMES, IllegalAction, InvalidDeck, InvalidOptions
from games.engine.krass_kariert import FULL_DECK, KRASS_KARIERT, combos

G = KRASS_KARIERT


def make_deck(hands, reserves=(), draw=()):
    """The full deck in dealing order: ``hands`` (one list per seat, dealt one card at a
    time from seat 0), then 2 ``reserves`` each (missing ones filled), then ``draw`` (the
    front of the draw pile), then every remaining card."""
    n = len(hands)
    size = len(hands[0])
    assert all(len(h) == size for h in hands)
    slots = [hands[p][i] for i in range(size) for p in range(n)]
    for i in range(2):
        for p in range(n):
            res = reserves[p] if p < len(reserves) else ()
            slots.append(res[i] if i < len(res) else None)
    slots += list(draw)
    rest = Counter(FULL_DECK) - Counter(c for c in slots if c is not None)
    assert sum(rest.values()) == len(FULL_DECK) - sum(c is not None for c in slots), "too many"
    filler = list(rest.elements())
    deck = [c if c is not None else filler.pop(0) for c in slots]
    return deck + filler


class Table:
    """A deal on a dealt-to-order deck, with short helpers for the actions."""

    def __init__(self, hands, reserves=(), draw=(), chips=3, seed=1):
        self.options = {"hand_size": len(hands[0]), "chips": chips}
        self.state = G.new_game(len(hands), seed, self.options,
                                deck=make_deck(hands, reserves, draw))
        self.events: list[dict] = []

    def act(self, seat, action):
        self.state, self.events = G.apply(self.state, seat, action)
        return self.events

    def play(self, seat, index, count, kind, rank=None):
        action = {"type": "play", "index": index, "count": count, "kind": kind}
        if rank is not None:
            action["rank"] = rank
        return self.act(seat, action)

    def take(self, seat, reserve=0, position=0):
        return self.act(seat, {"type": "take_reserve", "reserve": reserve, "position": position})

    def insert(self, seat, position):
        return self.act(seat, {"type": "insert", "position": position})

    def hand(self, seat):
        return self.state["hands"][seat]

    def plays(self, seat):
        return {(a["index"], a["count"], a["kind"], a.get("rank"))
                for a in G.legal_actions(self.state, seat) if a["type"] == "play"}

    def illegal(self, seat, action):
        before = self.state
        with pytest.raises(IllegalAction) as info:
            G.apply(self.state, seat, action)
        assert self.state is before
        return info.value.code

    def types(self):
        return [e["type"] for e in self.events]


# --- cards and deal ------------------------------------------------------------------------

def test_deck_has_54_cards_1_to_12_four_times_and_two_each_of_x_draw_stop():
    deck = Counter(G.full_deck(G.default_options()))
    assert sum(deck.values()) == 54
    assert all(deck[str(n)] == 4 for n in range(1, 13))
    assert deck["x"] == deck["draw"] == deck["stop"] == 2
    assert GAMES["krass_kariert"] is G and (G.min_players, G.max_players) == (3, 5)


def test_deal_gives_hand_cards_one_at_a_time_from_seat_0_then_two_face_up_reserves_each():
    deck = [str(n) for _ in range(4) for n in range(1, 13)] + ["x", "x", "draw", "draw",
                                                                 "stop", "stop"]
    state = G.new_game(3, 5, {"hand_size": 2}, deck=deck)
    assert state["hands"] == [["1", "4"], ["2", "5"], ["3", "6"]]
    assert state["reserves"] == [["7", "10"], ["8", "11"], ["9", "12"]]
    assert state["draw_pile"] == deck[12:]
    assert state["chips"] == [3, 3, 3]
    assert G.actors(state) == [0]


def test_hand_size_is_10_or_7_with_5_players_and_at_most_what_the_deck_allows():
    for players, size in ((3, 10), (4, 10), (5, 7)):
        state = G.new_game(players, 1)
        assert all(len(h) == size for h in state["hands"])
        assert all(len(r) == 2 for r in state["reserves"])
    assert len(G.new_game(3, 1, {"hand_size": 16})["draw_pile"]) == 0
    with pytest.raises(InvalidOptions) as info:
        G.new_game(4, 1, {"hand_size": 12})
    assert info.value.field == "hand_size"
    with pytest.raises(InvalidOptions):
        G.new_game(5, 1, {"hand_size": 9})
    G.new_game(5, 1, {"hand_size": 8})


def test_options_chips_default_3_range_1_to_5_and_bad_decks_are_rejected():
    assert G.default_options() == {"chips": 3, "hand_size": None}
    for bad in ({"chips": 0}, {"chips": 6}, {"chips": "3"}, {"hand_size": 0}, {"colour": 1}):
        with pytest.raises(InvalidOptions):
            G.new_game(3, 1, bad)
    with pytest.raises(InvalidOptions):
        G.new_game(6, 1)
    with pytest.raises(InvalidDeck):
        G.new_game(3, 1, deck=list(FULL_DECK)[:-1] + ["1"])
    assert G.new_game(3, 1, {"chips": 5})["chips"] == [5, 5, 5]


def test_view_shows_own_hand_in_order_public_chips_and_reserves_but_no_other_hand():
    t = Table([["5", "9", "1"], ["2", "3", "4"], ["6", "7", "8"]],
              reserves=[["10", "11"], ["12", "12"], ["x", "stop"]])
    v = G.view(t.state, 1)
    assert v["hand"] == ["2", "3", "4"]
    assert v["hand_counts"] == [3, 3, 3]
    assert v["chips"] == [3, 3, 3]
    assert v["reserves"] == [["10", "11"], ["12", "12"], ["x", "stop"]]
    assert v["actors"] == [0] and v["leader"] == 0 and v["phase"] == "lead"
    assert v["top"] is None and v["drawn"] == []
    flat = repr({k: val for k, val in v.items() if k not in ("hand", "reserves")})
    assert "'5'" not in flat and "'9'" not in flat
    spectator = G.view(t.state, None)
    assert spectator["hand"] is None and spectator["drawn"] is None


# --- hands and combinations ------------------------------------------------------------------

def test_hand_order_is_fixed_and_playing_from_the_middle_closes_the_gap():
    t = Table([["5", "9", "5"], ["1", "2", "3"], ["6", "7", "8"]])
    assert t.plays(0) >= {(1, 1, "solo", 9)}
    assert (0, 2, "pair", 5) not in t.plays(0)
    t.play(0, 1, 1, "solo", 9)
    assert t.hand(0) == ["5", "5"]
    assert G.view(t.state, 0)["hand"] == ["5", "5"]


def test_combination_cards_must_lie_next_to_each_other():
    t = Table([["5", "7", "5"], ["1", "2", "3"], ["6", "7", "8"]])
    assert t.illegal(0, {"type": "play", "index": 0, "count": 2, "kind": "pair",
                         "rank": 5}) == "not_a_combination"
    assert t.illegal(0, {"type": "play", "index": 0, "count": 3, "kind": "pair",
                         "rank": 5}) == "not_a_combination"
    assert not any(k == "pair" for _, _, k, _ in t.plays(0))


def test_combination_cards_may_lie_in_any_order_among_themselves():
    assert ("street3", 10) in combos(("8", "10", "9"))
    assert ("street3", 10) in combos(("9", "8", "10"))
    assert ("street2", 9) in combos(("9", "8"))
    t = Table([["10", "8", "9"], ["1", "2", "3"], ["6", "7", "8"]])
    t.play(0, 0, 3, "street3", 10)
    assert t.state["top"] == {"seat": 0, "cards": ["8", "9", "10"], "kind": "street3",
                              "rank": 10}


def test_kinds_rank_solo_street2_pair_street3_triple_whatever_the_numbers():
    t = Table([["12", "5", "6"], ["1", "2", "6"], ["2", "2", "7"], ["3", "1", "2"],
               ["4", "4", "4"]])
    t.play(0, 0, 1, "solo", 12)
    assert t.illegal(1, {"type": "play", "index": 2, "count": 1, "kind": "solo",
                         "rank": 6}) == "does_not_beat"
    t.play(1, 0, 2, "street2", 2)
    assert t.illegal(2, {"type": "play", "index": 1, "count": 2, "kind": "street2",
                         "rank": 7}) == "not_a_combination"
    assert (2, 1, "solo", 7) not in t.plays(2)
    t.play(2, 0, 2, "pair", 2)
    t.play(3, 0, 3, "street3", 3)
    assert t.plays(4) == {(0, 3, "triple", 4)}
    t.play(4, 0, 3, "triple", 4)
    assert t.state["last_trick"][-1]["kind"] == "triple"
    # seats 4 and 3 have emptied their hands: the third-highest, seat 2, leads
    assert t.state["leader"] == 2


def test_same_kind_beats_only_with_a_strictly_higher_rank():
    t = Table([["7", "7", "1"], ["7", "7", "8"], ["8", "8", "3"]])
    t.play(0, 0, 2, "pair", 7)
    assert t.illegal(1, {"type": "play", "index": 0, "count": 2, "kind": "pair",
                         "rank": 7}) == "does_not_beat"
    assert t.plays(1) == set()
    t.take(1, 0, 0)
    assert (0, 2, "pair", 8) in t.plays(2)
    t.play(2, 0, 2, "pair", 8)
    assert t.state["leader"] == 2


def test_streets_do_not_wrap_around_from_12_to_1():
    assert combos(("12", "1")) == ()
    assert combos(("11", "12", "1")) == ()
    assert ("street3", 12) in combos(("11", "12", "x"))
    assert [r for k, r in combos(("11", "12", "x")) if k == "street3"] == [12]
    assert [r for k, r in combos(("1", "x")) if k == "street2"] == [2]
    t = Table([["12", "1", "2"], ["1", "2", "3"], ["6", "7", "8"]])
    assert t.plays(0) == {(0, 1, "solo", 12), (1, 1, "solo", 1), (2, 1, "solo", 2),
                          (1, 2, "street2", 2)}


def test_x_takes_the_number_its_player_names_and_legal_actions_list_every_distinct_play():
    t = Table([["x", "5", "5"], ["1", "2", "3"], ["6", "7", "8"]])
    expected = {(0, 1, "solo", r) for r in range(1, 13)}
    expected |= {(1, 1, "solo", 5), (2, 1, "solo", 5), (1, 2, "pair", 5)}
    expected |= {(0, 2, "street2", 5), (0, 2, "street2", 6), (0, 2, "pair", 5)}
    expected |= {(0, 3, "triple", 5)}
    assert t.plays(0) == expected
    assert not any(a["type"] == "take_reserve" for a in G.legal_actions(t.state, 0))
    t.play(0, 0, 3, "triple", 5)
    assert t.state["top"]["cards"] == ["5", "5", "x"]


def test_x_counts_in_the_rank_of_streets_pairs_and_triples():
    assert {r for k, r in combos(("11", "x")) if k == "street2"} == {11, 12}
    assert {r for k, r in combos(("x", "3", "x")) if k == "street3"} == {3, 4, 5}
    assert {r for k, r in combos(("x", "x")) if k == "pair"} == set(range(1, 13))
    assert {r for k, r in combos(("x", "x", "9")) if k == "triple"} == {9}
    t = Table([["4", "5", "6"], ["11", "x", "1"], ["6", "7", "8"]])
    t.play(0, 0, 2, "street2", 5)
    assert {(k, r) for i, c, k, r in t.plays(1) if (i, c) == (0, 2)} == {
        ("street2", 11), ("street2", 12), ("pair", 11)}
    t.play(1, 0, 2, "street2", 12)
    assert t.state["top"]["rank"] == 12
    assert t.illegal(2, {"type": "play", "index": 0, "count": 2, "kind": "street2",
                         "rank": 7}) == "does_not_beat"


def test_stop_and_draw_are_played_alone_with_count_1_and_no_rank():
    t = Table([["stop", "draw", "5"], ["1", "2", "3"], ["6", "7", "8"]])
    assert {(0, 1, "stop", None), (1, 1, "draw", None)} <= t.plays(0)
    acts = [a for a in G.legal_actions(t.state, 0) if a["kind"] in ("stop", "draw")]
    assert all("rank" not in a for a in acts)
    assert t.illegal(0, {"type": "play", "index": 0, "count": 1, "kind": "stop",
                         "rank": 3}) == "rank_not_allowed"
    assert t.illegal(0, {"type": "play", "index": 0, "count": 2, "kind": "stop"}) == \
        "played_alone"
    assert t.illegal(0, {"type": "play", "index": 1, "count": 1, "kind": "stop"}) == \
        "does_not_match"
    assert t.illegal(0, {"type": "play", "index": 0, "count": 2, "kind": "street2",
                         "rank": 2}) == "not_a_combination"
    # null is no value in any game (the API drops it before the engine sees it)
    assert t.illegal(0, {"type": "play", "index": 1, "count": 1, "kind": "draw",
                         "rank": None}) == "invalid_type"
    t.act(0, {"type": "play", "index": 1, "count": 1, "kind": "draw"})
    assert t.hand(0) == ["stop", "5"]


# --- stop, draw and reserves -----------------------------------------------------------------

def test_stop_wins_the_trick_at_once_and_its_player_leads_next():
    t = Table([["5", "1", "2"], ["stop", "9", "9"], ["6", "7", "8"]])
    t.play(0, 0, 1, "solo", 5)
    t.play(1, 0, 1, "stop")
    assert "stopped" in t.types() and t.events[-1] == {
        "type": "trick_started", "visible_to": "all", "leader": 1, "order": [1, 2, 0]}
    assert t.hand(2) == ["6", "7", "8"]
    assert G.actors(t.state) == [1] and G.view(t.state, 1)["phase"] == "lead"


def test_stop_as_lead_wins_at_once():
    t = Table([["stop", "1", "2"], ["3", "9", "9"], ["6", "7", "8"]])
    t.play(0, 0, 1, "stop")
    assert [e["seat"] for e in t.state["last_trick"]] == [0]
    assert G.actors(t.state) == [0] and t.hand(0) == ["1", "2"]


def test_draw_need_not_beat_and_the_next_player_must_beat_the_combination_before_it():
    t = Table([["8", "1", "2"], ["draw", "1", "2"], ["3", "9", "11"]], draw=["2", "3", "4"])
    t.play(0, 0, 1, "solo", 8)
    t.play(1, 0, 1, "draw")
    assert G.view(t.state, 2)["top"]["rank"] == 8
    assert t.plays(2) == {(1, 1, "solo", 9), (2, 1, "solo", 11)}
    t.play(2, 1, 1, "solo", 9)
    assert t.types()[-3:] == ["trick_won", "drew", "drew_card"]
    assert t.state["phase"] == "insert" and G.actors(t.state) == [2]


def test_trick_winner_draws_3_per_draw_card_one_at_a_time_inserting_each_where_chosen():
    t = Table([["8", "1", "2"], ["draw", "1", "2"], ["3", "9", "11"]], draw=["2", "3", "4"])
    t.play(0, 0, 1, "solo", 8)
    t.play(1, 0, 1, "draw")
    t.play(2, 1, 1, "solo", 9)
    assert G.view(t.state, 2)["drawn"] == ["2"]
    assert G.view(t.state, 0)["drawn"] == [] and G.view(t.state, None)["drawn"] is None
    assert G.view(t.state, 0)["drawn_waiting"] == 1 and G.view(t.state, 0)["draws_left"] == 2
    private = [e for e in t.events if e["type"] == "drew_card"]
    assert private and all(e["visible_to"] == [2] for e in private)
    assert G.legal_actions(t.state, 2) == [{"type": "insert", "position": p} for p in range(3)]
    assert t.illegal(2, {"type": "insert", "position": 3}) == "invalid_position"
    assert t.illegal(2, {"type": "play", "index": 0, "count": 1, "kind": "solo",
                         "rank": 3}) == "must_insert"
    t.insert(2, 0)
    assert t.hand(2) == ["2", "3", "11"] and G.view(t.state, 2)["drawn"] == ["3"]
    t.insert(2, 3)
    t.insert(2, 1)
    assert t.hand(2) == ["2", "4", "3", "11", "3"]
    assert t.state["phase"] == "play" and t.state["leader"] == 2
    assert all("position" not in e for e in t.events if e["visible_to"] == "all")


def test_both_draw_cards_in_one_trick_make_the_winner_draw_6():
    t = Table([["draw", "1", "2"], ["draw", "1", "2"], ["3", "9", "11"]])
    t.play(0, 0, 1, "draw")
    assert t.state["top"] is None
    t.play(1, 0, 1, "draw")
    assert t.plays(2) >= {(0, 1, "solo", 3)}
    t.play(2, 0, 1, "solo", 3)
    for k in range(6):
        assert t.state["phase"] == "insert" and t.state["draws_left"] == 5 - k
        t.insert(2, 0)
    assert len(t.hand(2)) == 8 and t.state["leader"] == 2


def test_trick_without_a_combination_is_won_by_its_leader():
    t = Table([["draw", "1", "2"], ["3", "4", "5"], ["6", "7", "8"]],
              reserves=[["9", "9"], ["10", "10"], ["11", "11"]])
    t.play(0, 0, 1, "draw")
    t.take(1, 0, 3)
    t.take(2, 1, 0)
    assert t.hand(1) == ["3", "4", "5", "10"] and t.hand(2) == ["11", "6", "7", "8"]
    assert t.state["reserves"][1] == ["10"] and t.state["drawer"] == 0
    for _ in range(3):
        t.insert(0, 0)
    assert t.state["leader"] == 0 and len(t.hand(0)) == 5


def test_stop_after_a_draw_makes_the_stop_player_draw():
    t = Table([["draw", "1", "2"], ["stop", "4", "5"], ["6", "7", "8"]])
    t.play(0, 0, 1, "draw")
    t.play(1, 0, 1, "stop")
    assert t.state["drawer"] == 1 and t.state["draws_left"] == 2


def test_take_reserve_puts_the_card_at_the_chosen_position_and_is_public():
    t = Table([["5", "1", "2"], ["3", "4", "6"], ["6", "7", "8"]],
              reserves=[["9", "9"], ["10", "12"], ["11", "11"]])
    t.play(0, 0, 1, "solo", 5)
    legal = G.legal_actions(t.state, 1)
    assert {(a["reserve"], a["position"]) for a in legal if a["type"] == "take_reserve"} == {
        (r, p) for r in (0, 1) for p in range(4)}
    t.take(1, 1, 2)
    assert t.hand(1) == ["3", "4", "12", "6"]
    assert t.state["reserves"][1] == ["10"]
    public = [e for e in t.events if e["visible_to"] == "all"]
    assert {"type": "took_reserve", "visible_to": "all", "seat": 1, "reserve": 1,
            "card": "12"} in public
    assert all("position" not in e for e in public)
    assert G.view(t.state, 0)["reserves"][1] == ["10"]


def test_leader_must_play_and_cannot_take_a_reserve():
    t = Table([["5", "1", "2"], ["3", "4", "6"], ["6", "7", "8"]])
    assert t.illegal(0, {"type": "take_reserve", "reserve": 0, "position": 0}) == "must_lead"
    t.play(0, 0, 1, "solo", 5)
    assert t.illegal(1, {"type": "take_reserve", "reserve": 2, "position": 0}) == \
        "no_such_reserve"
    assert t.illegal(1, {"type": "take_reserve", "reserve": 0, "position": 4}) == \
        "invalid_position"
    assert t.illegal(1, {"type": "take_reserve", "reserve": True, "position": 0}) == \
        "invalid_type"


def test_malformed_fields_are_rejected_and_change_nothing():
    t = Table([["5", "1", "2"], ["3", "4", "6"], ["6", "7", "8"]])
    bad = [{"type": "play", "index": "0", "count": 1, "kind": "solo", "rank": 5},
           {"type": "play", "index": 0, "count": 4, "kind": "solo", "rank": 5},
           {"type": "play", "index": 0, "count": 1, "kind": "quad", "rank": 5},
           {"type": "play", "index": 0, "count": 1, "kind": "solo", "rank": 13},
           {"type": "play", "index": 0, "count": 1, "kind": "solo", "rank": 5, "x": 1}]
    assert [t.illegal(0, a) for a in bad] == ["invalid_type", "invalid_value", "invalid_value",
                                              "invalid_value", "unknown_field"]
    assert t.illegal(0, {"type": "play", "index": 3, "count": 1, "kind": "solo",
                         "rank": 5}) == "invalid_index"
    assert t.illegal(0, {"type": "play", "index": 0, "count": 1, "kind": "solo",
                         "rank": 6}) == "not_a_combination"
    assert t.illegal(0, {"type": "insert", "position": 0}) == "nothing_to_insert"
    assert t.illegal(1, {"type": "play", "index": 0, "count": 1, "kind": "solo",
                         "rank": 3}) == "not_your_turn"


# --- tricks and leads ------------------------------------------------------------------------

def test_every_other_player_holding_cards_acts_exactly_once_clockwise():
    t = Table([["5", "1", "2", "3"], ["7", "1", "2", "3"], ["9", "9", "4", "4"],
               ["8", "6", "4", "5"]])
    assert t.state["to_act"] == [0, 1, 2, 3]
    t.play(0, 0, 1, "solo", 5)
    assert G.actors(t.state) == [1]
    t.play(1, 0, 1, "solo", 7)
    t.play(2, 0, 2, "pair", 9)
    assert G.actors(t.state) == [3]
    t.take(3, 0, 0)
    assert t.state["leader"] == 2 and t.state["trick"] == []
    assert [e["seat"] for e in t.state["last_trick"]] == [0, 1, 2, 3]


def test_trick_winner_leads_the_next_trick():
    t = Table([["5", "1", "2"], ["9", "1", "2"], ["6", "7", "8"]])
    t.play(0, 0, 1, "solo", 5)
    t.play(1, 0, 1, "solo", 9)
    t.take(2, 0, 0)
    assert G.actors(t.state) == [1] and t.state["leader"] == 1
    assert t.state["to_act"] == [1, 2, 0]


def test_second_highest_combination_leads_when_the_winner_has_no_hand_cards():
    t = Table([["5", "8"], ["7", "1"], ["9", "9"]])
    t.play(0, 0, 1, "solo", 5)
    t.play(1, 0, 1, "solo", 7)
    t.play(2, 0, 2, "pair", 9)
    assert t.hand(2) == [] and t.state["phase"] == "play"
    assert t.state["leader"] == 1
    assert t.state["to_act"] == [1, 0]


def test_next_seat_clockwise_from_the_winner_leads_when_no_combination_player_has_cards():
    t = Table([["5", "5"], ["7", "7"], ["1", "3"], ["2", "4"]])
    t.play(0, 0, 2, "pair", 5)
    t.play(1, 0, 2, "pair", 7)
    t.take(2)
    t.take(3)
    assert t.state["leader"] == 2 and t.state["to_act"] == [2, 3]


def test_winner_who_emptied_the_hand_draws_for_draw_cards_and_plays_on():
    t = Table([["draw", "1"], ["5", "2"], ["6", "7"]])
    t.play(0, 0, 1, "draw")
    t.play(1, 0, 1, "solo", 5)
    t.play(2, 0, 2, "street2", 7)
    assert t.hand(2) == [] and t.state["drawer"] == 2
    for _ in range(3):
        t.insert(2, 0)
    assert len(t.hand(2)) == 3 and t.state["phase"] == "play" and t.state["leader"] == 2


def test_empty_draw_pile_reshuffles_played_tricks_except_the_top_card_then_draws_fewer():
    hands = [["draw"] + [None] * 15, ["1"] + [None] * 15, ["2"] + [None] * 15]
    deck = make_deck(hands, reserves=[[None, None]] * 3)
    state = G.new_game(3, 7, {"hand_size": 16}, deck=deck)
    assert state["draw_pile"] == []
    s, _ = G.apply(state, 0, {"type": "play", "index": 0, "count": 1, "kind": "draw"})
    s, _ = G.apply(s, 1, {"type": "play", "index": 0, "count": 1, "kind": "solo", "rank": 1})
    s, events = G.apply(s, 2, {"type": "play", "index": 0, "count": 1, "kind": "solo",
                               "rank": 2})
    assert "reshuffled" in [e["type"] for e in events]
    assert s["discard_pile"] == ["2"]
    assert sorted(s["drawn"] + s["draw_pile"]) == ["1", "draw"]
    s, _ = G.apply(s, 2, {"type": "insert", "position": 0})
    s, events = G.apply(s, 2, {"type": "insert", "position": 0})
    assert "draw_pile_empty" in [e["type"] for e in events]
    assert s["phase"] == "play" and len(s["hands"][2]) == 17 and s["discard_pile"] == ["2"]


# --- the end of a deal, chips and the match -------------------------------------------------

def test_deal_ends_when_one_player_is_left_with_hand_cards_and_that_player_gives_a_chip():
    t = Table([["5", "6"], ["7", "8"], ["1", "9"]])
    t.play(0, 0, 2, "street2", 6)
    t.play(1, 0, 2, "street2", 8)
    t.take(2)
    assert G.is_round_over(t.state) and not G.is_over(t.state)
    assert t.state["chips"] == [3, 3, 2] and G.actors(t.state) == []
    result = G.round_result(t.state)
    assert result["placings"] == [1, 1, 3] and result["scores"] == [3, 3, 2]
    assert result["loser"] == 2 and result["reason"] == "last_with_cards"
    assert "chip_lost" in t.types() and "round_over" in t.types()


def test_deal_ends_with_the_last_player_to_empty_the_hand_when_nobody_has_cards():
    t = Table([["4"], ["5"], ["6"]])
    t.play(0, 0, 1, "solo", 4)
    t.play(1, 0, 1, "solo", 5)
    t.play(2, 0, 1, "solo", 6)
    result = G.round_result(t.state)
    assert result["loser"] == 2 and result["reason"] == "last_to_empty"
    assert result["placings"] == [1, 1, 3] and t.state["chips"] == [3, 3, 2]


def test_deal_ends_at_once_when_a_player_can_neither_beat_nor_take_a_reserve():
    t = Table([["9", "9", "9"], ["10", "10", "10"], ["1", "4", "7"]],
              reserves=[["6", "6"], ["12", "7"], ["10", "12"]])
    t.play(0, 0, 3, "triple", 9)
    t.take(1, 0, 3)
    t.take(2, 0, 0)
    assert t.state["leader"] == 1
    t.play(1, 0, 3, "triple", 10)
    t.take(2, 0, 4)
    assert t.state["reserves"][2] == [] and t.hand(1) == ["12"]
    t.play(1, 0, 1, "solo", 12)
    assert "no_legal_action" in t.types()
    result = G.round_result(t.state)
    assert result["loser"] == 2 and result["reason"] == "no_legal_action"
    assert t.state["chips"] == [3, 3, 2]
    assert G.legal_actions(t.state, 2) == [] and G.actors(t.state) == []


def test_round_result_places_the_chip_loser_last_and_everyone_else_first():
    t = Table([["4"], ["5"], ["6"], ["7"]])
    for seat, rank in enumerate((4, 5, 6, 7)):
        if not G.is_round_over(t.state):
            t.play(seat, 0, 1, "solo", rank)
    assert G.round_result(t.state)["placings"] == [1, 1, 1, 4]


def test_chip_loser_leads_the_next_deal_and_later_deals_are_shuffled_with_the_seeded_rng():
    t = Table([["5", "6"], ["7", "8"], ["1", "9"]], seed=11)
    t.play(0, 0, 2, "street2", 6)
    t.play(1, 0, 2, "street2", 8)
    t.take(2)
    state, events = G.start_next_round(t.state)
    assert G.actors(state) == [2] and state["leader"] == 2 and state["deal"] == 2
    assert events[0]["type"] == "deal_started" and events[0]["leader"] == 2
    assert all(len(h) == 2 for h in state["hands"]) and state["chips"] == [3, 3, 2]
    assert sorted(G.all_cards(state)) == sorted(FULL_DECK)
    again, _ = G.start_next_round(t.state)
    assert again == state
    other = Table([["5", "6"], ["7", "8"], ["1", "9"]], seed=12)
    other.play(0, 0, 2, "street2", 6)
    other.play(1, 0, 2, "street2", 8)
    other.take(2)
    assert G.start_next_round(other.state)[0]["hands"] != state["hands"]
    with pytest.raises(IllegalAction):
        G.start_next_round(state)


def _finish_deal_randomly(state, rnd):
    while not G.is_round_over(state):
        seat = G.actors(state)[0]
        state, _ = G.apply(state, seat, rnd.choice(G.legal_actions(state, seat)))
    return state


def test_a_player_without_chips_plays_on():
    t = Table([["4"], ["5"], ["6"]], chips=1)
    for seat, rank in enumerate((4, 5, 6)):
        t.play(seat, 0, 1, "solo", rank)
    assert t.state["chips"] == [1, 1, 0] and not G.is_over(t.state)
    state, _ = G.start_next_round(t.state)
    assert G.actors(state) == [2] and len(state["hands"][2]) == 1


def test_match_ends_when_a_chipless_player_must_give_a_chip_and_ranks_the_rest_by_chips():
    rnd = random.Random(3)
    t = Table([["4"], ["5"], ["6"], ["7"]], chips=2)
    for seat, rank in enumerate((4, 5, 6, 7)):
        t.play(seat, 0, 1, "solo", rank)
    state = t.state
    while not G.is_over(state):
        chips_before = list(state["chips"])
        state = _finish_deal_randomly(G.start_next_round(state)[0], rnd)
    loser = state["last_loser"]
    assert chips_before[loser] == 0 and state["chips"] == chips_before
    result = G.result(state)
    others = [s for s in range(4) if s != loser]
    assert result["placings"][loser] == 4 and result["loser"] == loser
    for a in others:
        for b in others:
            if state["chips"][a] > state["chips"][b]:
                assert result["placings"][a] < result["placings"][b]
            if state["chips"][a] == state["chips"][b]:
                assert result["placings"][a] == result["placings"][b]
    assert result["scores"] == state["chips"]
    assert G.round_result(state)["placings"] == [4 if s == loser else 1 for s in range(4)]
    with pytest.raises(IllegalAction) as info:
        G.start_next_round(state)
    assert info.value.code == "game_over"
    with pytest.raises(IllegalAction):
        G.apply(state, 0, {"type": "insert", "position": 0})


def test_played_cards_are_public_but_hand_positions_stay_private():
    t = Table([["10", "8", "9"], ["1", "2", "3"], ["6", "7", "8"]])
    events = t.play(0, 0, 3, "street3", 10)
    public = [e for e in events if e["visible_to"] == "all"]
    assert public[0] == {"type": "played", "visible_to": "all", "seat": 0,
                         "cards": ["8", "9", "10"], "kind": "street3", "rank": 10,
                         "lead": True}
    assert all("index" not in e for e in public)
    assert [e for e in events if e["type"] == "played_from"][0]["visible_to"] == [0]


# --- bots ------------------------------------------------------------------------------------

def _bot(level):
    from games.bots import BOTS
    return BOTS["krass_kariert"][level]


def test_heuristic_bot_beats_with_plain_cards_and_keeps_stop_x_and_reserves():
    for escape in ("stop", "x"):
        t = Table([["5", "1", "2"], [escape, "3", "9"], ["6", "7", "8"]])
        t.play(0, 0, 1, "solo", 5)
        choice = _bot("heuristic").choose(G.view(t.state, 1), G.legal_actions(t.state, 1),
                                          random.Random(0))
        assert choice == {"type": "play", "index": 2, "count": 1, "kind": "solo", "rank": 9}


def test_heuristic_bot_places_reserve_and_drawn_cards_where_they_make_combinations():
    t = Table([["12", "1", "2"], ["3", "9", "5"], ["6", "7", "8"]],
              reserves=[["10", "10"], ["9", "11"], ["4", "4"]], draw=["5"])
    t.play(0, 0, 1, "solo", 12)
    legal = G.legal_actions(t.state, 1)
    choice = _bot("heuristic").choose(G.view(t.state, 1), legal, random.Random(0))
    assert choice["type"] == "take_reserve" and choice["reserve"] == 0
    assert choice["position"] in (1, 2)  # next to the other 9: a pair
    t.take(1, 0, choice["position"])
    t.play(2, 0, 3, "street3", 8)
    assert t.state["phase"] == "play"


def test_bots_play_whole_matches_with_legal_actions_from_the_view_only():
    rnd = random.Random(5)
    bots = [_bot("heuristic"), _bot("random"), _bot("heuristic")]
    state = G.new_game(3, 5)
    while not G.is_over(state):
        if G.is_round_over(state):
            state, _ = G.start_next_round(state)
            continue
        seat = G.actors(state)[0]
        legal = G.legal_actions(state, seat)
        action = bots[seat].choose(G.view(state, seat), legal, rnd)
        assert action in legal
        state, _ = G.apply(state, seat, action)
