"""The compiled path's own coercion of variables (games/api/live.py ``fast_arguments``) gives
exactly what graphql-core gives, or steps aside so that graphql-core judges; and the compiled
``act`` turns a coerced ``ActionInput`` into the same engine action as the schema's path."""

import pytest
from graphql.execution.values import get_argument_values, get_variable_values
from hypothesis import given
from hypothesis import strategies as st
from strawberry.types.arguments import convert_argument

from config.schema import schema
from games.api import live
from games.api.actions import ActionInput, engine_action, to_api, to_engine
from games.engine import GAMES
from games.errors import GameError

from .test_live_path import ACT, DOCUMENTS


def graphql_core(plan, variables):
    values = get_variable_values(schema._schema, plan.operation.variable_definitions or (),
                                 variables)
    if isinstance(values, list):
        return "invalid"
    try:
        return get_argument_values(plan.field_def, plan.field_node, values)
    except Exception:
        return "invalid"


def fast(plan, variables):
    try:
        return live.fast_arguments(plan.variables, variables)
    except live._Slow:
        return "slow"


PLANS = [live.plan_for(ACT, None), *(live.plan_for(doc, None) for doc in DOCUMENTS)]

scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-2**40, max_value=2**40),
                    st.text(max_size=4), st.floats(allow_nan=False, allow_infinity=False))
action_names = st.sampled_from(["play", "draw", "pass", "chooseColor", "burn", "bogus"])
field_names = st.sampled_from(["card", "cards", "color", "count", "index", "bogus"])
actions = st.one_of(
    scalars,
    st.dictionaries(action_names, st.one_of(
        scalars, st.dictionaries(field_names, st.one_of(scalars, st.lists(scalars, max_size=3)),
                                 max_size=3)), max_size=2))
variables = st.fixed_dictionaries(
    {}, optional={"id": scalars, "a": actions, "v": scalars, "k": scalars, "after": scalars,
                  "extra": scalars})


def test_every_hot_document_is_coerced_on_the_fast_path():
    assert all(plan is not None and plan.variables is not None for plan in PLANS)


@given(variables)
def test_the_fast_coercion_agrees_with_graphql_core_or_steps_aside(sample):
    for plan in PLANS:
        mine = fast(plan, sample)
        if mine != "slow":
            assert mine == graphql_core(plan, sample), (plan.root, sample)


def test_plain_moves_take_the_fast_path():
    plan = PLANS[0]
    sample = {"id": "t_x", "a": {"play": {"card": "R5", "color": None}}, "v": 3}
    assert fast(plan, sample) == graphql_core(plan, sample) == {
        "tableId": "t_x", "action": {"play": {"card": "R5", "color": None}},
        "expectedVersion": 3, "idempotencyKey": None}
    assert fast(plan, {"id": 7, "a": {"draw": True}, "v": 0, "k": "key"})["tableId"] == "7"
    # what graphql-core refuses is left to it, so the errors stay the schema's own
    for bad in ({"id": "t", "a": {"play": {"card": 5}}, "v": 1},
                {"id": "t", "a": {"draw": True, "pass": True}, "v": 1},
                {"id": "t", "a": {"draw": True}, "v": 2**31},
                {"id": "t", "a": {"draw": True}}):
        assert fast(plan, bad) == "slow" and graphql_core(plan, bad) == "invalid", bad


@pytest.mark.parametrize("game", sorted(GAMES))
def test_engine_action_matches_the_schemas_conversion(game):
    engine = GAMES[game]
    state = engine.new_game(engine.min_players, "seed", {})
    seen = 0
    for _ in range(200):
        if engine.is_round_over(state):
            break
        seat = engine.actors(state)[0]
        for action in engine.legal_actions(state, seat):
            plan = PLANS[0]
            args = live.fast_arguments(plan.variables, {"id": "t", "a": to_api(action), "v": 1})
            converted = convert_argument(args["action"], ActionInput,
                                         schema.schema_converter.scalar_registry, schema.config)
            assert engine_action(args["action"]) == to_engine(converted) == action
            seen += 1
        state, _ = engine.apply(state, seat, engine.legal_actions(state, seat)[0])
    assert seen > 10


def test_engine_action_refuses_what_to_engine_refuses():
    with pytest.raises(GameError) as refused:
        engine_action({"draw": False})
    assert refused.value.code == "malformed_action"
