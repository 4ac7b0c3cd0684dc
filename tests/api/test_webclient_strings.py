"""The web client speaks German and English alike, and every event the games and the
service emit has a line of its own in the move list (not raw `type key=value` text)."""

import random
import re
from pathlib import Path

from games.engine import GAMES

WEBCLIENT = Path(__file__).resolve().parents[2] / "games" / "webclient" / "js"
# Events the service itself writes to a table's log (games/services.py, games/chat.py).
SERVICE_EVENTS = {"table_created", "seat_taken", "seat_left", "bot_took_over", "match_started",
                  "table_finished", "table_aborted", "chat", "chat_hidden", "chat_unhidden"}


def _keys(block: str) -> set[str]:
    return set(re.findall(r"(?:^|[\s,{])'?([\w-]+)'?: +'", block))


def test_german_and_english_have_the_same_strings():
    source = (WEBCLIENT / "i18n.js").read_text()
    english = source[source.index("  en: {"):source.index("  de: {")]
    german = source[source.index("  de: {"):source.index("const LANG_KEY")]
    en, de = _keys(english), _keys(german)
    assert len(en) > 200
    assert en - de == set(), "missing in German"
    assert de - en == set(), "missing in English"


def _engine_event_types() -> set[str]:
    """Every event type the four engines emit in a few random matches."""
    types = set()
    for game_id, game in GAMES.items():
        for seed in range(4):
            players = {"karma": 3}.get(game_id, 4)
            state, events = game.new_game_with_events(players, seed, {})
            types |= {e["type"] for e in events}
            rnd = random.Random(seed)
            for _ in range(1500):
                if game.is_over(state):
                    break
                if game.is_round_over(state):
                    state, events = game.start_next_round(state)
                else:
                    seat = game.actors(state)[0]
                    state, events = game.apply(state, seat,
                                               rnd.choice(game.legal_actions(state, seat)))
                types |= {e["type"] for e in events}
    return types


def test_every_event_has_a_readable_line():
    source = (WEBCLIENT / "games.js").read_text()
    types = _engine_event_types() | SERVICE_EVENTS
    assert len(types) > 40
    missing = sorted(t for t in types if f"'{t}'" not in source)
    assert missing == [], "events the move list would show as raw text"
