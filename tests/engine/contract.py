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


# --- the declaration's contract: every registered game gets these for free -------------------

def check_events_declared(game, events: list[dict]) -> None:
    """Each event is of a declared type, carries exactly its declared data (optional ones
    may be absent) and goes to the audience its declaration states."""
    decl = game.declaration
    for ev in events:
        spec = decl.event(ev["type"])
        assert spec is not None, f"{decl.id}: undeclared event {ev['type']!r}"
        keys = set(ev) - {"type", "visible_to"}
        declared = {f.name for f in spec.fields}
        required = {f.name for f in spec.fields if f.required}
        assert required <= keys <= declared, (
            f"{decl.id}: event {ev['type']!r} has {sorted(keys)}, declared {sorted(declared)}")
        audience = spec.audience_of(ev)
        if spec.visible_to == "all":
            assert ev["visible_to"] == "all", f"{decl.id}: {ev['type']!r} is for everyone"
        elif audience is not None:
            assert ev["visible_to"] == audience, f"{decl.id}: {ev['type']!r} audience"
        else:
            assert ev["visible_to"] != "all", f"{decl.id}: {ev['type']!r} is not for everyone"


def check_views_declared(game, state, players: int) -> None:
    """Views hold exactly the declared fields; the public ones are the same for every seat
    and a spectator (a view depends on the viewer only through its private fields), and a
    spectator's private fields are empty."""
    decl = game.declaration
    names = [f.name for f in decl.view]
    public = [f.name for f in decl.view if not f.private]
    private = [f.name for f in decl.view if f.private]
    spectator = game.view(state, None)
    assert sorted(spectator) == sorted(names), f"{decl.id}: spectator view keys"
    assert all(spectator[name] in (None, []) for name in private), (
        f"{decl.id}: a spectator sees a private field")
    for seat in range(players):
        view = game.view(state, seat)
        assert sorted(view) == sorted(names), f"{decl.id}: view keys of seat {seat}"
        for name in public:
            assert view[name] == spectator[name], (
                f"{decl.id}: public view field {name!r} differs for seat {seat}")


def malformed_variants(decl, action: dict) -> list[tuple[dict, str]]:
    """The same kinds of malformed action, derived from a legal one, with the code every
    game must answer: an unknown field (with a value, and null), a declared field set to
    null or to a value of no field type, and a required field left out."""
    out = [({**action, "no_such_field": 1}, "unknown_field"),
           ({**action, "no_such_field": None}, "unknown_field"),
           ({"type": "no_such_action"}, "unknown_action"),
           ({**action, "type": 7}, "malformed_action")]
    spec = decl.action(action["type"])
    for f in spec.fields:
        out.append(({**action, f.name: None}, "invalid_type"))
        out.append(({**action, f.name: {"not": "a value"}}, "invalid_type"))
        if f.required:
            out.append(({k: v for k, v in action.items() if k != f.name}, "missing_field"))
    return out


def check_validation_answers(game, state) -> list[str]:
    """Every malformed variant of every legal action of every actor gets its code and
    changes nothing. Returns the codes seen (for tests that compare games)."""
    before = copy.deepcopy(state)
    seen = []
    for seat in game.actors(state):
        for action in game.legal_actions(state, seat)[:3]:
            game.declaration.validate_action(action)
            for bad, code in malformed_variants(game.declaration, action):
                with pytest.raises(IllegalAction) as info:
                    game.apply(state, seat, bad)
                assert info.value.code == code, (game.id, bad, info.value.code)
                seen.append(code)
    assert state == before
    return seen


def check_competition_ranking(placings: list[int]) -> None:
    """Ties are written the same in every result of every game (docs/games, RULES.md): a
    seat's place is 1 + the number of seats placed strictly better (1, 2, 2, 4)."""
    assert placings == [1 + sum(q < p for q in placings) for p in placings], placings


def contract_playout(game, players: int, seed: int, options: dict | None = None, *,
                     max_steps: int = 1_500, must_end: bool = False):
    """A random match (its first ``max_steps`` actions) through the public contract with the
    declaration's checks along the way, then its replay: the same seed and actions give the
    same states. Whole random matches are each game's own property tests."""
    rnd = random.Random(seed)
    decl = game.declaration
    state, events = game.new_game_with_events(players, seed, options)
    check_events_declared(game, events)
    history: list[tuple] = []
    for step in range(max_steps):
        if game.is_over(state):
            break
        if game.is_round_over(state):
            check_competition_ranking(game.round_result(state)["placings"])
            state, events = game.start_next_round(state)
            check_events_declared(game, events)
            history.append(("next_round",))
            continue
        if step % 3 == 0:
            check_views_declared(game, state, players)
        if step % 29 == 0:
            check_validation_answers(game, state)
        seat = rnd.choice(game.actors(state))
        legal = game.legal_actions(state, seat)
        assert legal, f"{decl.id}: seat {seat} acts without a legal action"
        action = rnd.choice(legal)
        decl.validate_action(action)
        # RULES.md: a flag the rules let a player add (a call) is listed without it.
        flags = [f.name for f in decl.action(action["type"]).fields
                 if not f.required and f.kind.type == "bool" and f.name not in action]
        if flags and rnd.random() < 0.5:
            action = {**action, **dict.fromkeys(flags, True)}
        state, events = game.apply(state, seat, action)
        assert_json(events)
        check_events_declared(game, events)
        history.append(("act", seat, action))
    else:
        assert not must_end, f"{decl.id}: match did not end within {max_steps} steps"
    if game.is_over(state):
        check_competition_ranking(game.round_result(state)["placings"])
        check_competition_ranking(game.result(state)["placings"])
    check_views_declared(game, state, players)
    assert replay(game, players, seed, options, history) == state
    return state, history
