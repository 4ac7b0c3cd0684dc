"""The contract every registered game keeps, run over ``games.engine.GAMES``: a game added
to the registry gets these tests without writing them (see also tests/api/test_fifth_game.py,
where a game declared in a test becomes playable through the API)."""

from __future__ import annotations

import pytest

from games import bots as bot_registry
from games.checks import game_problems
from games.engine import GAMES
from games.engine.errors import IllegalAction
from tests.engine.contract import check_validation_answers, contract_playout

GAME_IDS = sorted(GAMES)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_game_is_fully_declared_and_has_bots(game_id):
    assert game_problems({game_id: GAMES[game_id]},
                         {game_id: bot_registry.REGISTRY[game_id]}) == []


@pytest.mark.parametrize("game_id", GAME_IDS)
@pytest.mark.parametrize("seed", range(4))
def test_random_matches_follow_the_declaration_and_replay(game_id, seed):
    game = GAMES[game_id]
    players = (game.min_players, game.max_players, 4, 3)[seed] if seed < 2 else \
        min(max(game.min_players, 4 - seed % 2), game.max_players)
    contract_playout(game, players, seed)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_timed_out_seats_get_a_declared_default_action(game_id):
    game = GAMES[game_id]
    decl = game.declaration
    state = game.new_game(game.min_players, 5)
    seat = game.actors(state)[0]
    legal = game.legal_actions(state, seat)
    action = decl.default_action(legal)
    assert action in legal
    ordered = [t for t in decl.default_action_order if any(a["type"] == t for a in legal)]
    assert action["type"] == (ordered[0] if ordered else legal[0]["type"])


MALFORMED = {
    # kind of mistake: (how it is made from a legal action with fields, the one code)
    "extra field": (lambda a, f: {**a, "bogus": 1}, "unknown_field"),
    "extra null field": (lambda a, f: {**a, "bogus": None}, "unknown_field"),
    "explicit null": (lambda a, f: {**a, f.name: None}, "invalid_type"),
    "wrong type": (lambda a, f: {**a, f.name: {"a": 1}}, "invalid_type"),
    "missing field": (lambda a, f: {k: v for k, v in a.items() if k != f.name},
                      "missing_field"),
}


def _action_with_required_field(game):
    """A state, a seat and a legal action of it whose type has a required field."""
    for seed in range(50):
        state = game.new_game(game.min_players, seed)
        for _ in range(200):
            if game.is_round_over(state):
                break
            for seat in game.actors(state):
                for action in game.legal_actions(state, seat):
                    spec = game.declaration.action(action["type"])
                    required = [f for f in spec.fields if f.required]
                    if required:
                        return state, seat, action, required[0]
            seat = game.actors(state)[0]
            state, _ = game.apply(state, seat, game.legal_actions(state, seat)[0])
    raise AssertionError(f"{game.id}: no action with a required field found")


@pytest.mark.parametrize("mistake", sorted(MALFORMED))
def test_the_same_malformed_action_gets_the_same_code_in_every_game(mistake):
    make, code = MALFORMED[mistake]
    answers = {}
    for game_id in GAME_IDS:
        game = GAMES[game_id]
        state, seat, action, field = _action_with_required_field(game)
        with pytest.raises(IllegalAction) as info:
            game.apply(state, seat, make(action, field))
        answers[game_id] = info.value.code
    assert answers == {game_id: code for game_id in GAME_IDS}


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_legal_action_of_a_fresh_game_passes_validation_and_malformed_ones_fail(game_id):
    game = GAMES[game_id]
    state = game.new_game(game.min_players, 3)
    assert check_validation_answers(game, state)
