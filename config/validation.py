"""Client input checked once at the edge, so a client's mistake is answered as one.

- Request bodies: strict UTF-8, JSON nested at most ``MAX_JSON_DEPTH`` deep, no number of
  more than ``MAX_NUMBER_DIGITS`` digits, one operation as an object. Anything else is a 400
  with a JSON body and the code ``bad_request`` (it used to be Django's HTML 500 page).
- Strings: a NUL byte (PostgreSQL refuses it in text and JSONB) or a lone surrogate (it
  cannot be encoded as UTF-8) in any variable or literal argument is refused before any
  resolver runs, with ``invalid_input`` and ``field`` naming the argument (``input.game``).
  Every string argument of every operation passes here, so no service needs to know.
"""

from __future__ import annotations

import json
import math
import re

from graphql import (
    ArgumentNode,
    GraphQLError,
    ListValueNode,
    ObjectValueNode,
    OperationDefinitionNode,
    StringValueNode,
    VariableNode,
    visit,
)
from graphql.language import Visitor
from strawberry.extensions import ParserCache, SchemaExtension

MAX_JSON_DEPTH = 64
MAX_NUMBER_DIGITS = 100
_BAD_CHARS = re.compile("[\x00\ud800-\udfff]")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


class BadRequest(Exception):
    """A request body that is not one GraphQL request; answered 400 with ``code``."""

    def __init__(self, message: str, code: str = "bad_request"):
        super().__init__(message)
        self.code = code
        self.message = message


def _number(text: str):
    if len(text) > MAX_NUMBER_DIGITS:
        raise BadRequest(f"a number in the body has more than {MAX_NUMBER_DIGITS} digits")
    if not any(c in text for c in ".eE"):
        return int(text)
    number = float(text)
    if not math.isfinite(number):
        raise BadRequest(f"the number {text} is out of range")
    return number


def _depth_ok(text: str) -> bool:
    """Whether no array or object nests deeper than MAX_JSON_DEPTH (strings skipped), checked
    before parsing: the parser would recurse once per level."""
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        return True  # the common case, at C speed
    depth, in_string, escaped = 0, False, False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                return False
        elif char in "]}":
            depth -= 1
    return True


def decode_body(data: str | bytes):
    """The JSON of a request body or a websocket frame, or ``BadRequest``."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            raise BadRequest("the body is not valid UTF-8") from None
    if not _depth_ok(data):
        raise BadRequest(f"the JSON nests deeper than {MAX_JSON_DEPTH} levels")
    try:
        return json.loads(data, parse_int=_number, parse_float=_number,
                          parse_constant=_constant)
    except BadRequest:
        raise
    except (ValueError, RecursionError):
        raise BadRequest("the body is not valid JSON") from None


def _constant(name: str):
    raise BadRequest(f"{name} is not JSON")


def decode_request(data: str | bytes) -> dict:
    body = decode_body(data)
    if not isinstance(body, dict):
        raise BadRequest("send one GraphQL request as a JSON object: "
                         '{"query": "...", "variables": {...}}')
    return body


def bad_string(value) -> str | None:
    """The path (".a.0") of the first string holding a NUL or a lone surrogate, or None."""
    if isinstance(value, str):
        return "" if _BAD_CHARS.search(value) else None
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str) and _BAD_CHARS.search(key):
                return f".{key.encode('unicode_escape').decode()}"
            path = bad_string(item)
            if path is not None:
                return f".{key}{path}"
    elif isinstance(value, list):
        for i, item in enumerate(value):
            path = bad_string(item)
            if path is not None:
                return f".{i}{path}"
    return None


class _Arguments(Visitor):
    """Which argument each variable feeds, and the first bad literal string."""

    def __init__(self):
        super().__init__()
        self.variables: dict[str, str] = {}
        self.bad_literal: str | None = None

    def enter_argument(self, node: ArgumentNode, *_):
        self._value(node.value, node.name.value)

    def _value(self, value, path: str):
        if isinstance(value, VariableNode):
            self.variables.setdefault(value.name.value, path)
        elif isinstance(value, StringValueNode):
            if self.bad_literal is None and _BAD_CHARS.search(value.value):
                self.bad_literal = path
        elif isinstance(value, ListValueNode):
            for i, item in enumerate(value.values):
                self._value(item, f"{path}.{i}")
        elif isinstance(value, ObjectValueNode):
            for field in value.fields:
                self._value(field.value, f"{path}.{field.name.value}")


def string_error(document, variables: dict | None) -> GraphQLError | None:
    visitor = _Arguments()
    for definition in document.definitions:
        if isinstance(definition, OperationDefinitionNode):
            visit(definition, visitor)
    field = visitor.bad_literal
    if field is None:
        for name, value in (variables or {}).items():
            path = bad_string(value)
            if path is not None:
                field = visitor.variables.get(name, name) + path
                break
    if field is None:
        return None
    return GraphQLError(f"{field}: text may not contain NUL characters or unpaired surrogates",
                        extensions={"code": "invalid_input", "field": field})


class StringInputValidation(SchemaExtension):
    """Refuses NUL bytes and lone surrogates in any argument of a valid operation; it comes
    after the validation cache (it sees valid documents only)."""

    def on_validate(self):
        ctx = self.execution_context
        if not ctx.pre_execution_errors and ctx.graphql_document is not None:
            variables = ctx.variables if isinstance(ctx.variables, dict) else None
            error = string_error(ctx.graphql_document, variables)
            if error is not None:
                ctx.pre_execution_errors = [error]
        yield


class SafeParserCache(ParserCache):
    """Strawberry's parser cache, minus a fault: it parses inside the extension hook, where a
    syntax error escapes strawberry's own error handling (an HTTP 500; over the websocket a
    bare ``complete`` and a traceback in the log). On a syntax error it leaves the document
    unset, and strawberry parses again where the error becomes an answer."""

    def on_parse(self):
        try:
            yield from super().on_parse()
        except GraphQLError:
            self.execution_context.graphql_document = None
            yield
