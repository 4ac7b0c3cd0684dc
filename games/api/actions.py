"""Moves as GraphQL input, and legal actions in exactly that shape, from the declarations.

``ActionInput`` is a ``@oneOf`` input with one field per action type that any registered game
declares (games/engine/declaration.py): a move is ``{"play": {"cards": ["red-7"], "call":
true}}`` or ``{"draw": true}``. An action type without fields takes ``true``; one with fields
takes an input with every field any game gives it, all nullable, so that a missing or
unexpected field is answered by the game's declaration with the same code in every game
(``missing_field``, ``unknown_field``...) rather than by GraphQL. Explicit nulls are dropped:
``{"play": {"card": "hearts-7", "suit": null}}`` is the same move as without ``suit``.

Every entry of a view's ``legalActions`` is already in this shape, so a frontend can send it
back to ``act`` as it is (adding ``call: true`` inside ``play`` where the rules allow).
"""

from __future__ import annotations

import keyword
from functools import lru_cache
from typing import Any

import strawberry
from strawberry import UNSET

from games.engine import declarations
from games.engine.declaration import Declaration
from games.errors import GameError

_KIND_TYPES: dict[str, Any] = {"int": int, "seat": int, "str": str, "card": str, "bool": bool,
                               "[card]": list[str], "[seat]": list[int], "[str]": list[str],
                               "[int]": list[int]}


@lru_cache(maxsize=4096)  # a few hundred distinct keys; every frame of every move asks
def to_camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def camel_keys(value: Any) -> Any:
    """``value`` with every object key camelCased, at every depth (event data, results and
    the JSON fields of a view are shown as the rest of the schema is)."""
    # Every frame of every move comes through here (events, the view's JSON fields): leaves
    # are taken as they are without a call each, which was most of its calls.
    kind = type(value)
    if kind is dict:
        return {to_camel(k) if type(k) is str else k:
                camel_keys(v) if type(v) in _NESTED else v for k, v in value.items()}
    if kind is list:
        return [camel_keys(v) if type(v) in _NESTED else v for v in value]
    return value


_NESTED = frozenset((dict, list))


def _attr(name: str) -> str:
    return name + "_" if keyword.iskeyword(name) else name


def action_shapes(decls: list[Declaration]) -> dict[str, dict[str, tuple[Any, list[str]]]]:
    """Action type -> field -> (Python type, ["game: description", ...]), in declaration
    order; raises ``ValueError`` when two games type one field of one action differently."""
    shapes: dict[str, dict[str, tuple[Any, list[str]]]] = {}
    for decl in decls:
        for action in decl.actions:
            fields = shapes.setdefault(action.type, {})
            for f in action.fields:
                type_ = _KIND_TYPES.get(f.kind.type)
                if type_ is None:
                    raise ValueError(f"{decl.id}: '{action.type}.{f.name}' has an API type "
                                     f"the schema cannot carry ({f.kind.type})")
                known = fields.get(f.name)
                note = f"{decl.id}: {f.doc}{'' if f.required else ' (optional)'}"
                if known is None:
                    fields[f.name] = (type_, [note])
                elif known[0] != type_:
                    raise ValueError(f"'{action.type}.{f.name}' is {known[0]} in one game and "
                                     f"{type_} in {decl.id}")
                else:
                    known[1].append(note)
    return shapes


def _input_type(action_type: str, fields: dict[str, tuple[Any, list[str]]]) -> type:
    annotations = {}
    namespace: dict[str, Any] = {}
    for name, (type_, notes) in fields.items():
        annotations[_attr(name)] = type_ | None
        namespace[_attr(name)] = strawberry.field(default=UNSET, name=to_camel(name),
                                                  description="; ".join(notes))
    namespace["__annotations__"] = annotations
    name = "".join(part.capitalize() for part in action_type.split("_")) + "Input"
    return strawberry.input(type(name, (), namespace),
                            description=f"The fields of `{to_camel(action_type)}` (which game "
                                        "takes which: docs/games/).")


def build_action_input(decls: list[Declaration]) -> type:
    shapes = action_shapes(decls)
    annotations = {}
    namespace: dict[str, Any] = {}
    for action_type, fields in shapes.items():
        games = [d.id for d in decls if action_type in d.action_types]
        type_ = _input_type(action_type, fields) if fields else bool
        annotations[_attr(action_type)] = type_ | None
        namespace[_attr(action_type)] = strawberry.field(
            default=UNSET, name=to_camel(action_type),
            description=f"In {', '.join(games)}." + ("" if fields else " Takes `true`."))
    namespace["__annotations__"] = annotations
    return strawberry.input(type("ActionInput", (), namespace), one_of=True, description=(
        "One move. Exactly one field is set; moves without fields take `true`. Each entry of "
        "`legalActions` is a valid value of this input."))


ActionInput = build_action_input(declarations())
_FLAGS = frozenset(t for t, fields in action_shapes(declarations()).items() if not fields)


def to_engine(value: Any) -> dict:
    """The engine's action dict for an ``ActionInput``; nulls are dropped, field names are
    the declarations' own."""
    for attr, field in vars(value).items():
        if field is UNSET or field is None:
            continue
        type_ = attr.rstrip("_")
        if type(field) is bool:
            if field is not True:
                raise GameError("malformed_action", f"'{to_camel(type_)}' takes true",
                                field="action")
            return {"type": type_}
        return {"type": type_, **{k.rstrip("_"): v for k, v in vars(field).items()
                                  if v is not UNSET and v is not None}}
    raise GameError("malformed_action", "give exactly one move", field="action")


# GraphQL name of each action type -> (the type, GraphQL name of each field -> the field).
_FROM_API = {to_camel(t): (t, {to_camel(f): f for f in fields})
             for t, fields in action_shapes(declarations()).items()}


def engine_action(value: dict) -> dict:
    """``to_engine`` for an ``ActionInput`` as graphql-core coerced it (a dict keyed by the
    schema's names), without building the input object first (the compiled ``act``)."""
    for name, fields in value.items():
        if fields is None:
            continue
        type_, names = _FROM_API[name]
        if type(fields) is bool:
            if fields is not True:
                raise GameError("malformed_action", f"'{name}' takes true", field="action")
            return {"type": type_}
        return {"type": type_, **{names[k]: v for k, v in fields.items() if v is not None}}
    raise GameError("malformed_action", "give exactly one move", field="action")


def to_api(action: dict) -> dict:
    """A legal action of the engine in the shape of ``ActionInput``."""
    type_ = action["type"]
    fields = {to_camel(k): v for k, v in action.items() if k != "type"}
    return {to_camel(type_): fields if fields or type_ not in _FLAGS else True}
