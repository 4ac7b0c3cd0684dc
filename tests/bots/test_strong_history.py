"""The strong bots read the seat's public round history: worlds are dealt consistently with
what the table saw (a player who drew instead of playing holds nothing that fitted; a pile a
player took is in its hand), and the history is only ever the seat's own redaction."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from games.bots import BOTS, aetsch, karma, kato, krass_kariert
from games.bots.search import InfoSet, discarded, public_piles, seat_history
from games.engine import GAMES

SEAT = 0


def _heuristic_match(game_id: str, seed: int, options=None, limit: int = 3000):
    """A round of four heuristic bots, move by move: after each move, the state, the events
    of the round so far (from its deal, as the service keeps them), the seat that moved and
    that move's events."""
    engine = GAMES[game_id]
    heuristic = BOTS[game_id]["heuristic"]
    rng = random.Random(seed)
    state, events = engine.new_game_with_events(4, seed, options)
    events = list(events)
    for _ in range(limit):
        if engine.is_round_over(state):
            return
        actors = engine.actors(state)
        seat = actors[0] if len(actors) == 1 else rng.choice(actors)
        action = heuristic.choose(engine.view(state, seat), engine.legal_actions(state, seat),
                                  rng)
        state, new = engine.apply(state, seat, action)
        events += new
        yield state, events, seat, new


def _info(engine, state, events) -> InfoSet:
    """SEAT's InfoSet at ``state``: its view, its legal actions, its redaction of ``events``."""
    return InfoSet(SEAT, engine.view(state, SEAT), tuple(engine.legal_actions(state, SEAT)),
                   tuple(seat_history(events, SEAT)))


def _until(game_id: str, seed: int, stop, options=None):
    """The first position of a heuristic match where ``stop(events_of_the_move, seat)``
    holds for a move of another seat than SEAT: the state, SEAT's InfoSet and that seat."""
    engine = GAMES[game_id]
    for state, events, seat, new in _heuristic_match(game_id, seed, options):
        if seat != SEAT and stop(new, seat) and not engine.is_round_over(state):
            return state, _info(engine, state, events), seat
    return None


def _found(game_id, stop, options=None):
    for seed in range(1, 60):
        got = _until(game_id, seed, stop, options)
        if got is not None:
            return got
    pytest.fail("no such position in 60 heuristic matches")


def _worlds_respect_the_void(game, state, info, beliefs, void_seat, unfit):
    """The real hand and every sampled world hold no card with an ``unfit`` feature at the
    void seat; without the history the same worlds would hand it such cards (the reading is
    the cause)."""
    assert all(unfit.isdisjoint(game.features(c)) for c in state["hands"][void_seat])
    for i in range(40):
        world = game.determinize(info, random.Random(i), beliefs)
        assert len(world["hands"][void_seat]) == info.view["hand_counts"][void_seat]
        assert all(unfit.isdisjoint(game.features(c)) for c in world["hands"][void_seat])
    blind = [c for i in range(40)
             for c in game.determinize(info, random.Random(i))["hands"][void_seat]]
    assert any(not unfit.isdisjoint(game.features(c)) for c in blind)


def test_a_kato_world_never_gives_a_card_to_a_seat_known_void_in_it():
    # A seat that drew and whose drawn card did not fit held no card of the colour or the
    # rank on top and no wild, nor does the drawn card fit.
    def drew_unfit(events, seat):
        return any(e["type"] == "drawn_card_fits" and not e["fits"] for e in events)

    state, info, void_seat = _found("kato", drew_unfit, {"rounds": 1})
    beliefs = kato.observe(info)
    top, color = info.view["top"], info.view["color"]
    unfit = {"c:" + color, "r:" + kato.RANK[top], "wild"}
    _worlds_respect_the_void(kato, state, info, beliefs, void_seat, unfit)


