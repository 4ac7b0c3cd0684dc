"""HTTP (Django, GraphQL and the admin) and websockets (GraphQL subscriptions) on one app."""

import gc
import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup(set_prefix=False)  # as django.core.asgi.get_asgi_application does

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402
from django.urls import re_path  # noqa: E402

from .middleware import ApiHandler, CachedStaticFiles, SiteHandler, split_by_path  # noqa: E402

django_app = SiteHandler()  # the site: admin, web client, health, metrics

from games.scheduling import beat_start  # noqa: E402

from .graphql import GraphQLWebsocketConsumer, RefuseWebsocket  # noqa: E402
from .logs import RequestLog  # noqa: E402

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

# The collector's thresholds of a web process (GC_THRESHOLDS, "gen0,gen1,gen2"). With the
# default 700/10/10 a node holding 1,000 websockets (250 tables x 4) made a full collection
# every few seconds, each stopping the event loop for 140-430 ms (it walks every live
# connection's tasks, coroutines and futures, ~190k objects): p99 from a move to every socket
# was 172 ms at 110 moves/s and 26 % of a core. A young generation 50,000 objects deep lets the
# short-lived objects of moves die before a collection promotes them, and full collections
# become rare: p99 10-14 ms in the same bench (tests/bench/bench_live.py --fanout).
gc.set_threshold(*settings.STAPEL_GC_THRESHOLDS)
