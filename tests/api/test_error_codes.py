"""Error codes are a GraphQL enum owned by the domains: every code the code raises is in it,
and every game declares the codes its own rules raise."""

import pathlib
import re

import pytest

from config.api import ErrorCode, all_codes
from games.engine import GAMES
from games.engine.declaration import ENGINE_CODES

ROOT = pathlib.Path(__file__).resolve().parents[2]
RAISED = re.compile(
    r'(?:Error|IllegalAction|InvalidOptions|InvalidDeck|UserError|RateLimited|ReadTimeout)'
    r'\(\s*(?:code=)?"([a-z][a-z0-9_]*)"')
EITHER = re.compile(r'(?:Error|IllegalAction)\(\s*\n?\s*"([a-z][a-z0-9_]*)" if [^\n]* '
                    r'else "([a-z][a-z0-9_]*)"')


def codes_in(path: pathlib.Path) -> set[str]:
    text = path.read_text()
    found = {m.group(1) for m in RAISED.finditer(text)}
    for m in EITHER.finditer(text):
        found.update(m.groups())
    return found


def test_every_code_the_services_and_engines_raise_is_in_the_enum():
    sources = [p for package in ("accounts", "games", "tournaments", "config")
               for p in (ROOT / package).rglob("*.py") if "migrations" not in p.parts]
    raised = set().union(*(codes_in(p) for p in sources))
    assert len(raised) > 100
    assert raised - set(all_codes()) == set()


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_each_game_declares_the_codes_its_rules_raise(game_id):
    decl = GAMES[game_id].declaration
    raised = codes_in(ROOT / "games" / "engine" / f"{game_id}.py")
    assert raised - set(decl.codes) - set(ENGINE_CODES) == set()
    assert set(decl.codes) <= raised, "a declared code the game never raises"


def test_error_codes_are_an_enum_in_the_schema_with_the_codes_as_values(gql):
    field = gql('{ __type(name: "UserError") { fields { name type { ofType { name kind } } } } }')
    code = next(f for f in field["__type"]["fields"] if f["name"] == "code")
    assert code["type"]["ofType"] == {"name": "ErrorCode", "kind": "ENUM"}
    values = gql('{ __type(name: "ErrorCode") { enumValues { name } } }')
    names = {v["name"] for v in values["__type"]["enumValues"]}
    assert {"not_found", "stale_version", "missing_field", "color_required",
            "rank_not_allowed", "rate_limited"} <= names
    assert ErrorCode("not_found") == "not_found"


@pytest.mark.django_db(transaction=True)
def test_a_payload_error_reads_as_the_same_string_as_before(gql):
    answer = gql('mutation { login(username: "nobody", password: "x") { errors { code } } }')
    assert answer["login"]["errors"] == [{"code": "invalid_credentials"}]