def _wild_draw4_at_seat():
    """The first position of a heuristic KaTO round where SEAT must answer a challengeable
    wild-draw4 its neighbour played from the hand (not a card just drawn)."""
    engine = GAMES["kato"]
    for seed in range(1, 200):
        for state, events, seat, new in _heuristic_match("kato", seed, {"rounds": 1}):
            view = engine.view(state, SEAT)
            before = events[-len(new) - 1]
            if (seat != SEAT and view["challengeable"] and view["turn"] == SEAT
                    and before["type"] != "drawn_card_fits"):
                return state, _info(engine, state, events), seat
    pytest.fail("no challengeable wild-draw4 at SEAT in 200 heuristic rounds")


def test_a_kato_wild_draw4_from_the_hand_is_read_as_honest_and_not_challenged():
    # The heuristic plays a wild-draw4 only when it holds no card of the colour in force:
    # every world deals its player none, so a challenge is seen to cost two more cards, and
    # the strong bot accepts where the heuristic (which challenges a player holding two
    # cards or more) challenges and loses. Without the reading, worlds mostly hold a bluff.
    state, info, bluffer = _wild_draw4_at_seat()
    color = info.view["challenge_color"]
    assert state["chal_honest"]
    beliefs = kato.observe(info)
    _worlds_respect_the_void(kato, state, info, beliefs, bluffer, {"c:" + color})
    assert all(kato.determinize(info, random.Random(i), beliefs)["chal_honest"]
               for i in range(40))
    strong = BOTS["kato"]["strong"]
    assert strong.search(info, random.Random(3), time_ms=0)["action"]["type"] == "accept"
    blind = InfoSet(SEAT, info.view, info.legal, ())
    assert not all(kato.determinize(blind, random.Random(i))["chal_honest"] for i in range(40))


def test_an_aetsch_world_never_gives_a_card_to_a_seat_known_void_in_it():
    def drew_and_passed_on(events, seat):
        return any(e["type"] == "drew" and e.get("reason") == "draw" for e in events)

    state, info, void_seat = _found("aetsch", drew_and_passed_on)
    if info.view["turn"] == void_seat:  # the drawn card fits: only the older cards are void
        pytest.skip("the drawn card fitted")
    beliefs = aetsch.observe(info)
    played = [e for e in info.history if e["type"] == "played"]
    top = played[-1]["card"] if played else info.view["top"]
    suit = played[-1]["suit"] if played else info.view["suit"]
    unfit = aetsch._unfitting(top, suit, info.view["options"])
    _worlds_respect_the_void(aetsch, state, info, beliefs, void_seat, unfit)


def _swapped_with_seat():
    """The first position of a heuristic Ätsch round right after a joker swapped SEAT's hand
    with another seat's: the state, SEAT's InfoSet and the other seat."""
    engine = GAMES["aetsch"]
    for seed in range(1, 100):
        for state, events, _, new in _heuristic_match("aetsch", seed):
            swap = next((e for e in new if e["type"] == "swapped" and SEAT in e["seats"]), None)
            if swap is not None and not engine.is_round_over(state):
                other = next(t for t in swap["seats"] if t != SEAT)
                return state, _info(engine, state, events), other
    pytest.fail("no swap with SEAT in 100 heuristic rounds")


def test_an_aetsch_seat_knows_the_hand_it_gave_away_in_a_swap():
    # After a joker swapped SEAT's hand with another's, that player holds SEAT's old hand,
    # card for card: SEAT followed it from its deal, draws, gifts and plays. Every world
    # deals it that hand; without the history a world deals it unseen cards.
    state, info, other = _swapped_with_seat()
    beliefs = aetsch.observe(info)
    assert Counter(beliefs.known[other]) == Counter(state["hands"][other])
    assert beliefs.groups[other] == []
    for i in range(20):
        world = aetsch.determinize(info, random.Random(i), beliefs)
        assert Counter(world["hands"][other]) == Counter(state["hands"][other])
    blind = InfoSet(SEAT, info.view, info.legal, ())
    assert any(Counter(aetsch.determinize(blind, random.Random(i))["hands"][other])
               != Counter(state["hands"][other]) for i in range(5))


