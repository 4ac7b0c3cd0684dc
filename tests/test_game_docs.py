"""docs/games/<game>.md are generated from the declarations and must be fresh, like
schema.graphql: change a declaration, run `make game-docs`, commit both."""

import dataclasses

from django.core.management import call_command

from games import docs
from games.engine import GAMES, registered


def test_every_game_has_a_fresh_reference_page():
    assert docs.stale() == [], "run `make game-docs` and commit docs/games/"
    for game_id in GAMES:
        assert (docs.DOCS_DIR / f"{game_id}.md").exists()
    call_command("game_docs", "--check")


def test_a_changed_declaration_makes_its_page_stale():
    kato = GAMES["kato"]
    changed = type("ChangedKato", (type(kato),), {
        "declaration": dataclasses.replace(kato.declaration, summary="Something else.")})()
    GAMES["kato"] = changed
    try:
        assert docs.stale() == ["docs/games/kato.md"]
    finally:
        GAMES["kato"] = kato
    with registered(type("Extra", (type(kato),), {
            "declaration": dataclasses.replace(kato.declaration, id="extra")})()):
        assert docs.stale() == ["docs/games/extra.md"]


def test_each_page_shows_actions_view_events_rules_and_bots():
    text = (docs.DOCS_DIR / "aetsch.md").read_text()
    for needle in ("`hearts-10`", "### `giveDrawn`", "action: {play: {card: \"hearts-7\"}}",
                   "| `drawnCard` | card code, or null | yours |",
                   "| `peeked_hand` | only `seat` |", "| `jack_on_jack` | bool | `false` |",
                   "- `strong`:", "first legal action among: `pass`, `draw`"):
        assert needle in text, needle
