"""Each game's reference page (docs/games/<game>.md), written from its declaration.

``manage.py game_docs`` writes the pages; ``manage.py game_docs --check`` (and a test) fails
when one is stale, like ``schema.graphql``. Names are shown as the API spells them (camelCase).
"""

from __future__ import annotations

import json
from pathlib import Path

from games import bots as bot_registry
from games.api.actions import to_api, to_camel
from games.api.types import view_type_name
from games.engine import GAMES
from games.engine.declaration import Declaration, Int

DOCS_DIR = Path(__file__).resolve().parent.parent / "docs" / "games"

_TYPE_WORDS = {"int": "integer", "str": "string", "bool": "boolean", "card": "card code",
               "seat": "seat number", "json": "JSON"}


def type_text(notation: str) -> str:
    """``[card]?`` -> ``list of card code, or null``."""
    optional = notation.endswith("?")
    core = notation.rstrip("?")
    depth = core.count("[")
    text = _TYPE_WORDS[core.strip("[]")]
    for _ in range(depth):
        text = f"list of {text}"
    return text + (", or null" if optional else "")


def graphql_literal(value) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {graphql_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(graphql_literal(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def _row(*cells) -> str:
    return "| " + " | ".join(str(c).replace("|", "\\|").replace("\n", " ") for c in cells) + " |"


def render(decl: Declaration) -> str:
    bots = bot_registry.REGISTRY.get(decl.id)
    other_names = ", ".join(f"{name} ({lang})" for lang, name in decl.names.items())
    out = [
        f"# {decl.name} (`{decl.id}`)",
        "",
        "<!-- Generated from the game's declaration (games/engine/"
        f"{decl.id}.py) by `manage.py game_docs`; do not edit by hand. -->",
        "",
        decl.summary,
        "",
        f"- Players: {decl.min_players} to {decl.max_players}.",
        f"- Names: {other_names}.",
        f"- Game id for `createTable(input: {{game: \"{decl.id}\"}})`: `{decl.id}`.",
        "- The full rules, with every ruling, are in RULES.md; this page is the API's side.",
        "",
        "## Cards and their codes",
        "",
        _row("codes", "what they are"),
        _row("---", "---"),
    ]
    for group in decl.cards:
        codes = ", ".join(f"`{c}`" for c in group.codes)
        out.append(_row(codes, group.doc))
    out += ["", "## House rules", "",
            "Set them in `createTable(input: {options: {...}})`; an unknown rule or a bad value "
            "is refused with `unknown_option` or `invalid_options`.", ""]
    if decl.options:
        out += [_row("option", "type", "default", "allowed", "what it does"),
                _row("---", "---", "---", "---", "---")]
        for spec in decl.options:
            info = spec.describe()
            allowed = ""
            if info["type"] == "int":
                allowed = f"{info['minimum']}..{info['maximum']}" + (
                    ", or null" if info.get("nullable") else "")
            elif info["type"] == "choice":
                allowed = ", ".join(f"`{c}`" for c in info["choices"])
            elif info["type"] == "bool":
                allowed = "true, false"
            out.append(_row(f"`{spec.name}`", info["type"], f"`{json.dumps(spec.default)}`",
                            allowed, spec.description))
    else:
        out.append("This game has no house rules.")
    out += ["", "## Actions", "",
            "A move is sent with `act`, one field of `ActionInput` named after the action "
            "(camelCase); an action without fields takes `true`. Every entry of a view's "
            "`legalActions` has this shape already. A malformed action is refused with the "
            "same code in every game (`unknown_action`, `unknown_field`, `missing_field`, "
            "`invalid_type`, `invalid_value`; docs/api.md), a well-formed one the rules do not "
            "allow now with this game's own code. A field set to null counts as left out.", ""]
    for action in decl.actions:
        out += [f"### `{to_camel(action.type)}`", "", action.doc, ""]
        if action.fields:
            out += [_row("field", "type", "required", "meaning"),
                    _row("---", "---", "---", "---")]
            for f in action.fields:
                kind = f.kind
                type_ = type_text(kind.type)
                if getattr(kind, "choices", None):
                    type_ += ": " + ", ".join(f"`{c}`" for c in kind.choices)
                elif isinstance(kind, Int) and (kind.minimum is not None
                                                or kind.maximum is not None):
                    type_ += f" ({kind.range_text})"
                elif getattr(kind, "length", None):
                    type_ += f" (exactly {kind.length})"
                elif kind.type == "[card]" and kind.max_length == kind.min_length:
                    type_ += f" (exactly {kind.min_length})"
                out.append(_row(f"`{to_camel(f.name)}`", type_, "yes" if f.required else "no",
                                f.doc))
            out.append("")
        example = graphql_literal(to_api(decl.example(action)))
        out += ["```graphql",
                f"mutation {{ act(tableId: \"42\", expectedVersion: 7, action: {example}) "
                "{ version errors { code message field } } }",
                "```", ""]
    out += ["### Codes of this game's rules", "",
             "A well-formed move the rules refuse now is answered with one of these (or "
             "`not_your_turn`, `game_over`, `round_over`, as in every game):", "",
             _row("code", "meaning"), _row("---", "---")]
    out += [_row(f"`{code}`", meaning) for code, meaning in decl.codes.items()]
    out += ["", "## The view", "",
            f"`table {{ view {{ ... on {view_type_name(decl.id)} {{ ... }} }} }}` and each `tableEvents` update carry it. Besides the fields "
            "below it has `game`, `seat`, `version`, `deadline` (the turn clock), "
            "`legalActions` and `raw` (the whole view as JSON). Fields marked *yours* differ "
            "by viewer and are empty for a spectator; every other field is the same for "
            "everybody at the table.", "",
            _row("field", "type", "seen by", "meaning"), _row("---", "---", "---", "---")]
    for v in decl.view:
        out.append(_row(f"`{to_camel(v.name)}`", type_text(v.type),
                        "yours" if v.private else "everyone", v.doc))
    out += ["", "## Events", "",
            "Each update's `events` are `{type, data}`; `data` holds the fields below. An event "
            "only some seats may see never reaches the others (nor spectators).", "",
            _row("type", "seen by", "data", "meaning"), _row("---", "---", "---", "---")]
    for e in decl.events:
        fields = "; ".join(
            f"`{to_camel(f.name)}` ({type_text(f.type)}{'' if f.required else ', optional'})"
            + (f": {f.doc}" if f.doc else "") for f in e.fields) or "none"
        out.append(_row(f"`{e.type}`", e.audience_text(), fields, e.doc))
    out += ["", "## Results", "",
            "`result` (the match) and `roundResults` (each round) hold `placings` and `scores` "
            "by seat; a placing of 1 is best. Ties are written the same way in both, and in "
            "every game: tied seats share the better place and the places they take up are "
            "skipped (competition ranking: 1, 2, 2, 4). " + decl.results, "",
            "## Turn clock", "",
            "A seat whose turn clock runs out plays the first legal action among: "
            + ", ".join(f"`{to_camel(t)}`" for t in decl.default_action_order)
            + "; if none is legal, its first legal action. After repeated misses a bot takes "
            "the seat over until its player acts again.", "",
            "## Bots", ""]
    if bots:
        out += [f"`addBot(level: ...)` takes one of these, weakest first (default "
                f"`{bots.default}`):", ""]
        out += [f"- `{bot.level}`: {bot.description}" for bot in bots.levels]
    out.append("")
    return "\n".join(out)


def pages() -> dict[Path, str]:
    return {DOCS_DIR / f"{game_id}.md": render(game.declaration)
            for game_id, game in GAMES.items()}


def stale() -> list[str]:
    """Pages that differ from their declaration, are missing or belong to no game."""
    expected = pages()
    out = [str(p.relative_to(DOCS_DIR.parent.parent)) for p, text in expected.items()
           if not p.exists() or p.read_text() != text]
    if DOCS_DIR.exists():
        out += [str(p.relative_to(DOCS_DIR.parent.parent)) for p in DOCS_DIR.glob("*.md")
                if p not in expected]
    return sorted(out)


def write() -> list[Path]:
    DOCS_DIR.mkdir(parents=True, exist_ok=True)
    written = []
    for path, text in pages().items():
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
            written.append(path)
    return written
