"""What a browser gets at ``GET /graphql/``, and the schema as SDL.

With ``DEBUG`` on: GraphiQL, from files the project serves itself (config/graphiql/, see
VENDORED.md there), so it works without internet. With ``DEBUG`` off: a short page (or JSON,
for clients that do not ask for HTML) saying where the API, its schema and its docs are,
instead of a bare 404. ``/graphql/schema.graphql`` serves the schema's SDL either way: the
same text as the repository's ``schema.graphql``.
"""

from __future__ import annotations

import functools

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.utils.html import escape

DOCS_IN_SOURCE = "docs/api.md and schema.graphql in Stapel's source"


def _about(request) -> dict:
    api = request.build_absolute_uri("/graphql/")
    return {
        "api": api,
        "http": "POST JSON {query, variables, operationName}; queries may also use GET",
        "websocket": (api.replace("http", "ws", 1)
                      + " with graphql-transport-ws; the token goes in connection_init"),
        "auth": "Authorization: Bearer <token>, from the createGuest, register or login "
                "mutation",
        "schema": request.build_absolute_uri("/graphql/schema.graphql"),
        "docs": settings.API_DOCS_URL or DOCS_IN_SOURCE,
    }


def page(request) -> HttpResponse:
    """The answer to a browser's (or curl's) plain ``GET /graphql/``."""
    if settings.DEBUG:
        return HttpResponse(render_to_string("graphql/graphiql.html", request=request))
    about = _about(request)
    if "text/html" not in request.headers.get("Accept", ""):
        return JsonResponse(about)
    docs = about["docs"]
    docs_html = (f'<a href="{escape(docs)}">{escape(docs)}</a>' if docs.startswith("http")
                 else escape(docs))
    body = (
        "<!doctype html><html lang=en><meta charset=utf-8><title>Stapel API</title>"
        "<style>body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:3rem auto;"
        "padding:0 1rem}code{background:#f3f3f3;padding:0 .2em}</style>"
        "<h1>Stapel GraphQL API</h1>"
        f"<p>This address is the API: send GraphQL as <code>POST</code> with a JSON body to "
        f"<code>{escape(about['api'])}</code>, or open a websocket to it with the "
        f"<code>graphql-transport-ws</code> protocol.</p>"
        "<p>Sign in with the <code>createGuest</code>, <code>register</code> or "
        "<code>login</code> mutation and send <code>Authorization: Bearer &lt;token&gt;</code>."
        "</p>"
        f"<p>Schema: <a href=\"{escape(about['schema'])}\">{escape(about['schema'])}</a>. "
        f"Docs: {docs_html}.</p>"
        "<p>GraphiQL, the in-browser explorer, is on when the server runs with "
        "<code>DEBUG=true</code>.</p>"
    )
    return HttpResponse(body, content_type="text/html; charset=utf-8")


@functools.cache
def _sdl() -> str:
    from accounts.management.commands.export_schema import schema_sdl as printed

    return printed()


def schema_sdl(request) -> HttpResponse:
    return HttpResponse(_sdl(), content_type="text/plain; charset=utf-8")
