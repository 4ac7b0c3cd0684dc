"""Tables over GraphQL in one process: lobby, seats, start, moves and their typed errors."""

import json

import pytest

from games import scheduling
from games.models import Table, TableLogEntry
from games.selectors import table_pk_from_public

pytestmark = pytest.mark.django_db(transaction=True)

CREATE = """mutation($input: CreateTableInput!) { createTable(input: $input) {
  table { id status seatCount options inviteCode mySeat seats { position player { displayName } } }
  errors { code message field } } }"""
JOIN = """mutation($id: ID, $code: String, $seat: Int) { joinTable(tableId: $id, inviteCode: $code, seat: $seat) {
  table { id mySeat seats { position } } errors { code field } } }"""
START = "mutation($id: ID!) { startTable(tableId: $id) { table { status version } errors { code } } }"
ACT = """mutation($id: ID!, $a: ActionInput!, $v: Int!, $k: String) {
  act(tableId: $id, action: $a, expectedVersion: $v, idempotencyKey: $k) {
    version seq replayed errors { code message field } } }"""
VIEW = """query($id: ID!) { table(id: $id) { status version mySeat result
  view { __typename ... on KatoView { seat hand handCounts actors top color direction
         legalActions deadline raw } } } }"""


def guest(gql, name):
    token = gql('mutation($n: String!) { createGuest(displayName: $n) { token } }',
                {"n": name})["createGuest"]["token"]
    return type(gql)(gql.client, token)


@pytest.fixture
def alice(gql):
    return guest(gql, "Alice")


@pytest.fixture
def bob(gql):
    return guest(gql, "Bob")


def create(client, **input_):
    return client(CREATE, {"input": {"game": "kato", **input_}})["createTable"]


def two_player_table(alice, bob, **options):
    table = create(alice, seatCount=2, options={"rounds": 1, **options})["table"]
    assert bob(JOIN, {"id": table["id"]})["joinTable"]["errors"] == []
    assert alice(START, {"id": table["id"]})["startTable"]["errors"] == []
    return table["id"]


def test_games_lists_every_game_with_options_and_bot_levels(gql):
    games = gql("{ games { id name minPlayers maxPlayers botLevels options { name type default minimum maximum choices } } }")["games"]
    kato = next(g for g in games if g["id"] == "kato")
    assert (kato["minPlayers"], kato["maxPlayers"]) == (2, 10)
    assert {"random", "heuristic"} <= set(kato["botLevels"])
    stacking = next(o for o in kato["options"] if o["name"] == "stacking")
    assert stacking["type"] == "choice" and stacking["default"] == "none"
    hand = next(o for o in kato["options"] if o["name"] == "hand_size")
    assert (hand["default"], hand["minimum"], hand["maximum"]) == (7, 3, 10)


def test_games_describe_every_bot_level_weakest_first(gql):
    games = gql("{ games { id botLevels botLevelInfo { id description } } }")["games"]
    for game in games:
        info = game["botLevelInfo"]
        assert [i["id"] for i in info] == ["random", "heuristic", "strong"]
        assert sorted(game["botLevels"]) == game["botLevels"] == ["heuristic", "random", "strong"]
        assert all(i["description"] for i in info)


def test_create_table_seats_the_creator_and_fills_default_options(alice):
    data = create(alice, seatCount=3)
    table = data["table"]
    assert data["errors"] == [] and table["mySeat"] == 0 and table["seatCount"] == 3
    assert table["options"]["hand_size"] == 7 and table["inviteCode"]


@pytest.mark.parametrize("options, code, field", [
    ({"hand_size": 99}, "invalid_options", "options.hand_size"),
    ({"stacking": "lots"}, "invalid_options", "options.stacking"),
    ({"no_such_rule": 1}, "unknown_option", "options.no_such_rule"),
])
def test_create_table_rejects_bad_options_with_the_field(alice, options, code, field):
    data = create(alice, options=options)
    assert data["table"] is None
    assert data["errors"][0]["code"] == code and data["errors"][0]["field"] == field
    assert not Table.objects.exists()


