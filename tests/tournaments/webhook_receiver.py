"""A real HTTP receiver for webhook tests, on 127.0.0.1 and a free port, in a thread.

``answers`` decides each request's status code (a callable of the request number and the
``webhook-id``); every request is kept with its headers and body."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    path: str
    headers: dict
    body: bytes
    status: int


@dataclass
class Receiver:
    answer: object = None          # (n, message_id) -> status; None: always 204
    delay: float = 0.0
    requests: list[Received] = field(default_factory=list)
    redirect_to: str | None = None

    def __post_init__(self):
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                headers = {k.lower(): v for k, v in self.headers.items()}
                with receiver._lock:
                    n = len(receiver.requests)
                    status = (receiver.answer(n, headers.get("webhook-id"))
                              if receiver.answer else 204)
                    receiver.requests.append(Received(self.path, headers, body, status))
                if receiver.delay:
                    time.sleep(receiver.delay)
                self.send_response(status)
                if receiver.redirect_to:
                    self.send_header("Location", receiver.redirect_to)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self._lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hooks"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
