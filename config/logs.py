"""Structured logs: one JSON object per line, from our code and from every library alike.

structlog renders both: our own ``structlog.get_logger()`` calls and the standard library's
records (Django, Celery, uvicorn, channels) go through one ``ProcessorFormatter``, so a log
shipper sees one format. Its context variables follow a request into every coroutine, thread
hop (asgiref copies the context to ``sync_to_async`` threads) and on-commit callback, which is
how the request id reaches the Celery tasks a request enqueued (config/celery_signals.py puts
it in the task's headers and binds it again in the worker). python-json-logger was the other
candidate; it formats records but has no context binding, which is the part we need.

Lines written here:

- ``event="request"``: one per HTTP request, written by :class:`RequestLog` when the answer is
  sent: method, path (never the query string), status, duration, client address, and for
  GraphQL the operation and its outcome. An expected 4xx answer is this line only, at
  ``info``, without a traceback.
- ``event="websocket"``: one per websocket session, when it ends: accepted or refused, close
  code, frames each way, duration.
- ``event="task"``: one per Celery task run (config/celery_signals.py).

The request id is the caller's ``X-Request-ID`` when it is a short token of safe characters,
else a new one; it is sent back in the ``X-Request-ID`` response header.

Nothing secret is written: :func:`redact` blanks fields named like a secret (tokens,
passwords, authorization, cookies, hands, cards) and API tokens or bearer credentials inside
any text, tracebacks included. Query strings and request bodies are never logged.
"""

from __future__ import annotations

import contextvars
import logging
import logging.config
import re
import time
import uuid
from typing import Any

import structlog

REQUEST_ID_HEADER = "x-request-id"
_REQUEST_ID_OK = re.compile(r"[A-Za-z0-9._:@/+=-]{1,128}")

# The fields of the request or websocket session in progress: code deeper down adds to them
# (note()), and RequestLog writes them in its one line. A dict shared by reference, because
# Django runs the view in a task of its own whose context changes never flow back.
_fields: contextvars.ContextVar[dict | None] = contextvars.ContextVar("stapel_log_fields",
                                                                     default=None)

access_log = structlog.get_logger("stapel.access")

# --- redaction -------------------------------------------------------------------------------
REDACTED = "[redacted]"
_SECRET_KEY = re.compile(r"password|passwd|secret|authorization|cookie|token$|^token|"
                         r"^(hand|hands|cards|deck|draw_pile|hidden|game_state|invite_code|signature)$",
                         re.IGNORECASE)
_SECRET_TEXT = (
    (re.compile(r"stp_[A-Za-z0-9_\-]+"), "stp_" + REDACTED),  # our API tokens
    (re.compile(r"(?i)\b(bearer)\s+[^\s\"',;]+"), r"\1 " + REDACTED),
    (re.compile(r"(?i)(\"?(?:password|new_password|current_password|newPassword|"
                r"currentPassword)\"?\s*[:=]\s*)(\"[^\"]*\"|'[^']*'|[^\s,}]+)"),
     r"\1" + '"' + REDACTED + '"'),
)


def _scrub(value: Any, depth: int = 0) -> Any:
    if isinstance(value, str):
        for pattern, replacement in _SECRET_TEXT:
            value = pattern.sub(replacement, value)
        return value
    if depth > 4:
        return value
    if isinstance(value, dict):
        return {k: REDACTED if isinstance(k, str) and _SECRET_KEY.search(k)
                else _scrub(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_scrub(v, depth + 1) for v in value]
    return value


def redact(_logger, _name, event_dict: dict) -> dict:
    """structlog processor: no token, password, hand or hidden card leaves in a log line."""
    for key, value in list(event_dict.items()):
        if key != "event" and _SECRET_KEY.search(key):
            event_dict[key] = REDACTED
        else:
            event_dict[key] = _scrub(value)
    return event_dict


# --- configuration -----------------------------------------------------------------------------
_PRE_CHAIN = [
    structlog.contextvars.merge_contextvars,
    structlog.stdlib.add_log_level,
    structlog.stdlib.add_logger_name,
    structlog.processors.TimeStamper(fmt="iso", utc=True, key="ts"),
]


class NoTraceback(logging.Filter):
    """Django logs a refused Host header or a bad signature (``django.security.*``, answered
    400) with its traceback; for a client's mistake the request line says enough."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.startswith("django.security"):
            record.exc_info = None
            record.exc_text = None
        return True


class NoConnectionChatter(logging.Filter):
    """uvicorn says at ``info`` that each websocket was accepted, opened, closed: the
    session's own line (``event="websocket"``) says all of that once."""

    CHATTER = frozenset({'%s - "WebSocket %s" [accepted]', '%s - "WebSocket %s" %d',
                         '%s - "WebSocket %s" 403', "connection open", "connection closed"})

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.levelno <= logging.INFO and record.msg in self.CHATTER)


