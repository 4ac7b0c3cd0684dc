"""House rules: declared once per game as option specs, validated the same way for all.

A spec knows its default, its type and its allowed values, so the engine can validate a
table's options and the API can describe them to a frontend without a second source of truth.
"""

from dataclasses import dataclass
from typing import Any

from .errors import InvalidOptions


@dataclass(frozen=True)
class Option:
    name: str
    default: Any
    description: str = ""

    kind = "any"

    def validate(self, value: Any) -> Any:  # pragma: no cover - overridden
        return value

    def describe(self) -> dict:
        return {"name": self.name, "type": self.kind, "default": self.default,
                "description": self.description}


@dataclass(frozen=True)
class IntOption(Option):
    minimum: int = 0
    maximum: int = 0
    nullable: bool = False  # None means "the game picks", e.g. a hand size by player count

    kind = "int"

    def validate(self, value: Any) -> Any:
        if value is None and self.nullable:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidOptions("invalid_options", f"option '{self.name}' must be an integer",
                                 field=self.name)
        if not self.minimum <= value <= self.maximum:
            raise InvalidOptions(
                "invalid_options",
                f"option '{self.name}' must be between {self.minimum} and {self.maximum}",
                field=self.name)
        return value

    def describe(self) -> dict:
        return {**super().describe(), "minimum": self.minimum, "maximum": self.maximum,
                "nullable": self.nullable}


@dataclass(frozen=True)
class BoolOption(Option):
    kind = "bool"

    def validate(self, value: Any) -> Any:
        if not isinstance(value, bool):
            raise InvalidOptions("invalid_options", f"option '{self.name}' must be true or false",
                                 field=self.name)
        return value


@dataclass(frozen=True)
class ChoiceOption(Option):
    choices: tuple[str, ...] = ()

    kind = "choice"

    def validate(self, value: Any) -> Any:
        if value not in self.choices:
            raise InvalidOptions(
                "invalid_options",
                f"option '{self.name}' must be one of: {', '.join(self.choices)}",
                field=self.name)
        return value

    def describe(self) -> dict:
        return {**super().describe(), "choices": list(self.choices)}


def validate_options(specs: tuple[Option, ...], options: dict | None) -> dict:
    """Return every option with its value: the given ones validated, the rest defaulted."""
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise InvalidOptions("invalid_options", "options must be an object")
    by_name = {spec.name: spec for spec in specs}
    unknown = sorted(set(options) - set(by_name))
    if unknown:
        raise InvalidOptions("unknown_option", f"unknown option '{unknown[0]}'", field=unknown[0])
    return {spec.name: spec.validate(options[spec.name]) if spec.name in options else spec.default
            for spec in specs}
