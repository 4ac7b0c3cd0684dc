"""Expected failures at a table. Codes are stable: frontends switch on them.

Table and seat codes: ``not_found``, ``table_full``, ``seat_taken``, ``invalid_seat``,
``wrong_invite_code``, ``already_seated``, ``not_seated``, ``not_creator``, ``not_open``,
``not_playing``, ``not_enough_players``, ``game_over``, ``stale_version``, ``unknown_game``,
``invalid_options``, ``invalid_bot_level``, ``spectators_not_allowed``.
Moves that the rules refuse carry the engine's code (``not_your_turn``, ``does_not_match``...).
"""

from accounts.errors import DomainError


class GameError(DomainError):
    code = "game_error"
