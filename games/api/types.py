"""GraphQL types of tables, seats, events and each game's view.

Each game's view is its own type (``KatoView``...) behind the ``GameView`` union, built from
the field list in ``VIEW_FIELDS``: the keys RULES.md promises, typed, plus ``raw`` with the
whole view as JSON for anything a frontend wants beyond them.
"""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Annotated, Any, Union

import strawberry
from strawberry.scalars import JSON

from accounts.api.types import PlayerType
from games.engine import GAMES

from .actions import to_api

# Per game: view key -> Python type of its GraphQL field (snake_case; the schema camelCases).
VIEW_FIELDS: dict[str, dict[str, Any]] = {
    "kato": {
        "top": str | None, "color": str | None, "direction": int, "phase": str,
        "turn": int | None, "pending_draw": int, "pending_kind": str | None,
        "challengeable": bool, "challenge_color": str | None, "drawn": str | None,
        "kato_window": int | None, "shown_hand": JSON | None, "draw_count": int,
        "discard_count": int, "players": int, "dealer": int, "round": int,
        "scores": list[int], "last_result": JSON | None, "over": bool,
    },
    "krass_kariert": {
        "top": JSON | None, "chips": list[int], "reserves": list[list[str]], "phase": str,
        "players": int, "deal": int, "leader": int | None, "trick": JSON,
        "to_act": list[int], "last_trick": JSON, "drawn": list[str] | None,
        "drawer": int | None, "drawn_waiting": int, "draws_left": int,
        "draw_pile_count": int, "discard_pile_count": int, "hand_size": int,
        "last_loser": int | None, "round_result": JSON | None, "result": JSON | None,
    },
    "karma": {
        "top": str | None, "pile": list[str], "table_up": list[list[str]],
        "table_down_counts": list[int], "table_down_positions": JSON,
        "own_table_down": list[str] | None, "chosen": list[bool],
        "face_up_choice": list[str] | None, "draw_count": int, "phase": str,
        "players": int, "turn": int | None, "pending": str | None, "out_count": int,
        "finished": JSON, "loser": int | None, "cards_left": list[int],
        "result": JSON | None,
    },
    "aetsch": {
        "top": str | None, "suit": str | None, "direction": int, "phase": str,
        "players": int, "turn": int | None, "pending_two": int, "two_target": int | None,
        "to_give_count": int, "give_to": JSON | None, "drawn_card": str | None,
        "last_roll": JSON | None, "peeked": JSON | None, "draw_count": int,
        "discard_count": int, "dealer": int, "round": int, "rounds": int,
        "round_results": JSON, "placing_sums": list[int], "winner": int | None,
    },
}
VIEW_NAMES = {"kato": "KatoView", "krass_kariert": "KrassKariertView", "karma": "KarmaView",
              "aetsch": "AetschView"}


def _build_view_type(game_id: str):
    annotations: dict[str, Any] = {
        "game": str,
        "seat": int | None,
        "version": int,
        "deadline": datetime | None,
        "legal_actions": list[JSON],
        "hand": list[str] | None,
        "hand_counts": list[int],
        "actors": list[int],
    }
    annotations.update(VIEW_FIELDS[game_id])
    annotations["raw"] = JSON
    namespace = {"__annotations__": annotations,
                 "__doc__": f"What one seat (or a spectator) sees of a {game_id} match. "
                            "`legalActions` entries can be sent to `act` as they are."}
    return strawberry.type(type(VIEW_NAMES[game_id], (), namespace))


VIEW_TYPES = {game_id: _build_view_type(game_id) for game_id in VIEW_FIELDS}
GameView = Annotated[Union[tuple(VIEW_TYPES.values())],  # noqa: UP007
                     strawberry.union("GameView")]


def game_view(payload: dict | None):
    """The typed view of a service's ``view_for`` payload."""
    if payload is None or payload["game"] not in VIEW_TYPES:
        return None
    data = payload["data"]
    fields = VIEW_FIELDS[payload["game"]]
    deadline = payload.get("deadline")
    return VIEW_TYPES[payload["game"]](
        game=payload["game"], seat=payload["seat"], version=payload["version"],
        deadline=datetime.fromisoformat(deadline) if isinstance(deadline, str) else deadline,
        legal_actions=[to_api(a) for a in payload["legal_actions"]],
        hand=data.get("hand"), hand_counts=data.get("hand_counts", []),
        actors=data.get("actors", []),
        **{key: data.get(key) for key in fields}, raw=data)


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


@strawberry.type(description="One thing that happened; `data` holds its fields (RULES.md names).")
class GameEvent:
    type: str
    data: JSON


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
                   events=[GameEvent(type=e["type"], data={k: v for k, v in e.items()
                                                            if k != "type"}) for e in events],
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
    def of(cls, game_id: str, bot_levels: list[str],
           descriptions: dict[str, str] | None = None) -> GameInfo:
        engine = GAMES[game_id]
        return cls(id=engine.id, name=engine.name, min_players=engine.min_players,
                   max_players=engine.max_players,
                   options=[OptionSpec(**spec) for spec in engine.describe_options()],
                   bot_levels=bot_levels,
                   bot_level_info=[BotLevel(id=level, description=text)
                                   for level, text in (descriptions or {}).items()])


@strawberry.type
class RoundResultType:
    round_number: int
    placings: list[int]
    scores: list[int]
