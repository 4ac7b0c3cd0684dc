"""Pairing properties of every format (pure functions, no database)."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments import formats

fields = st.integers(min_value=2, max_value=30)
sizes = st.integers(min_value=2, max_value=6)
seeds = st.integers(min_value=0, max_value=2**32)


def _all_partitions(players, size):
    if not players:
        yield []
        return
    head, rest = players[0], players[1:]
    for others in combinations(rest, size - 1):
        left = [p for p in rest if p not in others]
        for tail in _all_partitions(left, size):
            yield [(head, *others), *tail]


def _assert_everyone_once(pairing, players, size):
    seated = pairing.seated
    assert sorted(seated + list(pairing.byes)) == sorted(players)
    assert all(len(t) == size for t in pairing.tables)


# --- swiss -----------------------------------------------------------------------------------

@given(n=fields, size=sizes, seed=seeds, rounds=st.integers(1, 4))
@settings(max_examples=60, deadline=None)
def test_swiss_seats_every_player_or_gives_a_bye_each_round(n, size, seed, rounds):
    players = list(range(n))
    history, byes = [], Counter()
    for _ in range(rounds):
        ranked = formats.seeded_order(players, seed + len(history))
        pairing = formats.swiss(ranked, table_size=size, history=history, bye_counts=byes)
        _assert_everyone_once(pairing, players, size)
        assert len(pairing.byes) == n % size
        history += pairing.tables
        byes.update(pairing.byes)
    assert max(byes.values(), default=0) - min(byes.get(p, 0) for p in players) <= 1


@given(n=st.integers(4, 9), size=st.integers(2, 4), seed=seeds, past=st.integers(1, 3))
@settings(max_examples=60, deadline=None)
def test_swiss_repeats_opponents_only_when_unavoidable(n, size, seed, past):
    """The pairing's repeat meetings equal the fewest any split of the players allows."""
    rng = random.Random(seed)
    players = list(range(n))
    history = []
    for _ in range(past):
        shuffled = rng.sample(players, n)
        history += [tuple(shuffled[i:i + size]) for i in range(0, n - n % size, size)]
    ranked = rng.sample(players, n)
    pairing = formats.swiss(ranked, table_size=size, history=history)
    met = formats.meetings(history)
    playing = [p for p in ranked if p not in pairing.byes]
    best = min(formats.repeat_cost(split, met) for split in _all_partitions(playing, size))
    assert formats.repeat_cost(pairing.tables, met) == best


def test_swiss_second_round_of_eight_in_pairs_has_no_rematch():
    first = formats.swiss(list(range(8)), table_size=2)
    assert first.tables == ((0, 1), (2, 3), (4, 5), (6, 7))
    second = formats.swiss([0, 2, 4, 6, 1, 3, 5, 7], table_size=2, history=first.tables)
    assert formats.repeat_cost(second.tables, formats.meetings(first.tables)) == 0
    # grouped by standing: the leaders meet each other
    assert second.tables[0] == (0, 2)


def test_swiss_bye_goes_to_the_lowest_ranked_player_without_one():
    pairing = formats.swiss([5, 4, 3, 2, 1], table_size=2, bye_counts={1: 1})
    assert pairing.byes == (2,)


def test_swiss_twelve_players_at_four_seats_repeat_at_least_pigeonhole():
    first = formats.swiss(list(range(12)), table_size=4)
    second = formats.swiss(list(range(12)), table_size=4, history=first.tables)
    # Three old tables, four seats: each new table must hold two from one old table.
    assert formats.repeat_cost(second.tables, formats.meetings(first.tables)) == 3


# --- round robin -----------------------------------------------------------------------------

@given(n=st.integers(2, 16), seed=seeds)
@settings(max_examples=40, deadline=None)
def test_round_robin_of_pairs_meets_every_pair_exactly_once(n, seed):
    players = list(range(n))
    rounds = n - 1 if n % 2 == 0 else n
    met = Counter()
    for r in range(1, rounds + 1):
        pairing = formats.round_robin(players, table_size=2, round_number=r, seed=seed)
        _assert_everyone_once(pairing, players, 2)
        assert len(pairing.byes) == n % 2
        met.update(tuple(sorted(t)) for t in pairing.tables)
    assert set(met) == set(combinations(players, 2)) and set(met.values()) == {1}


@given(n=st.integers(3, 16), size=st.integers(3, 5), seed=seeds)
@settings(max_examples=40, deadline=None)
def test_round_robin_of_bigger_tables_seats_everyone_and_spreads_meetings(n, size, seed):
    players = list(range(n))
    history, byes = [], Counter()
    for r in range(1, formats.round_robin_rounds(n, size) + 1):
        pairing = formats.round_robin(players, table_size=size, round_number=r, seed=seed,
                                      history=history, bye_counts=byes)
        _assert_everyone_once(pairing, players, size)
        history += pairing.tables
        byes.update(pairing.byes)
    assert max(byes.values(), default=0) - min(byes.get(p, 0) for p in players) <= 1


def test_pairings_are_deterministic_given_the_seed():
    a = formats.round_robin(list(range(10)), table_size=3, round_number=2, seed=7)
    b = formats.round_robin(list(range(10)), table_size=3, round_number=2, seed=7)
    c = formats.round_robin(list(range(10)), table_size=3, round_number=2, seed=8)
    assert a == b and a != c


