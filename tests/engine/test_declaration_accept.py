"""The fast accept of action shapes (declaration.py) says yes exactly when the full check does:
random actions near every declared action type of every game, well formed or not, and a kind
the fast accept does not know (tested through its own compiled check)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import GAMES
from games.engine import declaration as d
from games.engine.errors import IllegalAction


class Str(str):
    """A string that is not exactly ``str``: the full check calls it the wrong type."""


def _fast_accepts(decl):
    """The generated validator of ``decl`` with a full check that only says it was asked:
    True when the fast accept let the action through on its own."""
    checks = {t: c[2] for t, c in decl._compiled.items()}
    fast = d._compile_validate(decl.actions, frozenset(decl.card_codes), checks,
                               lambda action: "asked")
    return lambda action: fast(action) is None


def _full_check(decl, action) -> tuple[str, str | None] | None:
    try:
        decl._check_action(action)
    except IllegalAction as exc:
        return exc.code, exc.field
    return None


def _answer(decl, action) -> tuple[str, str | None] | None:
    try:
        decl.validate_action(action)
    except IllegalAction as exc:
        return exc.code, exc.field
    return None


def _scalars(decl):
    codes = decl.card_codes
    words = sorted({c for a in decl.actions for f in a.fields
                    if isinstance(f.kind, d.Choice) for c in f.kind.choices}) or ["x"]
    return st.one_of(
        st.sampled_from(codes), st.sampled_from(words), st.integers(-3, 12),
        st.sampled_from([True, False, None, 1.0, "", "no-such-card", 1 << 62, -(1 << 62) - 1,
                         Str(codes[0]), Str(words[0]), {"not": "a value"}]))


def _values(decl):
    codes = decl.card_codes
    scalar = _scalars(decl)
    return st.one_of(scalar, st.lists(scalar, max_size=5),
                     st.lists(st.sampled_from(codes), max_size=12),
                     st.lists(st.integers(-1, 9), max_size=4))


def _actions(decl):
    names = sorted({f.name for a in decl.actions for f in a.fields}) + ["no_such_field"]
    types = st.one_of(st.sampled_from(sorted(decl.action_types)),
                      st.sampled_from(["no_such_action", 7, None, Str("play")]))

    @st.composite
    def action(draw):
        if draw(st.integers(0, 4)) == 0:  # anything at all near the declared names
            out = {"type": draw(types)}
            for name in draw(st.lists(st.sampled_from(names), max_size=3)):
                out[name] = draw(_values(decl))
            return out
        # Mostly: a declared example, its optional fields too at times, with some of its
        # own fields given other values, and now and then a field added or left out.
        spec = decl.action(draw(st.sampled_from(sorted(decl.action_types))))
        out = decl.example(spec)
        for f in spec.fields:
            if not f.required and draw(st.booleans()):
                out[f.name] = f.kind.example(decl.card_codes)
        own = list(spec.fields)
        for f in draw(st.lists(st.sampled_from(own), max_size=2)) if own else ():
            example = f.kind.example(decl.card_codes)
            if type(example) is list and example and draw(st.booleans()):
                # A list of the right length with one item of another value or type.
                example[draw(st.integers(0, len(example) - 1))] = draw(_scalars(decl))
                out[f.name] = example
            else:
                out[f.name] = draw(_values(decl))
        if draw(st.integers(0, 5)) == 0:
            out[draw(st.sampled_from(names))] = draw(_values(decl))
        if draw(st.integers(0, 5)) == 0:
            del out[draw(st.sampled_from(sorted(out)))]
        return out
    return action()


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_fast_accept_agrees_with_the_full_check(game_id):
    decl = GAMES[game_id].declaration
    fast = _fast_accepts(decl)

    @settings(max_examples=400, deadline=None, database=None)
    @given(_actions(decl))
    def agree(action):
        full = _full_check(decl, action)
        assert fast(action) is (full is None), (action, full)
        assert _answer(decl, action) == full, action
    agree()


def _edges(decl) -> list:
    codes = list(decl.card_codes)
    words = sorted({c for a in decl.actions for f in a.fields
                    if isinstance(f.kind, d.Choice) for c in f.kind.choices})
    return [None, True, False, 0, 1, 2, 5, 12, -1, 1 << 62, (1 << 62) + 1, -(1 << 62) - 1,
            1.0, "", "no-such-card", Str(codes[0]), {}, *codes[:3], codes[-1], *words,
            *(Str(w) for w in words[:1])]


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_fast_accept_agrees_on_every_edge_value_of_every_field(game_id):
    """Each field of each action type set to each edge value, and each item of a list field
    too (lists of every length up to one past the longest a field takes)."""
    decl = GAMES[game_id].declaration
    fast = _fast_accepts(decl)
    edges = _edges(decl)
    for spec in decl.actions:
        base = decl.example(spec)
        for f in spec.fields:
            example = f.kind.example(decl.card_codes)
            values = list(edges)
            if type(example) is list:
                values += [[*example[:i], e, *example[i + 1:]]
                           for i in range(len(example)) for e in edges]
                values += [list(decl.card_codes[:n]) for n in range(len(decl.card_codes) + 2)]
                values += [list(range(n)) for n in range(5)] + [[-1, 1], [1, -1], [True, 1]]
            for value in values:
                action = {**base, f.name: value}
                full = _full_check(decl, action)
                assert fast(action) is (full is None), (action, full)
                assert _answer(decl, action) == full, action


def test_every_declared_example_takes_the_fast_accept_and_its_type_must_be_a_str():
    for game in GAMES.values():
        fast = _fast_accepts(game.declaration)
        for spec in game.declaration.actions:
            example = game.declaration.example(spec)
            assert fast(example), (game.id, spec.type)
            assert _answer(game.declaration, {**example, "type": Str(spec.type)}) == \
                ("malformed_action", None)


@dataclass(frozen=True)
class Even(d.Kind):
    type: str = "int"

    def compile(self, cards):
        return lambda v: ("invalid_type" if type(v) is not int
                          else None if v % 2 == 0 else "invalid_value")


def test_a_kind_of_its_own_is_judged_by_its_compiled_check():
    base = GAMES["kato"].declaration
    decl = replace(base, actions=(d.Action("step", "Step.", (d.Field("by", Even(), "even"),)),
                                  d.Action("wave", "Wave.", (d.Field("hand", d.Kind(), "any"),))))
    assert _answer(decl, {"type": "step", "by": 2}) is None
    assert _answer(decl, {"type": "step", "by": 3}) == ("invalid_value", "by")
    assert _answer(decl, {"type": "step", "by": "2"}) == ("invalid_type", "by")
    assert _answer(decl, {"type": "wave", "hand": None}) is None
    assert _answer(decl, {"type": "wave"}) == ("missing_field", "hand")
    # An unknown key in place of the missing field keeps the count right: still refused.
    assert _answer(decl, {"type": "wave", "hnd": 1}) == ("unknown_field", "hnd")
    assert _answer(decl, {"type": "step", "bye": 2}) == ("unknown_field", "bye")
