"""Properties every game must keep, checked by random playouts through the public contract.

Each game's tests call these with their own game object and options; see DESIGN.md "The
engine contract". Random play picks among ``legal_actions`` with a seeded ``random.Random``.
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter

import pytest

from games.engine import IllegalAction

MALFORMED_ACTIONS = [None, 7, "draw", [], {}, {"type": None}, {"type": 3},
                     {"type": "no_such_action"}]


def assert_json(value) -> None:
    assert json.loads(json.dumps(value)) == value, "not plain JSON data"


def check_conservation(game, state, options) -> None:
    assert Counter(game.all_cards(state)) == Counter(game.full_deck(options))


def check_apply_is_pure_and_conserving(game, state, seat, action, options):
    before = copy.deepcopy(state)
    new_state, events = game.apply(state, seat, action)
    assert state == before, f"apply mutated its input on {action}"
    assert_json(new_state)
    assert_json(events)
    for ev in events:
        assert isinstance(ev.get("type"), str)
        vis = ev.get("visible_to")
        assert vis == "all" or (isinstance(vis, list) and all(isinstance(s, int) for s in vis))
    check_conservation(game, new_state, options)
    return new_state, events


def check_illegal_changes_nothing(game, state, players: int, rnd: random.Random) -> None:
    before = copy.deepcopy(state)
    actors = game.actors(state)
    for action in MALFORMED_ACTIONS:
        seat = actors[0] if actors else 0
        with pytest.raises(IllegalAction):
            game.apply(state, seat, action)
    bystanders = [s for s in range(players) if s not in actors]
    if bystanders and actors:
        legal = game.legal_actions(state, actors[0])
        if legal:
            with pytest.raises(IllegalAction) as info:
                game.apply(state, rnd.choice(bystanders), rnd.choice(legal))
            assert info.value.code == "not_your_turn"
    assert state == before


def random_match(game, players: int, seed: int, options: dict | None = None, *,
                 deck: list | None = None, max_steps: int = 20_000, check: bool = True,
                 choose=None):
    """Play a whole match with random legal actions. Returns ``(final_state, history)``.

    ``history`` is a list of ``("act", seat, action)`` and ``("next_round",)`` steps that
    ``replay`` turns back into the same states.
    """
    rnd = random.Random(seed)
    opts = game.validate_options(options)
    state = game.new_game(players, seed, options, deck=deck)
    if check:
        assert_json(state)
        check_conservation(game, state, opts)
    history: list[tuple] = []
    for step in range(max_steps):
        if game.is_over(state):
            if check:
                result = game.result(state)
                assert len(result["placings"]) == players and len(result["scores"]) == players
                assert_json(result)
            return state, history
        if game.is_round_over(state):
            if check:
                result = game.round_result(state)
                assert len(result["placings"]) == players
                assert_json(result)
            state, _ = game.start_next_round(state)
            history.append(("next_round",))
            continue
        actors = game.actors(state)
        assert actors, "nobody may act in a running round"
        seat = rnd.choice(actors)
        legal = game.legal_actions(state, seat)
        assert legal, f"seat {seat} is an actor without a legal action"
        if check:
            assert_json(legal)
            for view_seat in [*range(players), None]:
                assert_json(game.view(state, view_seat))
            if step % 7 == 0:
                check_illegal_changes_nothing(game, state, players, rnd)
        action = choose(state, seat, legal, rnd) if choose else rnd.choice(legal)
        if check:
            state, _ = check_apply_is_pure_and_conserving(game, state, seat, action, opts)
        else:
            state, _ = game.apply(state, seat, action)
        history.append(("act", seat, action))
    raise AssertionError(f"match did not end within {max_steps} steps")


def replay(game, players: int, seed: int, options: dict | None, history: list,
           deck: list | None = None) -> dict:
    state = game.new_game(players, seed, options, deck=deck)
    for step in history:
        if step[0] == "next_round":
            state, _ = game.start_next_round(state)
        else:
            state, _ = game.apply(state, step[1], step[2])
    return state


def check_every_legal_action_applies(game, state) -> None:
    for seat in game.actors(state):
        for action in game.legal_actions(state, seat):
            game.apply(state, seat, action)
