"""A game, declared once: what the server, the API, the turn clock and the docs read.

A ``Declaration`` names a game and lists its player counts, house rules, cards, action types
with their fields, view fields, event types (with who sees them) and the default action order
for an expired turn clock. The engine's ``Game`` subclass holds it as ``declaration``; the bot
levels are declared beside the bots (``games.bots.base.GameBots``). Nothing else lists a
game's actions, fields or events by hand.

The declaration also checks an action's *shape* before the game judges whether it is legal,
with the same codes in every game (RULES.md "Common", docs/api.md):

- ``malformed_action``: not an object, or no string ``type``;
- ``unknown_action``: the game has no action of that type;
- ``unknown_field``: a key the action type does not take (whatever its value, ``null`` too);
- ``missing_field``: a required field is absent;
- ``invalid_type``: a field of the wrong JSON type; ``null`` is never a value (leave the
  field out instead; the GraphQL API drops nulls before they get here);
- ``invalid_value``: the right type outside the declared values (not a card code of this
  game, not one of the choices, out of range, a list of the wrong length).

Checked in that order: unknown fields, missing fields, then each field's type and value.

Types of view and event fields are written in a small notation the API and the docs share:
``int``, ``str``, ``bool``, ``card`` (a card code), ``seat`` (a seat number), ``json`` (any
JSON value, described in the field's text), ``[T]`` a list of T, and a trailing ``?`` for a
value that may be ``null``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .errors import IllegalAction
from .options import Option

# The codes every engine answers with, whatever the game.
ENGINE_CODES: dict[str, str] = {
    "malformed_action": "not an object with a string `type` (over the API: not one move)",
    "unknown_action": "the game has no action of that type",
    "unknown_field": "the action takes no such field in this game",
    "missing_field": "a field the action needs is left out",
    "invalid_type": "a field's value is of the wrong type (null included)",
    "invalid_value": "a field's value is of the right type but not one the field takes",
    "not_your_turn": "the seat may not act now",
    "game_over": "the match is over",
    "round_over": "the round is over; the next one has not been dealt",
    "round_not_over": "the round is not over",
    "invalid_options": "a house rule has a value of the wrong type or out of range",
    "unknown_option": "the game has no such house rule",
    "invalid_deck": "a given deck is not exactly the game's full deck",
    "invalid_player_count": "the game is not for that many players",
}

# --- action fields ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Kind:
    """The type of an action field: how it is checked, typed in the API and documented."""

    type: str = "json"  # in the notation above, for the API and the docs
    doc: str = ""

    def example(self, cards: tuple[str, ...]) -> Any:
        return None

    def compile(self, cards: frozenset[str]) -> Callable[[Any], str | None]:
        """The check of a value, as one plain function (it runs on every action of every
        game): None when the value fits, else ``invalid_type`` or ``invalid_value``.
        ``cards`` are the game's card codes."""
        return lambda value: None


@dataclass(frozen=True)
class Flag(Kind):
    type: str = "bool"
    doc: str = "true or false"

    def example(self, cards):
        return True

    def compile(self, cards):
        return lambda v: None if v is True or v is False else "invalid_type"


@dataclass(frozen=True)
class Int(Kind):
    type: str = "int"
    minimum: int | None = None
    maximum: int | None = None

    def example(self, cards):
        return self.minimum if self.minimum is not None else 0

    def compile(self, cards):
        low = -(1 << 62) if self.minimum is None else self.minimum
        high = 1 << 62 if self.maximum is None else self.maximum

        def check(v):
            if type(v) is not int:
                return "invalid_type"
            return None if low <= v <= high else "invalid_value"
        return check

    @property
    def range_text(self) -> str:
        if self.minimum is not None and self.maximum is not None:
            return f"{self.minimum}..{self.maximum}"
        if self.minimum is not None:
            return f"at least {self.minimum}"
        if self.maximum is not None:
            return f"at most {self.maximum}"
        return "any integer"