# --- single elimination ----------------------------------------------------------------------

def test_elimination_spreads_top_seeds_and_advances_the_top_placings():
    seeded = list(range(12))
    pairing = formats.elimination(seeded, table_size=4)
    assert pairing.byes == ()
    assert pairing.tables == ((0, 5, 6, 11), (1, 4, 7, 10), (2, 3, 8, 9))
    # placings: the lower seed wins each table
    placings = {p: rank for t in pairing.tables for rank, p in
                enumerate(sorted(t, reverse=True), start=1)}
    going = formats.elimination_advancing(pairing, placings, advance=2,
                                          seed_rank={p: p for p in seeded})
    assert going == [9, 10, 11, 6, 7, 8]  # the winners by seed, then the runners-up by seed


@given(n=st.integers(2, 40), size=st.integers(2, 6), advance_less=st.integers(1, 5))
@settings(max_examples=80, deadline=None)
def test_elimination_shrinks_to_one_final_and_byes_go_to_top_seeds(n, size, advance_less):
    advance = max(1, size - advance_less)
    field_ = list(range(n))
    rounds = 0
    while True:
        pairing = formats.elimination(field_, table_size=size)
        _assert_everyone_once(pairing, field_, size if len(field_) > size else len(field_))
        assert list(pairing.byes) == field_[:len(pairing.byes)]
        if formats.is_final(pairing):
            break
        placings = {p: i for t in pairing.tables for i, p in enumerate(t, start=1)}
        nxt = formats.elimination_advancing(pairing, placings, advance=advance,
                                            seed_rank={p: i for i, p in enumerate(field_)})
        assert len(nxt) == len(pairing.byes) + advance * len(pairing.tables) < len(field_)
        assert set(pairing.byes) <= set(nxt)
        for t in pairing.tables:
            assert set(t[:advance]) <= set(nxt) and not set(t[advance:]) & set(nxt)
        field_ = nxt
        rounds += 1
        assert rounds < 50


def test_elimination_with_too_few_for_a_table_plays_no_final():
    assert formats.elimination([1, 2], table_size=4, min_size=3).tables == ()


def test_elimination_order_ranks_by_round_reached_then_placing():
    r1 = formats.Pairing(((1, 2, 3, 4), (5, 6, 7, 8)))
    p1 = {1: 1, 2: 2, 3: 3, 4: 4, 5: 2, 6: 1, 7: 4, 8: 3}
    r2 = formats.Pairing(((1, 6, 2, 5),))
    p2 = {5: 1, 1: 2, 6: 3, 2: 4}
    order = formats.elimination_order([1, 2, 3, 4, 5, 6, 7, 8], [(r1, p1), (r2, p2)])
    assert order == [5, 1, 6, 2, 3, 8, 4, 7]


# --- arena -----------------------------------------------------------------------------------

def test_arena_seats_full_tables_first_come_first_served():
    result = formats.arena_pair([1, 2, 3, 4, 5, 6, 7], table_size=3)
    assert sorted(p for t in result.tables for p in t) == [1, 2, 3, 4, 5, 6]
    assert result.waiting == [7]
    assert formats.arena_pair([1, 2], table_size=3).tables == []


def test_arena_repairs_avoiding_last_opponents():
    last = {1: [2], 2: [1], 3: [4], 4: [3]}
    result = formats.arena_pair([1, 2, 3, 4], table_size=2, last_opponents=last)
    assert formats.repeat_cost(result.tables, formats.meetings([(1, 2), (3, 4)])) == 0
    # With no choice, the rematch is played rather than waiting.
    assert formats.arena_pair([1, 2], table_size=2, last_opponents=last).tables == [(1, 2)]


@given(arrivals=st.lists(st.integers(0, 50), min_size=0, max_size=30, unique=True),
       size=sizes)
@settings(max_examples=60, deadline=None)
def test_arena_leaves_fewer_than_a_table_waiting(arrivals, size):
    result = formats.arena_pair(arrivals, table_size=size)
    assert len(result.waiting) < size
    assert sorted(result.waiting + [p for t in result.tables for p in t]) == sorted(arrivals)
    assert all(len(t) == size for t in result.tables)


# --- standings -------------------------------------------------------------------------------

def test_standings_points_by_placing_then_buchholz_then_wins():
    results = [{1: 1, 2: 2, 3: 3, 4: 4}, {5: 1, 6: 2, 7: 3, 8: 4},
               {1: 2, 5: 1, 2: 3, 6: 4}, {3: 1, 7: 2, 4: 3, 8: 4}]
    lines = formats.standings(list(range(1, 9)), results, [], table_size=4)
    by = {ln.player: ln for ln in lines}
    assert by[5].points == 6 and by[5].rank == 1
    assert by[1].points == 5 and by[1].rank == 2
    assert by[2].points == by[7].points == 3
    # 2 and 7 tie on points (and wins); 2 met stronger opponents (Buchholz)
    assert (by[2].buchholz, by[7].buchholz) == (23, 13) and by[2].rank < by[7].rank


def test_a_bye_scores_half_a_table():
    lines = formats.standings([1, 2, 3], [{1: 1, 2: 2}], [3], table_size=2)
    assert [(ln.player, ln.points, ln.byes) for ln in lines] == [(1, 1, 0), (3, 1, 1), (2, 0, 0)]