def test_an_aetsch_history_that_does_not_add_up_reveals_no_swapped_hand():
    # The account of SEAT's own cards must end in the hand its view shows; a history cut
    # short (no deal) or one that does not add up tells nothing about the swapped hand.
    state, info, other = _swapped_with_seat()
    assert aetsch._hands_given_away(info.history, SEAT, info.view["hand"])
    no_deal = tuple(e for e in info.history if e["type"] != "dealt")
    assert aetsch._hands_given_away(no_deal, SEAT, info.view["hand"]) == {}
    wrong = list(info.view["hand"])[1:] + ["joker"]
    assert aetsch._hands_given_away(info.history, SEAT, wrong) == {}
    beliefs = aetsch.observe(InfoSet(SEAT, info.view, info.legal, no_deal))
    assert beliefs.known[other] == []


def test_a_karma_world_puts_a_taken_pile_in_the_taker_s_hand():
    def took(events, seat):
        return any(e["type"] == "took_pile" and len(e["cards"]) >= 3 for e in events)

    state, info, taker = _found("karma", took)
    taken = next(e["cards"] for e in reversed(info.history) if e["type"] == "took_pile")
    beliefs = karma.observe(info)
    for i in range(20):
        hand = list(karma.determinize(info, random.Random(i), beliefs)["hands"][taker])
        for card in taken:
            assert card in hand
            hand.remove(card)


def test_the_history_a_search_gets_is_its_seat_s_redaction_only():
    events = [{"type": "drew", "visible_to": "all", "seat": 1, "count": 1},
              {"type": "drew_cards", "visible_to": [1], "seat": 1, "cards": ["red-7"]},
              {"type": "hand_shown", "visible_to": [0], "seat": 2, "cards": ["blue-1"]}]
    assert seat_history(events, 0) == [{"type": "drew", "seat": 1, "count": 1},
                                       {"type": "hand_shown", "seat": 2, "cards": ["blue-1"]}]
    assert [e["type"] for e in seat_history(events, 1)] == ["drew", "drew_cards"]


@pytest.mark.parametrize("game_id,module,options", [
    ("kato", kato, {"rounds": 1}), ("aetsch", aetsch, None), ("karma", karma, None)])
def test_what_the_history_tells_of_heuristic_players_is_true_of_their_real_hands(
        game_id, module, options):
    # Sound reading: the known cards are held, and each constrained group of cards can be
    # met by the real hand, at every move of several heuristic matches (the opponents play
    # the heuristic, whose habits the readings assume).
    constrained = checked = 0
    for seed in range(1, 5):
        for state, events, _, _ in _heuristic_match(game_id, seed, options, limit=400):
            view = GAMES[game_id].view(state, SEAT)
            beliefs = module.observe(InfoSet(SEAT, view, (), tuple(seat_history(events, SEAT))))
            for p in range(1, 4):
                assert beliefs.holds(p, state["hands"][p])
                checked += len(beliefs.checks[p])
                hand = list(state["hands"][p])
                for card in beliefs.known[p]:
                    assert card in hand
                    hand.remove(card)
                need = len(hand)
                for count, forbidden in reversed(beliefs.groups[p]):
                    k = min(need, count)
                    need -= k
                    if forbidden and k:
                        constrained += k
                        fitting = [c for c in hand if forbidden.isdisjoint(module.features(c))]
                        assert len(fitting) >= k
    assert constrained > 0
    if game_id != "karma":  # a colour or suit named for a wild card
        assert checked > 0


@pytest.mark.parametrize("game_id,module,pile", [
    ("kato", kato, "discard"), ("aetsch", aetsch, "discard_pile")])