def test_create_table_rejects_unknown_game_and_seat_count(alice):
    assert alice(CREATE, {"input": {"game": "chess"}})["createTable"]["errors"][0]["code"] == "unknown_game"
    assert create(alice, seatCount=11)["errors"][0]["code"] == "invalid_seat_count"


def test_join_errors_full_taken_already_seated(alice, bob, gql):
    table = create(alice, seatCount=2)["table"]
    assert alice(JOIN, {"id": table["id"]})["joinTable"]["errors"][0]["code"] == "already_seated"
    assert bob(JOIN, {"id": table["id"], "seat": 0})["joinTable"]["errors"][0]["code"] == "seat_taken"
    assert bob(JOIN, {"id": table["id"], "seat": 5})["joinTable"]["errors"][0]["code"] == "invalid_seat"
    assert bob(JOIN, {"id": table["id"]})["joinTable"]["table"]["mySeat"] == 1
    carol = guest(gql, "Carol")
    assert carol(JOIN, {"id": table["id"]})["joinTable"]["errors"][0]["code"] == "table_full"


def test_private_table_needs_its_invite_code(alice, bob):
    table = create(alice, visibility="PRIVATE")["table"]
    # By id without the code, a private table does not exist for an outsider (issue 14).
    assert bob(JOIN, {"id": table["id"]})["joinTable"]["errors"][0]["code"] == "not_found"
    assert bob(JOIN, {"code": "nope"})["joinTable"]["errors"][0]["code"] == "wrong_invite_code"
    assert bob(JOIN, {"code": table["inviteCode"]})["joinTable"]["table"]["mySeat"] == 1
    lobby = bob("{ tables { items { id } } }")["tables"]["items"]
    assert table["id"] not in [t["id"] for t in lobby]


def test_only_the_creator_starts_and_only_with_enough_players(alice, bob):
    table = create(alice, seatCount=2)["table"]
    assert alice(START, {"id": table["id"]})["startTable"]["errors"][0]["code"] == "not_enough_players"
    bob(JOIN, {"id": table["id"]})
    assert bob(START, {"id": table["id"]})["startTable"]["errors"][0]["code"] == "not_creator"
    assert alice(START, {"id": table["id"]})["startTable"]["table"] == {"status": "PLAYING", "version": 1}
    assert alice(START, {"id": table["id"]})["startTable"]["errors"][0]["code"] == "not_open"


def test_lobby_lists_open_public_tables_with_pagination(alice):
    ids = [create(alice, seatCount=2, join=False)["table"]["id"] for _ in range(5)]
    page = alice("{ tables(first: 3) { items { id } nextCursor } }")["tables"]
    assert [t["id"] for t in page["items"]] == ids[::-1][:3]
    rest = alice("query($c: String) { tables(first: 3, after: $c) { items { id } nextCursor } }",
                 {"c": page["nextCursor"]})["tables"]
    assert [t["id"] for t in rest["items"]] == ids[::-1][3:] and rest["nextCursor"] is None


def test_each_seat_sees_its_own_hand_and_legal_actions_only(alice, bob, gql):
    table_id = two_player_table(alice, bob)
    a = alice(VIEW, {"id": table_id})["table"]["view"]
    b = bob(VIEW, {"id": table_id})["table"]["view"]
    assert a["__typename"] == "KatoView" and a["seat"] == 0
    assert len(a["hand"]) == a["handCounts"][0] and len(b["hand"]) == b["handCounts"][1]
    assert b["seat"] == 1 and a["handCounts"] == b["handCounts"]
    actor = alice if 0 in a["actors"] else bob
    other = bob if actor is alice else alice
    assert other(VIEW, {"id": table_id})["table"]["view"]["legalActions"] == []
    assert actor(VIEW, {"id": table_id})["table"]["view"]["legalActions"]
    spectator = guest(gql, "Spectator")(VIEW, {"id": table_id})["table"]["view"]
    assert spectator["hand"] is None and spectator["legalActions"] == []
    assert spectator["raw"].get("hand") is None


