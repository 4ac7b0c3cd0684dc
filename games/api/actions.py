"""Moves as GraphQL input, and legal actions in exactly that shape.

``ActionInput`` is a ``@oneOf`` input: one field per action type of RULES.md, so a move is
``{"play": {"cards": ["red-7"], "call": true}}`` or ``{"draw": true}``. Every entry of a view's
``legalActions`` is already in this shape, so a frontend can send it back to ``act`` as it is
(adding ``call: true`` inside ``play`` where the rules allow). The engine's own form
(``{"type": "play", "cards": [...]}``) never needs to be built by hand.
"""

from __future__ import annotations

import strawberry
from strawberry import UNSET

from games.errors import GameError


@strawberry.input(description="The fields of a play; which ones a game uses is in RULES.md.")
class PlayInput:
    cards: list[str] | None = UNSET
    card: str | None = UNSET
    color: str | None = UNSET
    suit: str | None = UNSET
    call: bool | None = UNSET
    to: int | None = UNSET
    index: int | None = UNSET
    count: int | None = UNSET
    kind: str | None = UNSET
    rank: int | None = UNSET


@strawberry.input
class ColorInput:
    color: str


@strawberry.input
class SeatInput:
    seat: int


@strawberry.input
class SeatsInput:
    seats: list[int]


@strawberry.input
class PositionInput:
    position: int


@strawberry.input
class ReserveInput:
    reserve: int
    position: int


@strawberry.input
class CardsInput:
    cards: list[str]


@strawberry.input
class CardInput:
    card: str


@strawberry.input
class ToInput:
    to: int


@strawberry.input(one_of=True, description=(
    "One move. Exactly one field is set; flag-only moves take `true`. Each entry of "
    "`legalActions` is a valid value of this input."))
class ActionInput:
    play: PlayInput | None = UNSET
    draw: bool | None = UNSET
    pass_: bool | None = strawberry.field(name="pass", default=UNSET)
    accept: bool | None = UNSET
    challenge: bool | None = UNSET
    call: bool | None = UNSET
    catch: SeatInput | None = UNSET
    choose_color: ColorInput | None = UNSET
    take_reserve: ReserveInput | None = UNSET
    insert: PositionInput | None = UNSET
    choose_face_up: CardsInput | None = UNSET
    play_blind: PositionInput | None = UNSET
    give_to: ToInput | None = UNSET
    take_pile: bool | None = UNSET
    give_drawn: ToInput | None = UNSET
    peek: SeatInput | None = UNSET
    give: CardInput | None = UNSET
    swap: SeatsInput | None = UNSET
    reroll: bool | None = UNSET


_FLAG_ACTIONS = {"draw", "pass", "accept", "challenge", "call", "take_pile", "reroll"}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def to_engine(value: ActionInput) -> dict:
    """The engine's action dict for an ``ActionInput``."""
    for attr in ActionInput.__annotations__:
        field = getattr(value, attr, UNSET)
        if field is UNSET or field is None:
            continue
        type_ = attr.rstrip("_")
        if type_ in _FLAG_ACTIONS:
            if field is not True:
                raise GameError("malformed_action", f"'{_camel(type_)}' takes true",
                                field="action")
            return {"type": type_}
        return {"type": type_, **{k: v for k, v in vars(field).items() if v is not UNSET}}
    raise GameError("malformed_action", "give exactly one move", field="action")


def to_api(action: dict) -> dict:
    """A legal action of the engine in the shape of ``ActionInput``."""
    type_ = action["type"]
    fields = {_camel(k): v for k, v in action.items() if k != "type"}
    return {_camel(type_): fields if fields or type_ not in _FLAG_ACTIONS else True}
