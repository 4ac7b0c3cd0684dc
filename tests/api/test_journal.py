"""The one door out of every table change (games/journal.py): what each write logs,
publishes per audience and queues — captured as Zulip's tests capture sent events."""

import ast
from pathlib import Path

import pytest
from django.db import transaction

from accounts.models import Player
from games import chat, journal, realtime, services
from games.models import LogKind, TableLogEntry

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]


def person(name):
    return Player.objects.create(username=name.lower(), display_name=name)


def playing_table(*, bots=0, people=2):
    alice, bob = person("Alice"), person("Bob")
    table = services.table_create(creator=alice, game="kato", seat_count=people + bots,
                                  options={"rounds": 1})
    if people > 1:
        services.table_join(player=bob, table_id=table.pk)
    for _ in range(bots):
        services.bot_add(player=alice, table_id=table.pk, level="random")
    table = services.table_start(player=alice, table_id=table.pk)
    return table, alice, bob


def groups_of(table, *players):
    return {realtime.group_name(table.pk, realtime.player_audience(p.pk)) for p in players} | {
        realtime.group_name(table.pk, realtime.SPECTATORS)}


def test_a_move_logs_once_publishes_each_audience_its_own_view_and_queues_nothing_between_people():
    table, alice, bob = playing_table()
    from games.engine import GAMES

    seat = GAMES["kato"].actors(table.state)[0]
    mover = alice if seat == 0 else bob
    action = GAMES["kato"].legal_actions(table.state, seat)[0]
    with journal.capture() as captured:
        result = services.act(player=mover, table_id=table.pk, action=action,
                              expected_version=table.version)
    [change] = captured.changes
    assert change.entry.seq == result.seq and change.entry.kind == LogKind.ACTION
    assert set(captured.groups) == groups_of(table, alice, bob)
    by_group = dict(change.messages)
    for player, position in ((alice, 0), (bob, 1)):
        message = by_group[realtime.group_name(table.pk, realtime.player_audience(player.pk))]
        assert message["view"]["seat"] == position
        assert message["seq"] == result.seq and message["version"] == result.version
    spectators = by_group[realtime.group_name(table.pk, realtime.SPECTATORS)]
    assert spectators["view"]["seat"] is None and spectators["view"]["data"]["hand"] is None
    assert change.tasks == []  # two people, no clock: nothing happens by itself


def test_a_move_queues_what_the_new_state_needs_with_the_new_version():
    table, alice, _ = playing_table(bots=1, people=1)
    from games import scheduling
    from games.engine import GAMES
    from games.models import Table

    engine = GAMES["kato"]
    for _ in range(60):  # play until a move of Alice's hands the turn to the bot
        scheduling.wait_idle(timeout=10)  # the bot's own turns, played in process
        table = Table.objects.get(pk=table.pk)
        if table.status != "playing":
            break
        if engine.actors(table.state) != [0]:
            continue
        with journal.capture() as captured:
            result = services.act(player=alice, table_id=table.pk,
                                  action=engine.legal_actions(table.state, 0)[0],
                                  expected_version=table.version)
        state = Table.objects.get(pk=table.pk).state
        queued = [task for change in captured.changes for task in change.tasks]
        if engine.is_round_over(state):
            assert [t[0] for t in queued] == ["round_end"]
        elif 1 in engine.actors(state):
            assert [t[0] for t in queued] == ["bot_turn"]
        else:
            assert queued == []  # Alice moves again (a skip): nothing happens by itself
        assert all(t[1] == table.pk and t[2] == result.version for t in queued)
        if queued:
            return
    pytest.skip("no move handed the turn over in this deal")


def test_a_refused_move_writes_publishes_and_queues_nothing():
    table, alice, bob = playing_table()
    before = TableLogEntry.objects.filter(table=table).count()
    with journal.capture() as captured, pytest.raises(services.GameError):
        services.act(player=alice, table_id=table.pk, action={"type": "draw"},
                     expected_version=table.version + 7)
    assert captured.changes == [] and captured.broadcasts == []
    assert TableLogEntry.objects.filter(table=table).count() == before


def test_a_change_that_rolls_back_publishes_nothing(monkeypatch):
    sent = []
    monkeypatch.setattr(realtime, "send", sent.append)
    alice = person("Alice")
    with pytest.raises(RuntimeError), transaction.atomic():
        services.table_create(creator=alice, game="kato")
        raise RuntimeError("the request failed after the service")
    assert sent == []
    services.table_create(creator=alice, game="kato")
    assert len(sent) == 1  # committed: one batch of messages


def test_chat_goes_through_the_journal_with_its_text_published_but_not_stored():
    table, alice, bob = playing_table()
    with journal.capture() as captured:
        chat.chat_message_send(player=alice, table_id=table.pk, text="gut gespielt")
    [change] = captured.changes
    assert change.entry.kind == LogKind.CHAT and change.tasks == []
    assert all(m["events"][0]["text"] == "gut gespielt" for _, m in change.messages)
    stored = TableLogEntry.objects.get(table=table, seq=change.entry.seq)
    assert "text" not in stored.events[0]


def test_abort_tells_the_lobby_and_marks_the_match_finished():
    table, alice, _ = playing_table()
    with journal.capture() as captured:
        services.table_abort(actor=None, table_id=table.pk, reason="test")
    [change] = captured.changes
    assert change.finished
    assert realtime.LOBBY_GROUP in captured.groups


# Every module that writes a table's log, sends to the channel layer or registers on-commit
# work, outside the journal and the transports it uses. A new writer must go through
# ``games.journal.record`` (or ``broadcast``), not copy "append, save, publish on commit".
ALLOWED = {
    "games/journal.py": {"TableLogEntry.objects.create", "on_commit"},
    "games/realtime.py": {"group_send"},
    "accounts/realtime.py": {"group_send", "on_commit"},  # token sockets close (no games import)
    "tournaments/webhooks.py": {"on_commit"},  # the webhook outbox's delivery task
    "config/metrics.py": {"on_commit"},  # times a move's fan-out, registered after it
}


def _calls(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call):
            text = ast.unparse(node.func)
            for name in ("TableLogEntry.objects.create", "group_send", "on_commit"):
                if text == name or text.endswith("." + name):
                    found.add(name)
    return found


def test_every_writer_goes_through_the_journal():
    offenders = {}
    for package in ("games", "tournaments", "accounts", "config"):
        for path in (ROOT / package).rglob("*.py"):
            rel = path.relative_to(ROOT).as_posix()
            if "/migrations/" in rel:
                continue
            calls = _calls(path) - ALLOWED.get(rel, set())
            if calls:
                offenders[rel] = sorted(calls)
    assert offenders == {}