def _actor(clients, table_id):
    view = clients[0](VIEW, {"id": table_id})["table"]
    return view


def test_moves_from_legal_actions_play_a_whole_match(alice, bob):
    table_id = two_player_table(alice, bob)
    clients = [alice, bob]
    for _ in range(2000):
        scheduling.wait_idle(timeout=10)
        table = alice(VIEW, {"id": table_id})["table"]
        if table["status"] != "PLAYING":
            break
        actors = table["view"]["actors"]
        if not actors:
            continue
        client = clients[actors[0]]
        view = client(VIEW, {"id": table_id})["table"]["view"]
        action = view["legalActions"][0]
        result = client(ACT, {"id": table_id, "a": action, "v": table["version"]})["act"]
        assert result["errors"] == [], (action, result)
        assert result["version"] == table["version"] + 1
    scheduling.wait_idle(timeout=10)
    table = alice(VIEW, {"id": table_id})["table"]
    assert table["status"] == "FINISHED" and len(table["result"]["placings"]) == 2


def test_stale_version_not_seated_and_not_your_turn(alice, bob, gql):
    table_id = two_player_table(alice, bob)
    view = alice(VIEW, {"id": table_id})["table"]["view"]
    actor, waiter = (alice, bob) if 0 in view["actors"] else (bob, alice)
    action = actor(VIEW, {"id": table_id})["table"]["view"]["legalActions"][0]
    stale = actor(ACT, {"id": table_id, "a": action, "v": 0})["act"]["errors"][0]
    assert stale["code"] == "stale_version" and stale["field"] == "expectedVersion"
    assert waiter(ACT, {"id": table_id, "a": {"draw": True}, "v": 1})["act"]["errors"][0]["code"] == "not_your_turn"
    stranger = guest(gql, "Stranger")
    assert stranger(ACT, {"id": table_id, "a": {"draw": True}, "v": 1})["act"]["errors"][0]["code"] == "not_seated"
    assert TableLogEntry.objects.filter(table__public_id=table_id, kind="action").count() == 0


def test_illegal_and_malformed_moves_are_typed_and_change_nothing(alice, bob):
    table_id = two_player_table(alice, bob)
    view = alice(VIEW, {"id": table_id})["table"]["view"]
    actor = alice if 0 in view["actors"] else bob
    before = Table.objects.get(public_id=table_id).state
    for action, code in [({"play": {"cards": ["not-a-card"]}}, None),
                         ({"draw": False}, "malformed_action"),
                         ({"catch": {"seat": 9}}, None)]:
        err = actor(ACT, {"id": table_id, "a": action, "v": 1})["act"]["errors"][0]
        assert err["field"] == "action" and (code is None or err["code"] == code)
    response = actor.raw(ACT, {"id": table_id, "a": {"draw": True, "pass": True}, "v": 1})
    assert response.json()["errors"]  # @oneOf: exactly one move
    assert Table.objects.get(public_id=table_id).state == before


def test_same_idempotency_key_applies_once_and_answers_the_same(alice, bob):
    table_id = two_player_table(alice, bob)
    view = alice(VIEW, {"id": table_id})["table"]["view"]
    actor = alice if 0 in view["actors"] else bob
    action = actor(VIEW, {"id": table_id})["table"]["view"]["legalActions"][0]
    first = actor(ACT, {"id": table_id, "a": action, "v": 1, "k": "move-1"})["act"]
    again = actor(ACT, {"id": table_id, "a": action, "v": 1, "k": "move-1"})["act"]
    assert first["errors"] == [] and not first["replayed"]
    assert again["replayed"] and (again["version"], again["seq"]) == (first["version"], first["seq"])
    assert TableLogEntry.objects.filter(table__public_id=table_id, kind="action").count() == 1


