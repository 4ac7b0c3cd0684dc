"""Expected failures of tournaments. Codes are stable: frontends switch on them.

``not_found``, ``not_organiser``, ``registration_closed``, ``tournament_full``,
``already_registered``, ``not_registered``, ``disqualified``, ``banned``, ``already_started``,
``not_enough_players``, ``invalid_format``, ``invalid_table_size``, ``invalid_rounds``,
``invalid_advance``, ``invalid_duration``, ``invalid_schedule``, ``invalid_turn_clock``,
``invalid_bot_level``, ``invalid_name``, plus the games codes for options (``unknown_game``,
``invalid_options``...).
"""

from accounts.errors import DomainError

CODES = (
    "not_found", "not_organiser", "registration_closed", "tournament_full",
    "already_registered", "not_registered", "disqualified", "banned", "already_started",
    "not_enough_players", "invalid_format", "invalid_table_size", "invalid_rounds",
    "invalid_advance", "invalid_duration", "invalid_schedule", "invalid_turn_clock",
    "invalid_bot_level", "invalid_name",
    # webhooks
    "invalid_url", "invalid_events", "too_many_endpoints",
    # exports, spectator delay, manual control
    "not_elimination", "invalid_spectator_delay", "already_paused", "not_paused",
    "tournament_over", "no_pending_round", "no_such_table", "not_in_round", "not_at_table",
    "same_table", "table_too_small", "already_bye", "reason_required",
)


class TournamentError(DomainError):
    code = "tournament_error"
