"""Replays of ended matches: one self-contained document from which any client rebuilds every
state with the engine's rules.

A replay holds the seed, the options, the players, the first deal's deck order, and every
change at the table in order (the log without its chat): who did what, and the events each
step sent to everyone. Once the match has ended, nothing at the table is secret any more, so
the replay also carries the events that only one seat saw (each hand dealt) and the final
state. While a match runs there is no replay at all: the seed alone would give every hand
away. Who may read an ended match's replay: anyone at a public table; at a private one its
players (seated now or before) and its creator; staff always.

Rebuilding (the recipe the document states in ``rebuild``, and the test follows):

- ``state = GAMES[game].new_game(players, seed, options)`` at the step whose ``engine`` is
  ``"new_game"``; ``new_game(players, seed, options, deck=deck)`` deals the same first round
  (``deck`` is that deal's draw order), but later deals come from the seeded RNG inside the
  state, so a rebuild passes the seed.
- ``state, events = apply(state, step["seat"], step["action"])`` at each ``"apply"`` step;
  the events are the step's ``events`` plus its ``hidden_events``.
- ``state, events = start_next_round(state)`` at each ``"start_next_round"`` step.
"""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser

from .errors import GameError
from .models import LogKind, Table, TableLogEntry, TableStatus, Visibility

FORMAT = "stapel-replay/1"
ENDED = (TableStatus.FINISHED, TableStatus.ABORTED)
MOVES = (LogKind.ACTION, LogKind.BOT, LogKind.TIMEOUT)

REBUILD = [
    "state = GAMES[game].new_game(players, seed, options) at the step whose engine is "
    "'new_game' (deck is the draw order of that first deal; later deals come from the seeded "
    "RNG inside the state, so rebuild with the seed)",
    "state, events = GAMES[game].apply(state, step.seat, step.action) at each 'apply' step",
    "state, events = GAMES[game].start_next_round(state) at each 'start_next_round' step",
    "the last state equals final_state",
]


def may_read(table: Table, player) -> bool:
    """Whether ``player`` (None: anonymous) may read this table's replay once it ended."""
    if player is not None and getattr(player, "is_staff", False):
        return True
    if table.visibility != Visibility.PRIVATE:
        return True
    if player is None or isinstance(player, AnonymousUser):
        return False
    return player.pk == table.creator_id or any(
        s.player_id == player.pk and not s.is_bot for s in table.seats.all())


def replay_for(table_id, player) -> dict:
    # ``table_id``: a client's public id (a string), or a PublicTableId / internal key.
    """The replay document of an ended match for ``player``. Errors: ``not_found`` (no such
    table, or a private one that is not theirs: the same answer), ``not_finished`` (the
    match has not ended: nothing of it is revealed), ``not_started`` (ended before a deal)."""
    from . import selectors

    if isinstance(table_id, str) and not isinstance(table_id, selectors.PublicTableId):
        table_id = selectors.public_table_id(table_id)
    table = selectors.table_get(table_id)
    if not may_read(table, player):
        raise GameError("not_found", "no such table", field="tableId")
    if table.status not in ENDED or _ended_later_for(table, player):
        raise GameError("not_finished", "a replay is there once the match has ended",
                        field="tableId")
    if table.started_at is None:
        raise GameError("not_started", "this table ended before the first deal",
                        field="tableId")
    return replay_document(table)


def _ended_later_for(table: Table, player) -> bool:
    """Whether the end is still held back from ``player`` by the spectator delay (the replay
    would reveal the finish, and every hand, early)."""
    from . import selectors

    if isinstance(player, AnonymousUser):
        player = None
    delay = selectors.reader_delay(table, player, selectors.viewer_seat(table, player))
    if not delay:
        return False
    cut = selectors.delay_cut(table, delay)
    return not TableLogEntry.objects.filter(table=table, seq__lte=cut, status__in=ENDED).exists()


def replay_document(table: Table) -> dict:
    """The whole replay, every hand included. Callers check who may read it (``replay_for``;
    moderators in the admin)."""
    from .engine import GAMES

    engine = GAMES[table.game]
    seats = sorted(table.seats.all(), key=lambda s: s.position)
    entries = (TableLogEntry.objects.filter(table=table).exclude(kind=LogKind.CHAT)
               .order_by("seq"))
    steps, version = [], 0
    for entry in entries:
        step_engine = None
        if entry.kind == LogKind.START:
            step_engine, version = "new_game", entry.version
        elif entry.kind in MOVES and entry.action is not None:
            step_engine, version = "apply", entry.version
        elif entry.kind == LogKind.NEXT_ROUND and entry.version > version:
            # The last round's end finishes the match without a new deal (same version).
            step_engine, version = "start_next_round", entry.version
        public = [e for e in entry.events if e.get("visible_to", "all") == "all"]
        hidden = [e for e in entry.events if e.get("visible_to", "all") != "all"]
        steps.append({
            "seq": entry.seq, "kind": entry.kind, "engine": step_engine, "seat": entry.seat,
            "action": entry.action if step_engine == "apply" else None,
            "version": entry.version, "status": entry.status or None,
            "at": entry.created_at.isoformat(),
            "events": [_strip(e) for e in public], "hidden_events": hidden,
        })
    return {
        "format": FORMAT,
        "table": {
            "id": table.public_id, "game": table.game, "status": table.status,
            "visibility": table.visibility, "tournament_table": table.tournament_table,
            "created_at": table.created_at.isoformat(),
            "started_at": table.started_at.isoformat() if table.started_at else None,
            "finished_at": table.finished_at.isoformat() if table.finished_at else None,
            "abort_reason": table.abort_reason or None,
        },
        "players": [{"seat": s.position, "player_id": str(s.player_id),
                     "display_name": s.player.display_name, "is_bot": s.is_bot,
                     "bot_level": s.bot_level or None} for s in seats],
        "seat_count": table.seat_count,
        # A string: the seed is 62 bits, beyond what JSON numbers keep exactly everywhere.
        "seed": str(table.seed),
        "options": table.options,
        "deck": first_deck(engine, table.seed, table.options),
        "rebuild": REBUILD,
        "steps": steps,
        "result": table.result,
        "final_state": table.state,
    }


def _strip(event: dict) -> dict:
    return {k: v for k, v in event.items() if k != "visible_to"}


def first_deck(engine, seed: int, options: dict) -> list[str]:
    """The draw order of the first deal: every engine shuffles its full deck with the seeded
    RNG before anything else (``tests/games/test_replays.py`` checks it for each game)."""
    from .engine import rng

    return rng.shuffled(rng.seed_state(seed), engine.full_deck(options))[1]