def logging_settings(level: str = "INFO", fmt: str = "json") -> dict:
    """Django's LOGGING: every record through structlog's formatter on stderr."""
    renderer = (structlog.dev.ConsoleRenderer(colors=False) if fmt == "console"
                else structlog.processors.JSONRenderer())
    processors = [structlog.stdlib.ProcessorFormatter.remove_processors_meta]
    if fmt != "console":
        processors.append(structlog.processors.format_exc_info)
    processors += [redact, renderer]
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"structured": {"()": structlog.stdlib.ProcessorFormatter,
                                      "processors": processors,
                                      "foreign_pre_chain": _PRE_CHAIN}},
        "filters": {"no_traceback": {"()": NoTraceback},
                    "no_connection_chatter": {"()": NoConnectionChatter}},
        "handlers": {"console": {"class": "logging.StreamHandler",
                                 "formatter": "structured", "filters": ["no_traceback"]}},
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            "django.db.backends": {"level": "WARNING"},
            # 4xx answers: Django would add "Not Found: /x" (and the query string) to the
            # request line; 5xx still come with their traceback.
            "django.request": {"level": "ERROR"},
            # uvicorn's own handlers are replaced by ours; its access log by the request line
            # (it would print query strings).
            "uvicorn": {"handlers": ["console"], "propagate": False},
            "uvicorn.error": {"filters": ["no_connection_chatter"]},
            "websockets": {"level": "WARNING"},
            "uvicorn.access": {"handlers": [], "propagate": False, "level": "WARNING"},
            # "Task x succeeded in 0.01s: None" beside our own task line.
            "celery.app.trace": {"level": "WARNING"},
            "celery.worker.strategy": {"level": "WARNING"},  # "Task x received"
        },
    }


def configure(config: dict) -> None:
    """Django's LOGGING_CONFIG: the standard library from ``config``, and structlog."""
    logging.config.dictConfig(config)
    structlog.configure(
        processors=[structlog.stdlib.filter_by_level, *_PRE_CHAIN,
                    structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )


# --- request ids and the per-request line ------------------------------------------------------
def new_request_id() -> str:
    return uuid.uuid4().hex


def request_id_from(headers) -> str:
    for name, value in headers or ():
        if name.lower() == REQUEST_ID_HEADER.encode():
            candidate = value.decode("latin-1").strip()
            if _REQUEST_ID_OK.fullmatch(candidate):
                return candidate
            break
    return new_request_id()


def current_request_id() -> str | None:
    return structlog.contextvars.get_contextvars().get("request_id")


def note(**fields) -> bool:
    """Add fields to the line of the request or websocket session in progress (False when
    there is none, e.g. in a task)."""
    current = _fields.get()
    if current is None:
        return False
    current.update(fields)
    return True


class RequestLog:
    """ASGI middleware: a request id for every HTTP request and websocket session, bound to
    the logging context, and one line for each when it ends."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        request_id = request_id_from(scope.get("headers"))
        fields: dict[str, Any] = {}
        fields_token = _fields.set(fields)
        bound = structlog.contextvars.bind_contextvars(request_id=request_id)
        started = time.perf_counter()
        try:
            if scope["type"] == "http":
                await self._http(scope, receive, send, request_id, fields, started)
            else:
                await self._websocket(scope, receive, send, fields, started)
        finally:
            structlog.contextvars.reset_contextvars(**bound)
            _fields.reset(fields_token)

    async def _http(self, scope, receive, send, request_id, fields, started):
        state = {"status": None}
        header = (REQUEST_ID_HEADER.encode(), request_id.encode())

        async def send_with_id(message):
            if message["type"] == "http.response.start":
                state["status"] = message["status"]
                message = {**message, "headers": [*message.get("headers", ()), header]}
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except BaseException:
            state["status"] = state["status"] or 500
            raise
        finally:
            status = state["status"] or 500
            level = logging.ERROR if status >= 500 else logging.INFO
            access_log.log(level, "request", method=scope.get("method"),
                           path=scope.get("path"), status=status,
                           duration_ms=_ms(started), client=_client(scope), **fields)

    async def _websocket(self, scope, receive, send, fields, started):
        state = {"accepted": False, "close_code": None, "frames_in": 0, "frames_out": 0}

        async def counting_receive():
            message = await receive()
            if message["type"] == "websocket.receive":
                state["frames_in"] += 1
            elif message["type"] == "websocket.disconnect":
                state["close_code"] = state["close_code"] or message.get("code", 1005)
            return message

        async def counting_send(message):
            kind = message["type"]
            if kind == "websocket.accept":
                state["accepted"] = True
            elif kind == "websocket.send":
                state["frames_out"] += 1
            elif kind == "websocket.close":
                state["close_code"] = state["close_code"] or message.get("code", 1000)
            await send(message)

        try:
            await self.app(scope, counting_receive, counting_send)
        finally:
            access_log.info("websocket", path=scope.get("path"), duration_ms=_ms(started),
                            client=_client(scope), **state, **fields)


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)


def _client(scope) -> str | None:
    client = scope.get("client")
    return client[0] if client else None