def test_a_world_keeps_the_played_cards_in_the_discard_pile(game_id, module, pile):
    # Every card played this round (since the last reshuffle) was shown to every seat: a
    # world deals none of them into a hand and lays them all below the top, as the real
    # pile is. Without the round's history they are unseen cards again.
    engine = GAMES[game_id]
    checked = 0
    for state, events, _, _ in _heuristic_match(game_id, 7, {"rounds": 1}):
        below = sorted(state[pile][:-1])
        if engine.is_round_over(state) or len(below) < 4:
            continue
        info = _info(engine, state, events)
        assert discarded(info.history, info.view["discard_count"]) is not None
        world = module.determinize(info, random.Random(checked))
        assert sorted(world[pile][:-1]) == below
        assert world[pile][-1] == info.view["top"]
        checked += 1
        if checked == 60:
            break
    assert checked >= 10
    blind = InfoSet(SEAT, info.view, info.legal, ())
    assert any(sorted(module.determinize(blind, random.Random(i))[pile][:-1]) != below
               for i in range(5))


def _hidden(state) -> Counter:
    """The cards SEAT cannot see in a Krass Kariert state."""
    drawn = state["drawn"] if state["drawer"] != SEAT else []
    return Counter([c for p, hand in enumerate(state["hands"]) if p != SEAT for c in hand]
                   + state["draw_pile"] + drawn)


def test_a_krass_kariert_world_lays_the_public_piles_as_they_are():
    # Finished tricks are shown to every seat: a world lays the discard pile card for card,
    # and after a reshuffle it builds the draw pile from the reshuffled cards the seat did not
    # draw itself (a full hand size leaves two cards to draw, so it is reshuffled often).
    # Without the deal's history the piles are unseen cards again.
    engine = GAMES["krass_kariert"]
    checked = after_reshuffle = 0
    for seed in range(1, 40):
        for state, events, _, _ in _heuristic_match("krass_kariert", seed,
                                                     {"chips": 1, "hand_size": 11}):
            if engine.is_round_over(state) or not state["discard_pile"]:
                continue
            info = _info(engine, state, events)
            piles = krass_kariert.observe(info)
            assert piles is not None
            assert list(piles.discard) == state["discard_pile"]
            world = krass_kariert.determinize(info, random.Random(checked), piles)
            assert world["discard_pile"] == state["discard_pile"]
            assert _hidden(world) == _hidden(state)  # the same cards, differently dealt
            if piles.reshuffled is not None:
                pool = Counter(piles.reshuffled)
                assert not Counter(state["draw_pile"]) - pool  # the real pile is among them
                assert not Counter(world["draw_pile"]) - pool
                after_reshuffle += 1
            checked += 1
        if after_reshuffle >= 50:
            break
    assert after_reshuffle >= 50 and checked > after_reshuffle
    blind = InfoSet(SEAT, info.view, info.legal, ())
    assert krass_kariert.observe(blind) is None


def test_a_karma_world_keeps_the_cards_out_of_the_game_out():
    # Burned piles and played karma-gives are shown to every seat: a world lays them out of
    # the game as they are and deals none of them into a hand, the draw pile or face down.
    engine = GAMES["karma"]
    checked = 0
    for seed in range(1, 20):
        for state, events, _, _ in _heuristic_match("karma", seed):
            if engine.is_round_over(state) or len(state["out"]) < 3:
                continue
            info = _info(engine, state, events)
            if info.view["phase"] != "play":
                continue
            known = karma.out_of_game(info.history, info.view["out_count"])
            assert sorted(known) == sorted(state["out"])
            world = karma.determinize(info, random.Random(checked), karma.observe(info))
            assert sorted(world["out"]) == sorted(state["out"])
            checked += 1
        if checked >= 100:
            break
    assert checked >= 100
    blind = InfoSet(SEAT, info.view, info.legal, ())
    assert karma.out_of_game(blind.history, info.view["out_count"]) is None
    assert any(sorted(karma.determinize(blind, random.Random(i))["out"]) != sorted(state["out"])
               for i in range(5))


