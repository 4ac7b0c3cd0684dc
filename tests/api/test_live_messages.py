"""A compiled `tableEvents` frame of a live change is projected from the published message
itself (games/api/live.py, ``Plan.message_frame_data``): it must be exactly the frame of the
typed ``TableUpdate`` strawberry's path builds from that message, for every game's views and
events as the journal publishes them, whatever the document selects."""

import random
from datetime import UTC, datetime
from types import SimpleNamespace

import pytest

from games import journal, selectors
from games.api import live
from games.api.types import view_type_name
from games.engine import GAMES
from games.models import Seat, Table
from tests.api.test_live_path import DOCUMENTS


def _every_field_document(game_id: str) -> str:
    """``tableEvents`` selecting every field of the update, its events and the game's view
    (one game a document: two games' views may type a field of one name differently)."""
    name = view_type_name(game_id)
    fields = " ".join(live._schema().type_map[name].fields)
    return ("subscription($id: ID!) { tableEvents(tableId: $id) { __typename tableId seq kind "
            "version status events { __typename type data } view { __typename "
            f"... on {name} {{ {fields} }} }} }} }}")


def _messages(game_id: str, seed: int):
    """The messages the journal publishes for each change of a random match (two people and
    a bot seated, and the spectators), with some deadlines and a finished status."""
    engine = GAMES[game_id]
    players = max(engine.min_players, 3)
    state, events = engine.new_game_with_events(players, seed)
    seats = {position: selectors.from_row(Seat, position=position, player_id=10 + position,
                                          is_bot=position == 2, left_at=None)
             for position in range(players)}
    rng = random.Random(seed)
    for seq in range(1, 40):
        deadline = datetime(2026, 12, 5, 12, 0, seq, tzinfo=UTC) if seq % 3 else None
        status = "finished" if engine.is_over(state) else "playing"
        table = selectors.from_row(  # an id of its own: update_from_message caches by it
            Table, id=1000 * seed + len(game_id), public_id="t-abc", game=game_id,
            status=status, state=state, version=seq, deadline=deadline,
            spectator_delay_seconds=0)
        entry = SimpleNamespace(seq=seq, kind="move", events=events,
                                created_at=datetime.now(UTC))
        yield from journal.audience_messages(table, entry, seats)
        actors = engine.actors(state)
        if not actors or engine.is_round_over(state) or engine.is_over(state):
            return
        seat = actors[0]
        state, events = engine.apply(state, seat, rng.choice(engine.legal_actions(state, seat)))


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_live_frame_from_the_message_is_the_typed_updates_frame(game_id):
    documents = [*DOCUMENTS, _every_field_document(game_id)]
    plans = [live.plan_for(document, None) for document in documents]
    assert all(plan is not None for plan in plans)
    compared = 0
    for seed in (1, 2, 3):
        for _, message in _messages(game_id, seed):
            for plan in plans:
                typed = plan.frame_data(live.update_from_message(message))
                assert plan.message_frame_data(message) == typed
                compared += 1
    assert compared > 100


def test_a_spectators_message_without_a_view_projects_null():
    plan = live.plan_for(_every_field_document("kato"), None)
    message = {"table": 1, "public_id": "t", "audience": "spectators", "seq": 3, "kind": "chat",
               "version": 2, "status": "open", "events": [{"type": "said", "text_id": 4}],
               "view": None}
    assert plan.message_frame_data(message) == plan.frame_data(live.update_from_message(message))
    assert '"view":null' in plan.message_frame_data(message)
