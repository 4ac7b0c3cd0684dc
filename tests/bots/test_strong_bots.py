"""The `strong` bots: sampled worlds agree with the seat's view, the search sees only that
view (no peeking), is reproducible for a seed and an iteration budget, and keeps its budget."""

from __future__ import annotations

import json
import random
import time
from collections import Counter

import pytest

from games.bots import BOTS, search
from games.bots.search import InfoSet, SearchBot
from games.engine import GAMES

GAME_SEATS = [("kato", 4), ("aetsch", 4), ("karma", 4), ("krass_kariert", 4)]


def positions(game_id: str, players: int, seed: int, every: int = 5, limit: int = 12):
    """``(state, seat)`` at every ``every``-th move of a heuristic match where the seat to
    act has a choice between at least two different moves."""
    engine = GAMES[game_id]
    heuristic = BOTS[game_id]["heuristic"]
    rng = random.Random(seed)
    state = engine.new_game(players, seed)
    found = []
    for step in range(3000):
        if engine.is_over(state) or len(found) >= limit:
            break
        if engine.is_round_over(state):
            state, _ = engine.start_next_round(state)
            continue
        seat = rng.choice(engine.actors(state))
        legal = engine.legal_actions(state, seat)
        if step % every == 0 and len({json.dumps(a, sort_keys=True) for a in legal}) > 1:
            found.append((state, seat))
        state, _ = engine.apply(state, seat, heuristic.choose(engine.view(state, seat), legal,
                                                              rng))
    assert found
    return found


def _reshuffle(cards_by_zone: list[list], rng: random.Random) -> list[list]:
    pool = [c for zone in cards_by_zone for c in zone]
    rng.shuffle(pool)
    out = []
    for zone in cards_by_zone:
        out.append(pool[:len(zone)])
        pool = pool[len(zone):]
    return out


def hidden_twin(game_id: str, state: dict, seat: int, rng: random.Random) -> dict:
    """Another real state: the cards ``seat`` cannot see are dealt anew among the hidden
    zones (other hands, face-down cards, piles face down), every count kept."""
    s = json.loads(json.dumps(state))
    others = [p for p in range(s["players"]) if p != seat]
    if game_id == "kato":
        zones = [s["hands"][p] for p in others] + [s["draw_pile"], s["discard"][:-1]]
        new = _reshuffle(zones, rng)
        for p, cards in zip(others, new, strict=False):
            s["hands"][p] = cards
        s["draw_pile"], s["discard"] = new[-2], new[-1] + s["discard"][-1:]
        if s["chal_seat"] >= 0:
            s["chal_honest"] = not any(c.startswith(s["chal_color"])
                                       for c in s["hands"][s["chal_seat"]])
    elif game_id == "aetsch":
        zones = [s["hands"][p] for p in others] + [s["draw_pile"], s["discard_pile"][:-1]]
        new = _reshuffle(zones, rng)
        for p, cards in zip(others, new, strict=False):
            s["hands"][p] = cards
        s["draw_pile"], s["discard_pile"] = new[-2], new[-1] + s["discard_pile"][-1:]
    elif game_id == "karma":
        downs = [[c for c in row if c is not None] for row in s["table_down"]]
        zones = [s["hands"][p] for p in others] + downs + [s["draw_pile"], s["out"]]
        new = _reshuffle(zones, rng)
        for p, cards in zip(others, new, strict=False):
            s["hands"][p] = cards
        for p in range(s["players"]):
            cards = iter(new[len(others) + p])
            s["table_down"][p] = [None if c is None else next(cards) for c in s["table_down"][p]]
        s["draw_pile"], s["out"] = new[-2], new[-1]
    else:
        zones = [s["hands"][p] for p in others] + [s["draw_pile"], s["discard_pile"]]
        new = _reshuffle(zones, rng)
        for p, cards in zip(others, new, strict=False):
            s["hands"][p] = cards
        s["draw_pile"], s["discard_pile"] = new[-2], new[-1]
    return s


@pytest.mark.parametrize("game_id,players", GAME_SEATS)
def test_every_sampled_world_shows_the_seat_exactly_its_view(game_id, players):
    engine = GAMES[game_id]
    bot = BOTS[game_id]["strong"]
    for seed in (1, 2):
        for state, seat in positions(game_id, players, seed, every=3, limit=25):
            view = engine.view(state, seat)
            info = InfoSet(seat, view, tuple(engine.legal_actions(state, seat)))
            if bot.searchable is not None and not bot.searchable(info):
                continue
            for k in range(3):
                world = bot.determinize(info, random.Random(k))
                assert engine.view(world, seat) == view
                assert engine.legal_actions(world, seat) == engine.legal_actions(state, seat)
                assert Counter(engine.all_cards(world)) == Counter(
                    engine.full_deck(state["options"]))


@pytest.mark.parametrize("game_id,players", GAME_SEATS)
def test_no_peeking_states_equal_in_the_seats_view_give_the_same_move(game_id, players):
    engine = GAMES[game_id]
    bot = BOTS[game_id]["strong"]
    rng = random.Random(5)
    checked = 0
    for state, seat in positions(game_id, players, 3, every=4, limit=6):
        twin = hidden_twin(game_id, state, seat, rng)
        if twin == state or engine.view(twin, seat) != engine.view(state, seat):
            continue
        moves = [bot.choose(engine.view(s, seat), engine.legal_actions(s, seat),
                            random.Random(11), iterations=40, time_ms=0)
                 for s in (state, twin)]
        assert moves[0] == moves[1]
        checked += 1
    assert checked >= 2


