"""Expected failures at a table. Codes are stable: frontends switch on them.

``CODES`` lists the table, chat and moderation codes; ``codes()`` adds the engine's: the ones
every game answers with (games/engine/declaration.py ``ENGINE_CODES``) and each registered
game's own (its declaration's ``codes``, shown on docs/games/<game>.md).
"""

from accounts.errors import DomainError

CODES = (
    # tables and seats
    "not_found", "table_full", "seat_taken", "invalid_seat", "wrong_invite_code",
    "already_seated", "not_seated", "not_creator", "not_open", "not_playing",
    "not_enough_players", "game_over", "stale_version", "unknown_game", "invalid_options",
    "invalid_bot_level", "spectators_not_allowed", "invalid_seat_count", "invalid_turn_clock",
    "invalid_visibility", "invalid_idempotency_key", "idempotency_key_reused", "busy",
    "banned", "bad_after_seq", "invalid_cursor", "malformed_action", "invalid_spectator_delay",
    # replays
    "not_finished", "not_started",
    # chat
    "chat_not_allowed", "invalid_text", "muted", "table_closed",
    # moderation
    "forbidden", "reason_required", "invalid_until", "cannot_report_self", "invalid_reason",
    "already_handled", "invalid_status",
)


def codes() -> list[str]:
    """Every code a table can answer with, engine codes included, in a stable order."""
    from games.engine import declarations
    from games.engine.declaration import ENGINE_CODES

    out = dict.fromkeys(CODES)
    out.update(dict.fromkeys(ENGINE_CODES))
    for decl in declarations():
        out.update(dict.fromkeys(decl.codes))
    return list(out)


class GameError(DomainError):
    code = "game_error"
