"""GraphQL types of tables, seats, events and each game's view.

Each game's view is its own type (``KatoView``...) behind the ``GameView`` union, built from
the view fields its declaration lists (games/engine/declaration.py), typed, plus ``raw`` with
the whole view as JSON. The union's members are read from the engine registry when a schema
is built, so a registered game gets its view type without an edit here.
"""

from __future__ import annotations

import re
from datetime import datetime
from enum import Enum
from typing import Any

import strawberry
from strawberry.annotation import StrawberryAnnotation
from strawberry.scalars import JSON
from strawberry.types.union import StrawberryUnion

from accounts.api.types import PlayerType
from games import bots as bot_registry
from games.engine import GAMES
from games.engine.declaration import Declaration

from .actions import camel_keys, to_api

# Fields every view type has from the API itself (or typed the same in every game).
_API_FIELDS: dict[str, Any] = {
    "game": str, "seat": int | None, "version": int, "deadline": datetime | None,
    "legal_actions": list[JSON], "hand": list[str] | None, "hand_counts": list[int],
    "actors": list[int],
}
_SCALARS: dict[str, Any] = {"int": int, "seat": int, "str": str, "card": str, "bool": bool,
                            "json": JSON}


def python_type(notation: str) -> Any:
    """The Python (strawberry) type of a declared field type: ``[card]?`` -> list[str] | None."""
    optional = notation.endswith("?")
    core = notation.rstrip("?")
    depth = len(re.match(r"^\[*", core).group(0))
    type_: Any = _SCALARS[core.strip("[]")]
    for _ in range(depth):
        type_ = list[type_]
    return type_ | None if optional else type_


def view_type_name(game_id: str) -> str:
    return "".join(part.capitalize() for part in game_id.split("_")) + "View"


# Per game: its declaration, its view type and its own fields (name, whether it is JSON).
_VIEW_TYPES: dict[str, tuple[Declaration, type, tuple[tuple[str, bool], ...]]] = {}


def view_type(game_id: str) -> type:
    """The strawberry type of a game's view, made once per declaration."""
    return _view_entry(game_id)[1]


def _view_entry(game_id: str) -> tuple[Declaration, type, tuple[tuple[str, bool], ...]]:
    decl = GAMES[game_id].declaration
    known = _VIEW_TYPES.get(game_id)
    if known is not None and known[0] is decl:
        return known
    annotations: dict[str, Any] = dict(_API_FIELDS)
    for field in decl.view:
        if field.name not in _API_FIELDS:
            annotations[field.name] = python_type(field.type)
    annotations["raw"] = JSON
    namespace = {"__annotations__": annotations,
                 "__doc__": f"What one seat (or a spectator) sees of a {decl.name} match "
                            f"(docs/games/{game_id}.md). `legalActions` entries can be sent to "
                            "`act` as they are."}
    made = strawberry.type(type(view_type_name(game_id), (), namespace))
    fields = tuple((f.name, "json" in f.type) for f in decl.view if f.name not in _API_FIELDS)
    known = _VIEW_TYPES[game_id] = (decl, made, fields)
    return known


class _RegisteredViews(StrawberryUnion):
    """The ``GameView`` union: one member per registered game, read when a schema is built."""

    @property
    def type_annotations(self) -> tuple[StrawberryAnnotation, ...]:
        return tuple(StrawberryAnnotation(view_type(game_id)) for game_id in GAMES)

    @type_annotations.setter
    def type_annotations(self, value) -> None:
        pass


GameView = _RegisteredViews(name="GameView", description="One game's view of a match.")


def _deadline(payload: dict):
    deadline = payload.get("deadline")
    return datetime.fromisoformat(deadline) if isinstance(deadline, str) else deadline


def _data_reader(name: str, is_json: bool):
    if is_json:
        return lambda payload: camel_keys(payload["data"].get(name))
    return lambda payload: payload["data"].get(name)


_API_READERS: dict[str, Any] = {
    "game": lambda payload: payload["game"],
    "seat": lambda payload: payload["seat"],
    "version": lambda payload: payload["version"],
    "deadline": _deadline,
    "legal_actions": lambda payload: [to_api(a) for a in payload["legal_actions"]],
    "hand": lambda payload: payload["data"].get("hand"),
    "hand_counts": lambda payload: payload["data"].get("hand_counts", []),
    "actors": lambda payload: payload["data"].get("actors", []),
    "raw": lambda payload: payload["data"],
}
_READERS: dict[type, dict[str, Any]] = {}


