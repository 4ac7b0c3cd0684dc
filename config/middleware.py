"""Two Django handlers on one ASGI app: the API without the admin's middleware.

Django's session, auth, CSRF, message, clickjacking and security middleware are old-style:
under ASGI each runs its hooks through ``sync_to_async``, two thread hops apiece (and CSRF's
``process_view`` one more) on every request. ``/graphql/`` authenticates with bearer tokens
and needs none of them. So ``settings.MIDDLEWARE`` lists the real middleware, as the admin
and ``manage.py check --deploy`` expect them, and serves every path but the API; the API's
own handler is built from ``API_MIDDLEWARE`` (CORS only, natively async). config/asgi.py
sends ``/graphql`` and ``/graphql/...`` to it. Static files come first, with cache headers
(:class:`CachedStaticFiles`).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import ThreadSensitiveContext
from django.conf import settings
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
from django.core.handlers.asgi import ASGIHandler

API_PREFIX = "/graphql"


def is_api_path(path: str) -> bool:
    return path == API_PREFIX or path.startswith(API_PREFIX + "/")


class RequestThreads:
    """Single-thread executors kept for the next request.

    Django's ``ASGIHandler`` serves each request in a ``ThreadSensitiveContext`` of its own,
    so the request's sync code (the request signals, a sync view, the ORM) runs on one thread
    of its own, as WSGI would. Without an executor, asgiref starts a new thread for every
    request and, when it ends, another one to join it: two thread starts and a join per
    request, a tenth of an HTTP move's CPU (py-spy, tests/bench/bench_live.py). Given an
    executor, asgiref uses it and leaves it running (the caller owns it), so the threads are
    kept here and handed to the next request: still one thread per request at a time, the
    same isolation, no thread started. Up to ``keep`` idle ones are kept."""

    def __init__(self, keep: int = 64) -> None:
        self.keep = keep
        self.idle: list[ThreadPoolExecutor] = []

    def take(self) -> ThreadPoolExecutor:
        if self.idle:
            return self.idle.pop()
        return ThreadPoolExecutor(max_workers=1, thread_name_prefix="stapel-request")

    def give_back(self, executor: ThreadPoolExecutor) -> None:
        if len(self.idle) < self.keep:
            self.idle.append(executor)
        else:
            executor.shutdown(wait=False)


class SiteHandler(ASGIHandler):
    """Django's ASGI handler, each request on a kept thread (:class:`RequestThreads`)."""

    def __init__(self) -> None:
        super().__init__()
        self.threads = RequestThreads()

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        executor = self.threads.take()
        try:
            async with ThreadSensitiveContext(executor=executor):
                await self.handle(scope, receive, send)
        finally:
            self.threads.give_back(executor)


class ApiHandler(SiteHandler):
    """Django's ASGI handler with ``settings.API_MIDDLEWARE`` instead of ``MIDDLEWARE``."""

    def load_middleware(self, is_async: bool = False) -> None:
        # Django builds the chain from settings.MIDDLEWARE only. This runs once, when the
        # ASGI app is made (config/asgi.py, before it serves anything), so the list is
        # swapped for the duration of that call and put back.
        site_middleware = settings.MIDDLEWARE
        settings.MIDDLEWARE = list(settings.API_MIDDLEWARE)
        try:
            super().load_middleware(is_async)
        finally:
            settings.MIDDLEWARE = site_middleware


def split_by_path(api, site):
    """An ASGI app sending API paths to ``api`` and the rest to ``site``."""

    async def app(scope, receive, send):
        target = api if is_api_path(scope.get("path", "")) else site
        await target(scope, receive, send)

    return app


class CachedStaticFiles(ASGIStaticFilesHandler):
    """Django's ASGI static handler (finders, no collectstatic needed, natively async: no
    thread hop like WhiteNoise's sync middleware) with a ``Cache-Control`` header. It keeps
    ``Last-Modified``, so a client revalidates with a cheap 304 after ``STATIC_MAX_AGE``.
    Behind the shipped nginx the proxy serves /static/ itself (deploy/nginx.conf)."""

    async def get_response_async(self, request):
        response = await super().get_response_async(request)
        if response.status_code in (200, 304):
            response["Cache-Control"] = f"public, max-age={settings.STATIC_MAX_AGE}"
        return response
