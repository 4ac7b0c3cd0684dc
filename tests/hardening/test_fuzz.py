"""Fuzzing the API from ``schema.graphql``: whatever a client sends, the answer is a GraphQL
answer or a 4xx with a code, never a 5xx, never ``internal_error``, never a traceback in the
server log.

- HTTP documents: hypothesis-graphql builds valid queries and mutations from the schema
  (strings with NUL bytes and lone surrogates, no UTF-8 codec) and invalid ones too
  (``Mode.NEGATIVE``).
- HTTP variables: every root field called with every argument as a variable, the variables
  drawn from any JSON (huge and fractional numbers, deep lists, NUL and surrogates, wrong
  types), plus raw bodies that are not JSON at all.
- Websocket frames: any JSON value or text as a frame after ``connection_init``: the socket
  answers or closes with 4400, and never goes silent.

In CI the example set is fixed (derandomized, see tests/conftest.py) and bounded; locally
each run explores new examples. The counts of what ran are printed (``-s``) for the report.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from graphql import build_schema, get_named_type, is_input_object_type, print_type
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_graphql import Mode, from_schema, nodes

from config.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)

SCHEMA_TEXT = (Path(__file__).resolve().parents[2] / "schema.graphql").read_text()
SCHEMA = build_schema(SCHEMA_TEXT)
CI = bool(os.environ.get("CI"))
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", 150 if CI else 300))
FUZZ = settings(max_examples=EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow, HealthCheck.filter_too_much,
                                       HealthCheck.data_too_large])
STATS: Counter = Counter()

NASTY_TEXT = st.one_of(st.text(st.characters(codec=None), max_size=20),
                       st.sampled_from(["\x00", "a\x00b", "\ud800", "x\udfff", "kato", "",
                                        "1", "-1", "open", "stp_" + "a" * 43]))
HUGE_INT = st.one_of(st.integers(), st.integers(min_value=2**31, max_value=10**40),
                     st.integers(max_value=-(2**31)))
JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), HUGE_INT, st.floats(allow_nan=False,
                                                            allow_infinity=False), NASTY_TEXT),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(NASTY_TEXT, inner, max_size=4)),
    max_leaves=12)


def _json_node(value):
    if value is None:
        return nodes.Null
    if isinstance(value, bool):
        return nodes.Boolean(value)
    if isinstance(value, int):
        return nodes.Int(value)
    if isinstance(value, float):
        return nodes.Float(value)
    if isinstance(value, str):
        return nodes.String(value)
    return nodes.String(json.dumps(value))


CUSTOM_SCALARS = {"JSON": JSON_VALUES.map(_json_node),
                  "DateTime": st.sampled_from(["2026-12-03T10:00:00+00:00", "x", "\x00"])
                  .map(nodes.String)}


def _documents(kind):
    mode = Mode.POSITIVE if kind == "positive" else Mode.NEGATIVE
    return from_schema(SCHEMA_TEXT, custom_scalars=CUSTOM_SCALARS, codec=None, allow_x00=True,
                       mode=mode)


def _variable_documents():
    """One document per root field, every argument a variable, selecting ``__typename``
    (or nothing, for scalars)."""
    docs = []
    for kind, root in (("query", SCHEMA.query_type), ("mutation", SCHEMA.mutation_type)):
        for name, field in root.fields.items():
            if not field.args:
                continue
            params = ", ".join(f"${a}: {arg.type}" for a, arg in field.args.items())
            args = ", ".join(f"{a}: ${a}" for a in field.args)
            leaf = get_named_type(field.type)
            selection = "" if not hasattr(leaf, "fields") else " { __typename }"
            docs.append((f"{kind}({params}) {{ {name}({args}){selection} }}",
                         list(field.args)))
    return docs


VARIABLE_DOCUMENTS = _variable_documents()
assert len(VARIABLE_DOCUMENTS) > 20, "the schema has lost its arguments?"
# The input types' own fields, so variables are sometimes close to right (and deep).
INPUT_FIELDS = {name: list(t.fields) for name, t in SCHEMA.type_map.items()
                if is_input_object_type(t)}
assert print_type(SCHEMA.type_map["ActionInput"])


def _near_input(fields):
    return st.dictionaries(st.sampled_from(fields + ["zzz"]), JSON_VALUES, max_size=4)


VARIABLES = st.one_of(JSON_VALUES, *[_near_input(f) for f in INPUT_FIELDS.values()])


@pytest.fixture
def token(gql):
    return gql('mutation { createGuest(displayName: "Fuzz") { token } }')["createGuest"]["token"]


def _faults(caplog) -> list[str]:
    return [f"{r.name}: {r.getMessage()[:200]}" for r in caplog.records
            if r.levelname in ("ERROR", "CRITICAL") or r.exc_info]


def _check_http(response, caplog, what):
    STATS["http requests"] += 1
    assert response.status_code < 500, (what, response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json"), (what, response.content[:200])
    body = response.json()
    codes = [(e.get("extensions") or {}).get("code") for e in body.get("errors") or []]
    STATS.update(f"code {c}" for c in codes)
    assert "internal_error" not in codes, (what, body)
    assert not _faults(caplog), (what, _faults(caplog))
    caplog.clear()


def _post(client, token, body: bytes | str):
    client.raise_request_exception = False
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    return client.generic("POST", "/graphql/", body, content_type="application/json", **headers)


@pytest.mark.parametrize("kind", ["positive", "negative"])
def test_fuzzed_documents_over_http_are_answers(client, token, caplog, kind):
    @FUZZ
    @given(document=_documents(kind), signed_in=st.booleans())
    def run(document, signed_in):
        STATS[f"{kind} documents"] += 1
        response = _post(client, token if signed_in else None,
                         json.dumps({"query": document}))
        _check_http(response, caplog, document)

    run()
    print(dict(STATS))


def test_fuzzed_variables_over_http_are_answers(client, token, caplog):
    @FUZZ
    @given(doc=st.sampled_from(VARIABLE_DOCUMENTS), data=st.data())
    def run(doc, data):
        query, names = doc
        variables = {name: data.draw(VARIABLES, label=name) for name in names
                     if data.draw(st.booleans(), label=f"send {name}")}
        STATS["variable operations"] += 1
        _check_http(_post(client, token, json.dumps({"query": query,
                                                     "variables": variables})),
                    caplog, (query, variables))

    run()
    print(dict(STATS))


RAW_BODIES = st.one_of(
    st.binary(max_size=200),
    JSON_VALUES.map(json.dumps),
    st.sampled_from([b"[" * 20000, b'{"query": "{ games { id } }", "variables": {"n": '
                     + b"9" * 6000 + b"}}", b'{"query": "{ games { id } }", "x": 1e999}',
                     b'{"query": NaN}', b'{"query": "{ me { id } }"}' + b"\xff"]))


def test_fuzzed_raw_bodies_are_a_json_answer(client, token, caplog):
    @FUZZ
    @given(body=RAW_BODIES)
    def run(body):
        STATS["raw bodies"] += 1
        _check_http(_post(client, token, body), caplog, body[:100])

    run()
    print(dict(STATS))


FRAMES = st.one_of(
    JSON_VALUES.map(json.dumps),
    st.text(st.characters(codec=None), max_size=50).filter(lambda s: s.strip() != ""),
    st.fixed_dictionaries({"type": st.sampled_from(["subscribe", "complete", "ping", "pong",
                                                    "connection_init", "next", "x"]),
                           "id": JSON_VALUES, "payload": JSON_VALUES}).map(json.dumps),
    st.fixed_dictionaries({"type": st.just("subscribe"), "id": st.text(max_size=5),
                           "payload": st.fixed_dictionaries({
                               "query": st.one_of(NASTY_TEXT, _documents("positive")),
                               "variables": JSON_VALUES})}).map(json.dumps),
)


async def _one_frame(token, frame) -> str:
    comm = WebsocketCommunicator(application, "/graphql/", subprotocols=["graphql-transport-ws"])
    connected, _ = await comm.connect()
    assert connected
    try:
        await comm.send_json_to({"type": "connection_init", "payload": {"token": token}})
        assert (await comm.receive_json_from(timeout=5))["type"] == "connection_ack"
        await comm.send_to(text_data=frame)
        # A ping after the frame: the socket must answer it (pong, after any answer to the
        # frame) or be closed with 4400, never go silent.
        await comm.send_json_to({"type": "ping"})
        while True:
            out = await comm.receive_output(timeout=10)
            if out["type"] == "websocket.close":
                # 4400 invalid message; the protocol's own: 4429 a second connection_init,
                # 4409 an id in use.
                assert out.get("code") in (4400, 4409, 4429), (frame, out)
                return f"closed {out['code']}"
            message = json.loads(out["text"])
            if message["type"] == "pong":
                return "answered"
            if message["type"] in ("next", "error"):
                errors = (message["payload"] if message["type"] == "error"
                          else message["payload"].get("errors") or [])
                codes = [(e.get("extensions") or {}).get("code") for e in errors]
                assert "internal_error" not in codes, (frame, message)
    finally:
        await comm.disconnect()


def test_fuzzed_websocket_frames_are_answered_or_closed_with_4400(token, caplog):
    @settings(FUZZ, max_examples=max(50, EXAMPLES // 2))
    @given(frame=FRAMES)
    def run(frame):
        outcome = async_to_sync(_one_frame)(token, frame)
        STATS[f"ws frames {outcome}"] += 1
        assert not _faults(caplog), (frame, _faults(caplog))
        caplog.clear()

    run()
    print(dict(STATS))