def test_events_query_redacts_other_seats_cards(alice, bob):
    table_id = two_player_table(alice, bob)
    for _ in range(10):  # until someone draws (a wild turned up asks for a colour first)
        table = alice(VIEW, {"id": table_id})["table"]
        actor, other = (alice, bob) if 0 in table["view"]["actors"] else (bob, alice)
        legal = actor(VIEW, {"id": table_id})["table"]["view"]["legalActions"]
        move = {"draw": True} if {"draw": True} in legal else legal[0]
        assert actor(ACT, {"id": table_id, "a": move, "v": table["version"]})["act"]["errors"] == []
        if move == {"draw": True}:
            break
    q = 'query($id: ID!) { table(id: $id) { events(afterSeq: 0) { seq kind events { type data } } } }'
    mine = actor(q, {"id": table_id})["table"]["events"]
    theirs = other(q, {"id": table_id})["table"]["events"]
    assert [u["seq"] for u in mine] == [u["seq"] for u in theirs]  # every seq for everyone
    drew_mine = [e for u in mine for e in u["events"] if "cards" in e["data"]]
    # The actor's own draws never reach the other seat (the other's forced draws do: theirs).
    actor_seat = 0 if actor is alice else 1
    drew_theirs = [e for u in theirs for e in u["events"] if e["type"] == "drew_cards"
                   and e["data"]["seat"] == actor_seat]
    assert drew_mine and not drew_theirs
    assert "cards" not in json.dumps([e for u in theirs for e in u["events"] if e["type"] == "drew"])


def test_abort_by_creator_or_staff_only(alice, bob):
    table = create(alice, seatCount=2)["table"]
    q = 'mutation($id: ID!) { abortTable(tableId: $id, reason: "test") { table { status } errors { code } } }'
    assert bob(q, {"id": table["id"]})["abortTable"]["errors"][0]["code"] == "not_creator"
    assert alice(q, {"id": table["id"]})["abortTable"]["table"]["status"] == "ABORTED"


def test_leave_before_start_frees_the_seat_and_during_play_hands_it_to_a_bot(alice, bob):
    q = 'mutation($id: ID!) { leaveTable(tableId: $id) { table { seats { position takenOverByBot } } errors { code } } }'
    table = create(alice, seatCount=2)["table"]
    bob(JOIN, {"id": table["id"]})
    assert bob(q, {"id": table["id"]})["leaveTable"]["table"]["seats"] == [{"position": 0, "takenOverByBot": False}]
    table_id = two_player_table(alice, bob)
    seats = bob(q, {"id": table_id})["leaveTable"]["table"]["seats"]
    assert seats[1]["takenOverByBot"]
    scheduling.wait_idle(timeout=10)


def test_replay_never_returns_an_entry_newer_than_its_view(alice, bob, monkeypatch):
    """A change committing while a subscription reads the log must not be replayed without
    its view (its live message is then skipped as already seen, and the client waits)."""
    from accounts.models import Player
    from games import selectors, services
    from games.api import live as games_live

    table = create(alice, seatCount=2)["table"]
    bob(JOIN, {"id": table["id"]})
    creator = Player.objects.get(pk=Table.objects.get(public_id=table["id"]).creator_id)
    original = selectors.log_after

    def log_after_while_the_table_starts(table_id, after_seq, *args):
        monkeypatch.setattr(selectors, "log_after", original)
        services.table_start(player=creator, table_id=table_id)  # commits mid-replay
        return original(table_id, after_seq, *args)

    monkeypatch.setattr(selectors, "log_after", log_after_while_the_table_starts)
    entries, seat, status, view, last_seq = games_live._replay(
        table_pk_from_public(table["id"]), creator, 0)
    assert entries[-1].seq <= last_seq
    assert entries[-1].kind == "start" and entries[-1].seq == last_seq and view is not None
