"""HTTP (Django, GraphQL and the admin) and websockets (GraphQL subscriptions) on one app."""

import gc
import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.core.asgi import get_asgi_application  # noqa: E402
from django.urls import re_path  # noqa: E402

django_app = get_asgi_application()  # the site: admin, web client, health, metrics

from games.scheduling import beat_start  # noqa: E402

from .graphql import GraphQLWebsocketConsumer, RefuseWebsocket  # noqa: E402
from .logs import RequestLog  # noqa: E402
from .middleware import ApiHandler, CachedStaticFiles, split_by_path  # noqa: E402

beat_start()  # the embedded default's periodic schedule; a no-op with a broker

# One log line per request and websocket session, with its request id (config/logs.py).
application = RequestLog(ProtocolTypeRouter({
    # Static files (admin, web client, GraphiQL) with cache headers; the shipped nginx serves
    # them itself. WhiteNoise's middleware is sync-only and would put two thread hops on
    # every request. /graphql/ goes to a Django handler without the admin's middleware.
    "http": CachedStaticFiles(split_by_path(ApiHandler(), django_app)),
    # Any other path (/admin/...) refuses the upgrade with a 403 instead of a routing error.
    "websocket": URLRouter([re_path(r"^graphql/?$", GraphQLWebsocketConsumer.as_asgi()),
                            re_path(r"", RefuseWebsocket.as_asgi())]),
}))

# What is loaded by now (Django, the schema, the engines, the compiled documents' code) lives
# as long as the process. Frozen out of the collector's generations, it is no longer walked by
# every older-generation collection: those walks were ~7% of a move's CPU in perf
# (gc_collect_main, visit_decref) before (tests/bench/bench_live.py).
gc.collect()
gc.freeze()