@dataclass(frozen=True)
class Seat(Int):
    type: str = "seat"
    minimum: int | None = 0
    doc: str = "a seat number"

    def example(self, cards):
        return 1


@dataclass(frozen=True)
class Seats(Kind):
    type: str = "[seat]"
    length: int | None = None
    doc: str = "seat numbers"

    def compile(self, cards):
        length = self.length

        def check(v):
            if type(v) is not list or not all(type(x) is int for x in v):
                return "invalid_type"
            if (length is not None and len(v) != length) or any(x < 0 for x in v):
                return "invalid_value"
            return None
        return check

    def example(self, cards):
        return list(range(1, 1 + (self.length or 1)))


@dataclass(frozen=True)
class Choice(Kind):
    type: str = "str"
    choices: tuple[str, ...] = ()

    def example(self, cards):
        return self.choices[0]

    def compile(self, cards):
        choices = frozenset(self.choices)
        return lambda v: ("invalid_type" if type(v) is not str
                          else None if v in choices else "invalid_value")


@dataclass(frozen=True)
class Card(Kind):
    type: str = "card"
    doc: str = "a card code"

    def example(self, cards):
        return cards[0]

    def compile(self, cards):
        return lambda v: ("invalid_type" if type(v) is not str
                          else None if v in cards else "invalid_value")


@dataclass(frozen=True)
class Cards(Kind):
    type: str = "[card]"
    min_length: int = 1
    max_length: int | None = None
    doc: str = "card codes"

    def example(self, cards):
        return list(cards[:max(1, self.min_length)])

    def compile(self, cards):
        low = self.min_length
        high = 1 << 30 if self.max_length is None else self.max_length

        def check(v):
            if type(v) is not list:
                return "invalid_type"
            for c in v:
                if type(c) is not str:
                    return "invalid_type"
                if c not in cards:
                    return "invalid_value"
            return None if low <= len(v) <= high else "invalid_value"
        return check


@dataclass(frozen=True)
class Field:
    name: str
    kind: Kind
    doc: str = ""
    required: bool = True


@dataclass(frozen=True)
class Action:
    type: str
    doc: str
    fields: tuple[Field, ...] = ()
    example: dict | None = None  # the engine form, with "type"; built from the kinds if None


# --- the fast accept -------------------------------------------------------------------------
#
# One plain function per game, generated from its declared actions, that lets a well-formed
# action through: the same answer as the compiled checks above (tests compare them on random and
# edge-case actions), but one straight pass with each kind's test written inline, so the engines'
# hot path pays no call per field and builds nothing. A kind not listed here is tested through
# its compiled check. Whatever it does not let through goes to the full check for its code.

_MISSING = object()


def _fits_lines(kind: Kind, tag: str, ns: dict, check: Callable[[Any], str | None]) -> list[str]:
    """Lines that ``return full(a)`` unless ``v`` fits ``kind`` (names go into ``ns``)."""
    refuse = ": return full(a)"
    t = type(kind)
    if t is Kind:
        return []
    if t is Flag:
        return ["if v is not True and v is not False" + refuse]
    if t is Int or t is Seat:
        low = -(1 << 62) if kind.minimum is None else kind.minimum
        high = 1 << 62 if kind.maximum is None else kind.maximum
        return [f"if type(v) is not int or not {low!r} <= v <= {high!r}" + refuse]
    if t is Choice:
        ns[f"choices{tag}"] = frozenset(kind.choices)
        return [f"if type(v) is not str or v not in choices{tag}" + refuse]
    if t is Card:
        return ["if type(v) is not str or v not in CARDS" + refuse]
    if t is Cards:
        high = 1 << 30 if kind.max_length is None else kind.max_length
        return [f"if type(v) is not list or not {kind.min_length!r} <= len(v) <= {high!r}"
                + refuse,
                "for c in v:",
                "    if type(c) is not str or c not in CARDS" + refuse]
    if t is Seats:
        lines = ["if type(v) is not list" + refuse]
        if kind.length is not None:
            lines.append(f"if len(v) != {kind.length!r}" + refuse)
        return lines + ["for x in v:",
                        "    if type(x) is not int or x < 0" + refuse]
    ns[f"check{tag}"] = check
    return [f"if check{tag}(v) is not None" + refuse]