@pytest.mark.parametrize("game_id,players", GAME_SEATS)
def test_the_same_seed_and_budget_give_the_same_move_and_the_budget_is_kept(game_id,
                                                                            players):
    engine = GAMES[game_id]
    bot: SearchBot = BOTS[game_id]["strong"]
    state, seat = positions(game_id, players, 4, every=6, limit=3)[-1]
    info = InfoSet(seat, engine.view(state, seat), tuple(engine.legal_actions(state, seat)))
    if bot.searchable is not None and not bot.searchable(info):
        pytest.skip("no searchable position")
    first = bot.search(info, random.Random(9), iterations=30, time_ms=0)
    again = bot.search(info, random.Random(9), iterations=30, time_ms=0)
    assert first["action"] == again["action"] and first["arms"] == again["arms"]
    # Every candidate is played out once per sampled world: whole worlds within the budget.
    assert 30 - len(first["arms"]) < first["iterations"] <= 30
    # A time cap stops a huge iteration budget (generous bound: no timing precision asked).
    started = time.perf_counter()
    capped = bot.search(info, random.Random(9), iterations=10**7, time_ms=30)
    assert capped["iterations"] < 10**7
    assert time.perf_counter() - started < 10


def test_the_strong_bot_cannot_reach_the_state_only_its_view():
    # The search's only input is an InfoSet built from copies of what the caller passed.
    engine = GAMES["kato"]
    state, seat = positions("kato", 4, 6, limit=1)[0]
    view = engine.view(state, seat)
    legal = engine.legal_actions(state, seat)
    before = json.dumps(view, sort_keys=True)
    BOTS["kato"]["strong"].choose(view, legal, random.Random(1), iterations=20, time_ms=0)
    assert json.dumps(view, sort_keys=True) == before


def test_strong_is_registered_for_every_game_with_a_description():
    for game_id in GAMES:
        assert isinstance(BOTS[game_id]["strong"], SearchBot)
        assert all(bot.description for bot in BOTS[game_id].values())


@pytest.mark.parametrize("game_id,players", GAME_SEATS)
def test_the_playouts_light_view_gives_the_heuristic_the_same_moves(game_id, players):
    # Playouts hand the heuristic a light view read from the sampled world; it must decide
    # exactly as it does on the engine's full view (same move, same RNG use).
    engine = GAMES[game_id]
    bot: SearchBot = BOTS[game_id]["strong"]
    compared = 0
    for seed in (1, 2, 3):
        for state, seat in positions(game_id, players, seed, every=1, limit=150):
            full = engine.view(state, seat)
            if full["phase"] == "choose":
                continue  # Karma's face-up choice is never searched nor played out
            legal = engine.legal_actions(state, seat)
            light = bot.rollout_view(state, seat)
            assert {k: full[k] for k in light} == light
            rng_a, rng_b = random.Random(seed), random.Random(seed)
            assert (bot.heuristic.choose(light, legal, rng_a)
                    == bot.heuristic.choose(full, legal, rng_b))
            assert rng_a.random() == rng_b.random()
            compared += 1
    assert compared >= 100


class _Clock:
    """A clock that moves on by ``step`` seconds each time it is read, counting the reads."""

    def __init__(self, step: float):
        self.now = 0.0
        self.step = step
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        self.now += self.step
        return self.now


@pytest.mark.parametrize("game_id,players", GAME_SEATS)
def test_the_time_cap_holds_within_a_sampled_world(game_id, players, monkeypatch):
    # Time runs out during the first world (each clock read is 1 ms, the cap 5 ms): the
    # search stops inside that world, drops it and plays the heuristic's move, instead of
    # finishing the world's playouts first (Krass Kariert plays ~25 candidates a world).
    engine = GAMES[game_id]
    bot: SearchBot = BOTS[game_id]["strong"]
    state, seat = positions(game_id, players, 4, every=6, limit=3)[-1]
    info = InfoSet(seat, engine.view(state, seat), tuple(engine.legal_actions(state, seat)))
    if bot.searchable is not None and not bot.searchable(info):
        pytest.skip("no searchable position")
    clock = _Clock(0.001)
    monkeypatch.setattr(search, "clock", clock)
    moves = 0
    real_choose = bot.heuristic.choose

    def counting_choose(*args, **kwargs):
        nonlocal moves
        moves += 1
        return real_choose(*args, **kwargs)

    monkeypatch.setattr(bot.heuristic, "choose", counting_choose)
    out = bot.search(info, random.Random(9), iterations=10**6, time_ms=5)
    assert out["iterations"] == 0 and out["arms"] == {}
    assert out["action"] == real_choose(info.view, list(info.legal), random.Random(9))
    # The heuristic's own move, then playout moves until the sixth clock read at most.
    assert moves <= 1 + 6


def test_the_krass_kariert_heuristic_s_hand_cache_stays_bounded_under_search():
    # A strong move's playouts value some 20,000 new hands; the cache of hand plans kept
    # them all (a simulation's worker passed 12 GB, a Celery worker would have grown for as
    # long as it ran). It keeps the most recent ones, at most its bound.
    from games.bots import krass_kariert

    plan_cost = krass_kariert.plan_cost
    plan_cost.cache_clear()
    bound = plan_cost.cache_info().maxsize
    assert bound is not None
    engine, strong = GAMES["krass_kariert"], BOTS["krass_kariert"]["strong"]
    misses = 0
    for state, seat in positions("krass_kariert", 4, 11, every=3, limit=8):
        strong.choose(engine.view(state, seat), engine.legal_actions(state, seat),
                      random.Random(1), iterations=300, time_ms=0)
        misses = plan_cost.cache_info().misses
        if misses > bound:
            break
    assert misses > bound  # the searches met more hands than the cache keeps
    assert plan_cost.cache_info().currsize <= bound
