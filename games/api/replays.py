"""The replay of an ended match over GraphQL (``tableReplay``); see ``games.replays``."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from config.api import viewer
from config.reads import api_read
from games import replays


@strawberry.type(description="One change at the table, in order (the log without its chat).")
class ReplayStep:
    seq: int
    kind: str
    engine: str | None = strawberry.field(description=(
        "What a rebuild calls here: `new_game`, `apply` (with `seat` and `action`), "
        "`start_next_round`, or nothing (seats, the end)."))
    seat: int | None
    action: JSON | None
    version: int
    status: str | None
    at: datetime
    events: JSON = strawberry.field(description="What everyone saw at this step.")
    hidden_events: JSON = strawberry.field(description=(
        "What only some seats saw (their hands), each with its `visible_to`; revealed because "
        "the match has ended."))


@strawberry.type(description="One seat of a replayed match.")
class ReplaySeat:
    seat: int
    player_id: strawberry.ID
    display_name: str
    is_bot: bool
    bot_level: str | None


@strawberry.type(description=(
    "An ended match, enough to rebuild every state with the engine: `newGame(seatCount, "
    "seed, options)`, then each step's `engine` call. Also at `/api/tables/<id>/replay.json`."))
class TableReplay:
    table_id: strawberry.ID
    game: str
    status: str
    seat_count: int
    seed: str = strawberry.field(description="A string: 62 bits do not fit GraphQL's Int.")
    options: JSON
    deck: list[str] = strawberry.field(description="The first deal's draw order.")
    players: list[ReplaySeat]
    steps: list[ReplayStep]
    result: JSON | None
    final_state: JSON | None
    document: JSON = strawberry.field(description="The whole replay as one JSON document "
                                                  "(the export's content).")

    @classmethod
    def of(cls, doc: dict) -> TableReplay:
        return cls(
            table_id=strawberry.ID(doc["table"]["id"]), game=doc["table"]["game"],
            status=doc["table"]["status"], seat_count=doc["seat_count"], seed=doc["seed"],
            options=doc["options"], deck=doc["deck"],
            players=[ReplaySeat(seat=p["seat"], player_id=strawberry.ID(p["player_id"]),
                                display_name=p["display_name"], is_bot=p["is_bot"],
                                bot_level=p["bot_level"]) for p in doc["players"]],
            steps=[ReplayStep(seq=s["seq"], kind=s["kind"], engine=s["engine"], seat=s["seat"],
                              action=s["action"], version=s["version"], status=s["status"],
                              at=datetime.fromisoformat(s["at"]), events=s["events"],
                              hidden_events=s["hidden_events"]) for s in doc["steps"]],
            result=doc["result"], final_state=doc["final_state"], document=doc)


@strawberry.type
class Query:
    @strawberry.field(description=(
        "The replay of an ended match (finished or aborted), every hand included. Public "
        "tables: anyone; private: their players and creator; staff always. Errors (codes): "
        "`not_found`, `not_finished` while the match runs (nothing of it is revealed), "
        "`not_started`."))
    async def table_replay(self, info: Info, table_id: strawberry.ID) -> TableReplay:
        doc = await api_read(replays.replay_for, table_id, viewer(info))
        return TableReplay.of(doc)
