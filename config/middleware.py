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

from django.conf import settings
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
from django.core.handlers.asgi import ASGIHandler

API_PREFIX = "/graphql"


def is_api_path(path: str) -> bool:
    return path == API_PREFIX or path.startswith(API_PREFIX + "/")


class ApiHandler(ASGIHandler):
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
