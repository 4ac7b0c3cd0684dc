"""One API input means the same in every game: the same malformed move gets the same code
whichever game the table plays (the declaration checks the shape; the game only judges
legality). Explicit nulls are dropped by the API, in every game alike."""

import pytest

from .test_tables import ACT, CREATE, JOIN, START, guest

pytestmark = pytest.mark.django_db(transaction=True)

VERSION = "query($id: ID!) { table(id: $id) { version } }"

# A `play` field each game does not take, and (for the null case) one it does not take either.
FOREIGN_PLAY_FIELD = {"kato": "index", "karma": "index", "aetsch": "index",
                      "krass_kariert": "card"}
PLAYERS = {"kato": 2, "karma": 2, "aetsch": 2, "krass_kariert": 3}


def started_table(gql, game):
    alice = guest(gql, "Alice")
    table = alice(CREATE, {"input": {"game": game, "seatCount": PLAYERS[game]}})
    table_id = table["createTable"]["table"]["id"]
    for k in range(PLAYERS[game] - 1):
        other = guest(gql, f"Player {k}")
        assert other(JOIN, {"id": table_id})["joinTable"]["errors"] == []
    assert alice(START, {"id": table_id})["startTable"]["errors"] == []
    return alice, table_id


def answer(client, table_id, action):
    version = client(VERSION, {"id": table_id})["table"]["version"]
    body = client.raw(ACT, {"id": table_id, "a": action, "v": version}).json()
    if body.get("errors"):
        return sorted({e["extensions"]["code"] for e in body["errors"]})
    return [e["code"] for e in body["data"]["act"]["errors"]]


def mistakes(game):
    foreign = FOREIGN_PLAY_FIELD[game]
    other_type = "takePile" if game != "karma" else "reroll"
    return {
        "missing field": ({"play": {}}, ["missing_field"]),
        "extra null field": ({"play": {foreign: None}}, ["missing_field"]),
        "unknown field": ({"play": {foreign: 0 if foreign == "index" else "x"}},
                          ["unknown_field"]),
        "wrong type": ({"play": {"cards": 5, "card": 5, "index": "a"}},
                       ["graphql_validation_failed"]),
        "an action of another game": ({other_type: True}, ["unknown_action"]),
        "a flag that is not true": ({other_type: False}, ["malformed_action"]),
    }


def test_the_same_malformed_move_gets_the_same_code_in_every_game(gql):
    answers = {}
    for game in PLAYERS:
        alice, table_id = started_table(gql, game)
        answers[game] = {name: answer(alice, table_id, action)
                         for name, (action, _) in mistakes(game).items()}
    expected = {name: code for name, (_, code) in mistakes("kato").items()}
    assert answers == {game: expected for game in PLAYERS}
