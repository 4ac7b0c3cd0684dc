"""Swiss and arena at tables of 3 to 6 seats: no repeat meeting while a pairing without one
exists, the first seat shared out, no second bye while someone has none; and the gain over
the pairing as it was (the in-order search alone). Figures: tests/bench/bench_pairing.py."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments import formats

from .test_formats import _all_partitions

seeds = st.integers(min_value=0, max_value=2**32)
multi = st.integers(min_value=3, max_value=6)


def _before(ranked, size, history):
    """Swiss as it was: the in-order search alone."""
    return formats._partition(ranked, size, formats.meetings(history))


def _random_history(rng, players, size, rounds):
    history = []
    for _ in range(rounds):
        shuffled = rng.sample(players, len(players))
        history += [tuple(shuffled[i:i + size])
                    for i in range(0, len(shuffled) - len(shuffled) % size, size)]
    return history


@given(size=multi, tables=st.integers(2, 3), seed=seeds, past=st.integers(1, 4))
@settings(max_examples=80, deadline=None)
def test_swiss_at_multi_seat_tables_repeats_no_more_than_the_best_split(size, tables, seed,
                                                                        past):
    """Small fields, checked against every possible split."""
    n = size * tables
    if n > 12:
        tables, n = 2, 2 * size
    rng = random.Random(seed)
    players = list(range(n))
    history = _random_history(rng, players, size, past)
    ranked = rng.sample(players, n)
    pairing = formats.swiss(ranked, table_size=size, history=history)
    met = formats.meetings(history)
    best = min(formats.repeat_cost(split, met) for split in _all_partitions(ranked, size))
    assert formats.repeat_cost(pairing.tables, met) == best


@given(size=multi, n=st.integers(12, 30), seed=seeds, past=st.integers(1, 5))
@settings(max_examples=15, deadline=None)
def test_swiss_never_repeats_more_than_before_and_never_when_a_clean_split_is_known(
        size, n, seed, past):
    rng = random.Random(seed)
    players = list(range(n))
    history = _random_history(rng, players, size, past)
    ranked = rng.sample(players, n)
    pairing = formats.swiss(ranked, table_size=size, history=history)
    playing = [p for p in ranked if p not in pairing.byes]
    met = formats.meetings(history)
    assert formats.repeat_cost(pairing.tables, met) <= formats.repeat_cost(
        _before(playing, size, history), met)


def test_over_many_random_fields_the_repeats_drop_against_before():
    """Four Swiss rounds per field with random standings, 3 to 6 seats: the total repeat
    meetings of the new pairing against the in-order search on the same histories."""
    rng = random.Random(18)
    before = after = 0
    for _ in range(6):
        size = rng.randint(3, 6)
        n = size * rng.randint(5, 9)
        players = list(range(n))
        history: list = []
        ranked = rng.sample(players, n)
        for _ in range(4):
            met = formats.meetings(history)
            old = _before(ranked, size, history)
            new = formats.swiss(ranked, table_size=size, history=history)
            before += formats.repeat_cost(old, met)
            after += formats.repeat_cost(new.tables, met)
            history += new.tables
            ranked = rng.sample(players, n)
    print(f"repeat meetings over 6 fields x 4 rounds: before {before}, after {after}")
    assert after * 2 <= before, (before, after)


@given(size=multi, n=st.integers(6, 30), seed=seeds, rounds=st.integers(2, 5))
@settings(max_examples=25, deadline=None)
def test_the_first_seat_goes_to_who_had_it_least(size, n, seed, rounds):
    rng = random.Random(seed)
    players = list(range(n))
    history: list = []
    byes = Counter()
    for _ in range(rounds):
        firsts = formats.first_seats(history)
        pairing = formats.swiss(rng.sample(players, n), table_size=size, history=history,
                                bye_counts=byes)
        for table in pairing.tables:
            assert firsts[table[0]] == min(firsts[p] for p in table)
        history += pairing.tables
        byes.update(pairing.byes)


@given(size=multi, n=st.integers(4, 30), seed=seeds, rounds=st.integers(1, 6),
       leave=st.integers(0, 3))
@settings(max_examples=30, deadline=None)
def test_no_second_bye_while_someone_has_none(size, n, seed, rounds, leave):
    rng = random.Random(seed)
    active = list(range(n))
    byes = Counter()
    history: list = []
    for r in range(rounds):
        if r and leave and len(active) > size + leave:
            for p in rng.sample(active, leave):  # withdrawals change who is left
                active.remove(p)
        pairing = formats.swiss(rng.sample(active, len(active)), table_size=size,
                                history=history, bye_counts=byes)
        for p in pairing.byes:
            if byes[p] >= 1:  # a second bye: everyone else has one, or gets one now
                assert all(byes[q] >= 1 or q in pairing.byes for q in active), (p, byes)
        history += pairing.tables
        byes.update(pairing.byes)


@given(size=multi, n=st.integers(6, 24), seed=seeds, rounds=st.integers(2, 5))
@settings(max_examples=20, deadline=None)
def test_arena_counts_every_earlier_meeting_not_only_the_last(size, n, seed, rounds):
    rng = random.Random(seed)
    players = list(range(n))
    history: list = []
    last: dict = {}
    for _ in range(rounds):
        waiting = rng.sample(players, n)
        met = formats.meetings(history)
        met.update({(min(p, o), max(p, o)) for p, others in last.items() for o in others})
        pairing = formats.arena_pair(waiting, table_size=size, last_opponents=last,
                                     history=history)
        seated = waiting[:len(waiting) - len(pairing.waiting)]
        assert sorted(p for t in pairing.tables for p in t) == sorted(seated)
        count = formats.repeat_cost(pairing.tables, met)
        assert count <= formats.repeat_cost(formats._partition(seated, size, met), met)
        history += pairing.tables
        for table in pairing.tables:
            for p in table:
                last[p] = [o for o in table if o != p]
