"""Typed errors raised by every rules engine.

They carry a machine-readable ``code`` a frontend can switch on and a message that is safe to
show to any player: never put a hidden card into one.
"""


class EngineError(Exception):
    code = "engine_error"

    def __init__(self, code: str | None = None, message: str = "", *, field: str | None = None):
        self.code = code or self.code
        self.message = message or self.code.replace("_", " ")
        self.field = field
        super().__init__(self.message)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"


class IllegalAction(EngineError):
    """The action is malformed or not allowed now. Nothing was changed."""

    code = "illegal_action"


class InvalidOptions(EngineError):
    """An unknown house rule, or a value of the wrong type or out of range."""

    code = "invalid_options"


class InvalidDeck(EngineError):
    """A ``deck`` given to ``new_game`` is not exactly the game's full deck."""

    code = "invalid_deck"