@pytest.mark.parametrize("game_id,module,options", [
    ("kato", kato, {"rounds": 1, "draw_until_playable": True}),  # else it never runs out
    ("aetsch", aetsch, {"rounds": 1})])
def test_after_a_reshuffle_a_world_s_draw_pile_is_made_of_reshuffled_cards(game_id, module,
                                                                           options):
    # When the draw pile ran out, the discard pile below its top (all public) became the new
    # draw pile: a world deals the other hands from the other unseen cards, not from those.
    engine = GAMES[game_id]
    checked = 0
    for seed in range(1, 80):
        for state, events, _, _ in _heuristic_match(game_id, seed, options):
            if engine.is_round_over(state) or not any(
                    e["type"] == "reshuffled" for e in events):
                continue
            info = _info(engine, state, events)
            if game_id == "kato" and info.view["phase"] == "drawn" and not info.view["drawn"]:
                continue  # a card another seat drew fits: its world may swap one in
            below, made_of = public_piles(info.history, info.view["discard_count"], SEAT)
            assert made_of is not None
            pool = Counter(made_of)
            assert not Counter(state["draw_pile"]) - pool  # the real pile is among them
            world = module.determinize(info, random.Random(checked),
                                       module.observe(info))
            assert not Counter(world["draw_pile"]) - pool
            hidden = [c for p, hand in enumerate(world["hands"]) if p != SEAT for c in hand]
            real = [c for p, hand in enumerate(state["hands"]) if p != SEAT for c in hand]
            assert (Counter(hidden + world["draw_pile"] + world.get("to_give", []))
                    == Counter(real + state["draw_pile"] + state.get("to_give", [])))
            checked += 1
        if checked >= 60:
            break
    assert checked >= 60


@pytest.mark.parametrize("game_id,module,wild", [
    ("kato", kato, lambda e: e["type"] == "played" and e.get("color")
     and kato.IS_WILD[e["cards"][-1]]),
    ("aetsch", aetsch, lambda e: e["type"] == "played" and e.get("suit")
     and aetsch._rank(e["card"]) in ("J", "joker")),
])
def test_a_world_gives_a_wild_s_player_most_of_the_colour_it_named(game_id, module, wild):
    # The heuristic names the colour (suit) it holds most of: right after another seat's
    # wild, every world deals that seat a hand with the named colour ahead, as its real hand
    # has it; worlds dealt without the history often do not.
    state, info, p = _found(game_id, lambda new, seat: any(wild(e) for e in new))
    named = next(e for e in reversed(info.history) if e.get("seat") == p and wild(e))
    colour = named.get("color") or named.get("suit")
    beliefs = module.observe(info)
    assert beliefs.checks[p] and module._wished(colour, state["hands"][p])
    worlds = [module.determinize(info, random.Random(i), beliefs)["hands"][p]
              for i in range(40)]
    assert all(module._wished(colour, hand) for hand in worlds)
    blind = [module.determinize(info, random.Random(i))["hands"][p] for i in range(40)]
    assert not all(module._wished(colour, hand) for hand in blind)