def view_readers(game_id: str) -> tuple[type, dict[str, Any]]:
    """A game's view type and, per field (its Python name), how it is read from a view
    payload (``selectors.view_for``): the one definition behind the typed view
    (``game_view``) and the live path's lazy one (games/api/live.py)."""
    _, made, fields = _view_entry(game_id)
    readers = _READERS.get(made)
    if readers is None:
        readers = _READERS[made] = {
            **_API_READERS, **{name: _data_reader(name, is_json) for name, is_json in fields}}
    return made, readers


def game_view(payload: dict | None):
    """The typed view of a service's ``view_for`` payload."""
    if payload is None or payload["game"] not in GAMES:
        return None
    made, readers = view_readers(payload["game"])
    return made(**{name: read(payload) for name, read in readers.items()})


@strawberry.enum
class TableStatusEnum(Enum):
    OPEN = "open"
    PLAYING = "playing"
    FINISHED = "finished"
    ABORTED = "aborted"


@strawberry.enum
class VisibilityEnum(Enum):
    PUBLIC = "public"
    PRIVATE = "private"


@strawberry.type(description=(
    "One thing that happened; `data` holds its fields, camelCased like the schema (each "
    "game's events and who sees them: docs/games/<game>.md)."))
class GameEvent:
    type: str
    data: JSON


def event_data(event: dict) -> dict:
    """``GameEvent.data`` of a logged event: its fields but ``type``, camelCased."""
    return camel_keys({k: v for k, v in event.items() if k != "type"})


@strawberry.type(description=(
    "One numbered change at a table, as this viewer may see it. Every viewer receives every "
    "`seq`, so a gap means something was missed: resubscribe with `afterSeq`."))
class TableUpdate:
    table_id: strawberry.ID
    seq: int
    kind: str
    version: int
    status: TableStatusEnum = strawberry.field(description=(
        "The table's status as of this seq (right after this change), in replays too."))
    events: list[GameEvent]
    view: GameView | None = strawberry.field(
        description="The viewer's view after this change (null in a replay but the last).")

    @classmethod
    def of(cls, table_id: str, seq: int, kind: str, version: int, status: str,
           events: list[dict], view_payload: dict | None) -> TableUpdate:
        """``table_id``: the table's public id."""
        return cls(table_id=strawberry.ID(table_id), seq=seq, kind=kind, version=version,
                   status=TableStatusEnum(status),
                   events=[GameEvent(type=e["type"], data=event_data(e)) for e in events],
                   view=game_view(view_payload))


@strawberry.type
class SeatType:
    position: int
    player: PlayerType
    is_bot: bool
    bot_level: str | None
    taken_over_by_bot: bool


@strawberry.type
class OptionSpec:
    name: str
    type: str = strawberry.field(description="int, bool or choice")
    default: JSON | None
    description: str
    minimum: int | None = None
    maximum: int | None = None
    nullable: bool = False
    choices: list[str] | None = None


@strawberry.type(description="A bot level a table can ask for (addBot(level: id)).")
class BotLevel:
    id: str
    description: str


@strawberry.type
class GameInfo:
    id: str
    name: str
    min_players: int
    max_players: int
    options: list[OptionSpec]
    bot_levels: list[str]
    bot_level_info: list[BotLevel] = strawberry.field(
        description="The bot levels with a short description, weakest first.")

    @classmethod
    def of(cls, game_id: str) -> GameInfo:
        engine = GAMES[game_id]
        levels = bot_registry.levels(game_id)
        return cls(id=engine.id, name=engine.name, min_players=engine.min_players,
                   max_players=engine.max_players,
                   options=[OptionSpec(**spec) for spec in engine.describe_options()],
                   bot_levels=sorted(levels),
                   bot_level_info=[BotLevel(id=level, description=bot.description)
                                   for level, bot in levels.items()])


@strawberry.type(name="PlayerStats", description=(
    "A person's record in one game: rounds and matches played to their end at tables where "
    "they held a seat (bots have none), and how many of them they won (placed first, ties "
    "included)."))
class PlayerStatsType:
    game: str
    rounds_played: int
    rounds_won: int
    matches_played: int
    matches_won: int

    @classmethod
    def of(cls, stats) -> PlayerStatsType:
        return cls(game=stats.game, rounds_played=stats.rounds_played,
                   rounds_won=stats.rounds_won, matches_played=stats.matches_played,
                   matches_won=stats.matches_won)


@strawberry.type
class RoundResultType:
    round_number: int
    placings: list[int]
    scores: list[int]
