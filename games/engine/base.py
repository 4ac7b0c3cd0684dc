"""The contract every game implements, and the checks that are the same for all of them.

A game subclasses ``Game``, sets ``declaration`` (see declaration.py: its id, names, player
counts, options, actions, view and events, which also give ``id``, ``name``, ``min_players``,
``max_players`` and ``OPTIONS`` here) and fills in ``_new_game_events``, ``actors``,
``legal_actions``, ``_apply``, ``view``, the round/match hooks and ``all_cards``.
``new_game`` and ``apply`` here validate the inputs every game shares (player count, options, deck, whose turn, and the
action's shape from the declaration) so that each game module only judges legality.

States, actions and events are plain JSON data. ``apply`` must never mutate its input: copy
the top-level dict and only the lists an action changes (copy-on-write), never the whole state.
"""

from __future__ import annotations

from typing import Any, ClassVar

from . import rng
from .declaration import Declaration
from .errors import IllegalAction, InvalidOptions
from .options import Option, validate_options


class Game:
    declaration: ClassVar[Declaration]
    id: ClassVar[str]
    name: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    OPTIONS: ClassVar[tuple[Option, ...]] = ()
    ACTION_TYPES: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        declaration = cls.__dict__.get("declaration")
        if declaration is not None:
            cls.id, cls.name = declaration.id, declaration.name
            cls.min_players, cls.max_players = declaration.min_players, declaration.max_players
            cls.OPTIONS = declaration.options
            cls.ACTION_TYPES = declaration.action_types

    # --- options -------------------------------------------------------------------------
    def default_options(self) -> dict:
        return {spec.name: spec.default for spec in self.OPTIONS}

    def validate_options(self, options: dict | None) -> dict:
        """Every option with its value; raises ``InvalidOptions``."""
        return validate_options(self.OPTIONS, options)

    def describe_options(self) -> list[dict]:
        return [spec.describe() for spec in self.OPTIONS]

    # --- lifecycle -----------------------------------------------------------------------
    def new_game(self, players: int, seed: int | str, options: dict | None = None,
                 deck: list | None = None) -> dict:
        return self.new_game_with_events(players, seed, options, deck)[0]

    def new_game_with_events(self, players: int, seed: int | str, options: dict | None = None,
                             deck: list | None = None) -> tuple[dict, list[dict]]:
        """``new_game`` and the events of its first deal: the same ones a later round's
        ``start_next_round`` emits (each seat's own ``dealt``, the round's start...)."""
        if isinstance(players, bool) or not isinstance(players, int) or not (
                self.min_players <= players <= self.max_players):
            raise InvalidOptions(
                "invalid_player_count",
                f"{self.name} needs {self.min_players} to {self.max_players} players",
                field="players")
        opts = self.validate_options(options)
        return self._new_game_events(players, rng.seed_state(seed), opts, deck)

    def apply(self, state: dict, seat: int, action: Any) -> tuple[dict, list[dict]]:
        """Apply ``action`` by ``seat``: ``(new_state, events)``. Never mutates ``state``."""
        self.declaration.validate_action(action)
        if self.is_over(state):
            raise IllegalAction("game_over", "the match is over")
        if self.is_round_over(state):
            raise IllegalAction("round_over", "the round is over")
        if isinstance(seat, bool) or not isinstance(seat, int) or seat not in self.actors(state):
            raise IllegalAction("not_your_turn", "it is not your turn")
        return self._apply(state, seat, action)

    # --- to implement per game -----------------------------------------------------------
    def _new_game_events(self, players: int, rng_state: int, options: dict,
                         deck: list | None) -> tuple[dict, list[dict]]:
        """The first state and the events of its deal."""
        raise NotImplementedError

    def _apply(self, state: dict, seat: int, action: dict) -> tuple[dict, list[dict]]:
        raise NotImplementedError

    def actors(self, state: dict) -> list[int]:
        raise NotImplementedError

    def legal_actions(self, state: dict, seat: int) -> list[dict]:
        raise NotImplementedError

    def view(self, state: dict, seat: int | None) -> dict:
        raise NotImplementedError

    def is_round_over(self, state: dict) -> bool:
        raise NotImplementedError

    def round_result(self, state: dict) -> dict:
        raise NotImplementedError

    def start_next_round(self, state: dict) -> tuple[dict, list[dict]]:
        raise NotImplementedError

    def is_over(self, state: dict) -> bool:
        raise NotImplementedError

    def result(self, state: dict) -> dict:
        raise NotImplementedError

    def all_cards(self, state: dict) -> list[str]:
        """Every card of the game wherever it is (hands, piles, out of the game), for the
        card-conservation property. Never shown to players."""
        raise NotImplementedError

    def full_deck(self, options: dict) -> list[str]:
        raise NotImplementedError