@pytest.mark.parametrize("game_id,module,from_hand", [
    ("kato", kato, lambda e: e["type"] == "played" and not kato.IS_WILD[e["cards"][-1]]
     and kato.RANK[e["cards"][-1]] in "0123456789"),
    ("aetsch", aetsch, lambda e: e["type"] == "played" and e["card"] != "joker"
     and aetsch._rank(e["card"]) in aetsch.PLAIN_RANKS),
])
def test_a_world_deals_a_hand_from_which_the_heuristic_would_have_made_its_play(
        game_id, module, from_hand):
    # A plain number played from the hand says the heuristic scored no other play higher
    # (more of its colour or suit, a skip to hit with, points to shed): every world deals
    # the player a hand from which it would have made that play; worlds dealt within the
    # same beliefs but without their checks (what the void and passed-over readings alone
    # say) sometimes do not.
    def stop(new, seat):
        return len(new) >= 1 and from_hand(new[0]) and all(
            e["type"] not in ("drew", "drawn_card_fits") for e in new)

    for seed in range(1, 60):
        got = _until(game_id, seed, stop)
        if got is None:
            continue
        state, info, p = got
        beliefs = module.observe(info)
        if not beliefs.checks[p]:
            continue
        loose_beliefs = module.observe(info)
        loose_beliefs.redeals = 0
        loose = [module.determinize(info, random.Random(i), loose_beliefs)["hands"][p]
                 for i in range(40)]
        if all(beliefs.holds(p, hand) for hand in loose):
            continue  # the play tells nothing the other readings did not
        assert beliefs.holds(p, state["hands"][p])
        worlds = [module.determinize(info, random.Random(i), beliefs)["hands"][p]
                  for i in range(40)]
        assert all(beliefs.holds(p, hand) for hand in worlds)
        return
    pytest.fail("no telling play in 60 heuristic matches")


def test_a_check_reads_the_hand_at_its_choice_and_ends_at_an_unseen_change():
    from games.bots.search import Beliefs

    b = Beliefs(3, kato.features)
    seen = []

    def check(hand):
        seen.append(sorted(hand))
        return "red-5" in hand

    b.require(1, check)
    b.remove(1, "red-5")          # played since: part of the hand at the choice
    b.add_known(1, ["blue-2"])    # given face up since: not part of it
    assert b.holds(1, ["blue-2", "green-7"]) and seen[-1] == ["green-7", "red-5"]
    b.swap(1, 2)                  # the hand moved to seat 2, and its checks with it
    assert not b.checks[1] and b.checks[2]
    b.add_unknown(2, 1)           # a draw the seat did not see: the check can say no more
    assert not b.checks[2]
    for _ in range(Beliefs.max_checks + 2):
        b.require(0, check)
    assert len(b.checks[0]) == Beliefs.max_checks


def test_a_world_is_dealt_again_until_a_seat_s_checks_hold():
    from games.bots.search import Beliefs

    b = Beliefs(2, kato.features)

    def held_most_red(hand):
        return max(kato.COLORS, key=lambda c: sum(kato.COLOR[x] == c for x in hand)) == "red"

    b.require(1, held_most_red)
    deck = sorted({c for c in kato.RANK if not kato.IS_WILD[c]})
    checked, unchecked = [], []
    for i in range(30):
        for rng, out in ((random.Random(i), checked), (None, unchecked)):
            pool = list(deck)
            random.Random(i).shuffle(pool)
            hand = b.deal(pool, {1: 5}, rng)[1]
            assert len(hand) == 5 and sorted(hand + pool) == deck  # no card made or lost
            out.append(hand)
    assert all(held_most_red(hand) for hand in checked)
    assert not all(held_most_red(hand) for hand in unchecked)


def test_checks_no_hand_can_meet_are_given_up_after_a_few_worlds():
    from games.bots.search import Beliefs

    b = Beliefs(2, kato.features)
    calls = []
    b.require(1, lambda hand: calls.append(1) and False)  # a choice no hand explains
    deck = sorted({c for c in kato.RANK if not kato.IS_WILD[c]})
    per_world = []
    for i in range(6):
        before = len(calls)
        pool = list(deck)
        hand = b.deal(pool, {1: 5}, random.Random(i))[1]
        assert len(hand) == 5  # a hand is dealt all the same
        per_world.append(len(calls) - before)
    assert per_world[:Beliefs.give_up_after] == [Beliefs.redeals + 1] * Beliefs.give_up_after
    assert per_world[Beliefs.give_up_after:] == [0] * (6 - Beliefs.give_up_after)