def _compile_validate(actions: tuple[Action, ...], cards: frozenset[str],
                      checks: dict[str, dict[str, Callable[[Any], str | None]]],
                      full: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """One function for all of a game's action types: returns at once for a well-formed
    action, else returns ``full(action)`` (the full check, which raises with the code).
    Unknown keys are caught by counting: the action may hold nothing but ``type`` and the
    declared fields it was found to hold."""
    ns: dict[str, Any] = {"M": _MISSING, "CARDS": cards, "full": full}
    lines = ["def validate(a):",
             "    if type(a) is not dict: return full(a)",
             "    t = a.get('type')",
             "    if type(t) is not str: return full(a)"]
    for i, action in enumerate(actions):
        # k: the keys the action may hold, counted up as optional fields turn up.
        required = 1 + sum(f.required for f in action.fields)
        lines += [f"    {'if' if i == 0 else 'elif'} t == {action.type!r}:",
                  f"        k = {required}"]
        for n, f in enumerate(action.fields):
            lines.append(f"        v = a.get({f.name!r}, M)")
            body = _fits_lines(f.kind, f"{i}_{n}", ns, checks[action.type][f.name])
            if f.required:
                lines.append("        if v is M: return full(a)")
                lines.extend("        " + line for line in body)
            else:
                lines.append("        if v is not M:")
                lines.extend("            " + line for line in [*body, "k += 1"])
        lines.append(f"        if len(a) == {required}: return" if required == len(action.fields) + 1
                     else "        if len(a) == k: return")
    lines.append("    return full(a)")
    exec("\n".join(lines), ns)  # noqa: S102 - source built above from the declaration only
    return ns["validate"]


# --- view and events --------------------------------------------------------------------------

TYPE_PATTERN = re.compile(r"^(\[)*(int|str|bool|card|seat|json)(\])*\??$")


@dataclass(frozen=True)
class ViewField:
    name: str
    type: str
    doc: str
    private: bool = False  # the viewer's own (differs by seat, null for spectators)


# Every view holds these (RULES.md "Common"); a game declares them like any other field.
COMMON_VIEW = ("hand", "hand_counts", "actors", "top")


@dataclass(frozen=True)
class EventField:
    name: str
    type: str
    doc: str = ""
    required: bool = True


ALL = "all"      # everyone at the table, spectators included
OWNER = "seat"   # only the seat named in the event's `seat`


@dataclass(frozen=True)
class Event:
    type: str
    doc: str
    fields: tuple[EventField, ...] = ()
    # ALL, OWNER, a tuple of field names whose seats see it, or a sentence saying who.
    visible_to: str | tuple[str, ...] = ALL

    def audience_text(self) -> str:
        if self.visible_to == ALL:
            return "everyone"
        if self.visible_to == OWNER:
            return "only `seat`"
        if isinstance(self.visible_to, tuple):
            return "only " + " and ".join(f"`{name}`" for name in self.visible_to)
        return self.visible_to

    def audience_of(self, event: dict) -> list[int] | None:
        """The seats that must see ``event`` by this declaration (None: not stated as data)."""
        if self.visible_to == OWNER:
            return [event["seat"]]
        if isinstance(self.visible_to, tuple):
            return [event[name] for name in self.visible_to]
        return None


@dataclass(frozen=True)
class CardGroup:
    doc: str
    codes: tuple[str, ...]


# --- the declaration --------------------------------------------------------------------------


@dataclass(frozen=True)
class Declaration:
    id: str
    name: str
    names: dict[str, str]  # by language: {"en": ..., "de": ...}
    summary: str
    min_players: int
    max_players: int
    options: tuple[Option, ...]
    cards: tuple[CardGroup, ...]
    actions: tuple[Action, ...]
    view: tuple[ViewField, ...]
    events: tuple[Event, ...]
    # The codes this game's own rules refuse a well-formed action with, and what they mean
    # (beside ENGINE_CODES, the same for every game).
    codes: dict[str, str]
    # Action types a seat whose clock ran out plays, the first legal one; else its first legal.
    default_action_order: tuple[str, ...]
    results: str = ""  # what `placings` and `scores` mean in this game, ties included
    _compiled: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        codes = frozenset(c for group in self.cards for c in group.codes)
        for action in self.actions:
            allowed = frozenset(["type", *(f.name for f in action.fields)])
            required = frozenset(f.name for f in action.fields if f.required)
            checks = {f.name: f.kind.compile(codes) for f in action.fields}
            self._compiled[action.type] = (allowed, required, checks)
        # Every action of every game passes validate_action: the instance holds the generated
        # function itself, so a call is one plain call (no method lookup, no second call per
        # type). The method below says what it does and is what a declaration without it runs.
        object.__setattr__(self, "validate_action", _compile_validate(
            self.actions, codes, {t: c[2] for t, c in self._compiled.items()},
            self._check_action))

    # --- reading -------------------------------------------------------------------------
    @property
    def action_types(self) -> frozenset[str]:
        return frozenset(a.type for a in self.actions)

    def action(self, type_: str) -> Action:
        return next(a for a in self.actions if a.type == type_)

    def event(self, type_: str) -> Event | None:
        return next((e for e in self.events if e.type == type_), None)

    @property
    def card_codes(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c for group in self.cards for c in group.codes))

    def example(self, action: Action) -> dict:
        if action.example is not None:
            return dict(action.example)
        codes = self.card_codes
        return {"type": action.type, **{f.name: f.kind.example(codes)
                                        for f in action.fields if f.required}}

    # --- validating ----------------------------------------------------------------------
    def validate_action(self, action: Any) -> None:
        """Raise ``IllegalAction`` unless ``action`` is well formed (see the module text).
        A well-formed action is accepted by the generated function (``_compile_validate``: each
        kind's test inline, no error objects); anything else goes to the full check."""
        self._check_action(action)

    def _check_action(self, action: Any) -> None:
        if type(action) is not dict:
            raise IllegalAction("malformed_action", "an action must be an object with a type")
        type_ = action.get("type")
        if type(type_) is not str:
            raise IllegalAction("malformed_action", "an action must be an object with a type")
        compiled = self._compiled.get(type_)
        if compiled is None:
            raise IllegalAction("unknown_action", f"unknown action type '{type_}'",
                                field="type")
        allowed, required, checks = compiled
        if len(action) == 1:  # the type alone: draw, pass, accept...
            if required:
                name = min(required)
                raise IllegalAction("missing_field", f"'{type_}' needs '{name}'", field=name)
            return
        # One C-level test each for the usual well-formed case; the loops only name culprits.
        if not allowed.issuperset(action):
            key = next(k for k in action if k not in allowed)
            raise IllegalAction("unknown_field", f"'{type_}' takes no field '{key}'",
                                field=key)
        if required and not required.issubset(action):
            name = min(required - action.keys())
            raise IllegalAction("missing_field", f"'{type_}' needs '{name}'", field=name)
        for name, value in action.items():
            if name != "type" and checks[name](value) is not None:
                self._refuse(type_, name, value)

    def _refuse(self, type_: str, name: str, value: Any) -> None:
        spec = next(f for f in self.action(type_).fields if f.name == name)
        kind = spec.kind
        if value is None:
            raise IllegalAction("invalid_type", f"'{name}' may not be null: leave it out",
                                field=name)
        expected = kind.doc or kind.type
        if isinstance(kind, Int):
            expected = f"{expected or 'an integer'} ({kind.range_text})"
        elif isinstance(kind, Choice):
            expected = "one of " + ", ".join(kind.choices)
        elif isinstance(kind, Cards):
            count = (f"at least {kind.min_length}" if kind.max_length is None
                     else str(kind.min_length) if kind.max_length == kind.min_length
                     else f"{kind.min_length} to {kind.max_length}")
            expected = f"a list of {count} card codes of this game"
        elif isinstance(kind, Card):
            expected = "a card code of this game"
        elif isinstance(kind, Seats):
            count = "" if kind.length is None else f"{kind.length} "
            expected = f"a list of {count}seat numbers"
        code = self._compiled[type_][2][name](value)
        raise IllegalAction(code, f"'{name}' must be {expected}", field=name)

    def default_action(self, legal: list[dict]) -> dict:
        """The move a seat whose turn clock ran out gets: the first legal action of a type in
        ``default_action_order``, else the first legal action."""
        by_type: dict[str, dict] = {}
        for action in legal:
            by_type.setdefault(action["type"], action)
        for type_ in self.default_action_order:
            if type_ in by_type:
                return by_type[type_]
        return legal[0]

    # --- completeness --------------------------------------------------------------------
    def problems(self) -> list[str]:
        """What is missing or inconsistent; empty for a fully declared game."""
        out = []
        where = f"game '{self.id}'"
        if not re.fullmatch(r"[a-z][a-z0-9_]*", self.id or ""):
            out.append(f"{where}: the id must be lower-case letters, digits and _")
        if not self.name or not self.names or "en" not in self.names or not self.summary:
            out.append(f"{where}: needs a name, names by language (at least 'en') and a summary")
        if not 1 <= self.min_players <= self.max_players:
            out.append(f"{where}: player counts must satisfy 1 <= min_players <= max_players")
        if not self.cards or not all(group.codes and group.doc for group in self.cards):
            out.append(f"{where}: declares no cards (groups of codes with a description)")
        if not self.actions:
            out.append(f"{where}: declares no action types")
        seen: set[str] = set()
        for action in self.actions:
            if action.type in seen:
                out.append(f"{where}: action '{action.type}' is declared twice")
            seen.add(action.type)
            if not action.doc:
                out.append(f"{where}: action '{action.type}' has no description")
            for f in action.fields:
                if f.name == "type" or not isinstance(f.kind, Kind):
                    out.append(f"{where}: action '{action.type}' field '{f.name}' is invalid")
        if not self.view:
            out.append(f"{where}: declares no view fields")
        names = [v.name for v in self.view]
        for name in COMMON_VIEW:
            if name not in names:
                out.append(f"{where}: the view must declare '{name}' (RULES.md)")
        for v in self.view:
            if not TYPE_PATTERN.match(v.type) or not v.doc:
                out.append(f"{where}: view field '{v.name}' needs a type and a description")
        if not self.events:
            out.append(f"{where}: declares no event types")
        for e in self.events:
            if not e.doc:
                out.append(f"{where}: event '{e.type}' has no description")
            for f in e.fields:
                if not TYPE_PATTERN.match(f.type):
                    out.append(f"{where}: event '{e.type}' field '{f.name}' has a bad type")
            if isinstance(e.visible_to, tuple):
                missing = set(e.visible_to) - {f.name for f in e.fields}
                if missing:
                    out.append(f"{where}: event '{e.type}' is shown to undeclared fields "
                               f"{sorted(missing)}")
            elif not e.visible_to:
                out.append(f"{where}: event '{e.type}' does not say who sees it")
        common = set(self.codes) & set(ENGINE_CODES)
        if common:
            out.append(f"{where}: declares engine-wide codes as its own: {sorted(common)}")
        for code, meaning in self.codes.items():
            if not re.fullmatch(r"[a-z][a-z0-9_]*", code) or not meaning:
                out.append(f"{where}: code '{code}' needs a lower-case name and a meaning")
        if not self.default_action_order:
            out.append(f"{where}: declares no default action order for an expired turn clock")
        unknown = set(self.default_action_order) - seen
        if unknown:
            out.append(f"{where}: the default action order names undeclared actions "
                       f"{sorted(unknown)}")
        return out

