"""Settings, all from environment variables.

With nothing set this is the embedded default: a SQLite file, the in-memory channel layer and
Celery tasks run in-process, so one command serves the whole product. ``DATABASE_URL`` and
``REDIS_URL`` switch the same code to PostgreSQL and Redis (channel layer, Celery broker and
cache) for several web nodes, workers and beat. URLs are parsed by dj-database-url rather than
by hand: it knows every backend's options (``conn_max_age``, ``sslmode``...).
"""

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from config import logs

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def env_float(name: str, default: float) -> float:
    value = os.environ.get(name)
    return float(value) if value not in (None, "") else default


DEBUG = env_bool("DEBUG", default=False)
SECRET_KEY = os.environ.get("SECRET_KEY") or ""
if not SECRET_KEY:
    if not DEBUG and os.environ.get("DATABASE_URL"):
        raise RuntimeError("SECRET_KEY must be set when DATABASE_URL is set")
    SECRET_KEY = "insecure-embedded-default-key-change-me"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")
CORS_ALLOWED_ORIGINS = env_list("CORS_ALLOWED_ORIGINS")
CORS_ALLOW_ALL_ORIGINS = env_bool("CORS_ALLOW_ALL_ORIGINS", default=False)
# Third-party frontends authenticate with bearer tokens, never cookies, so CORS does not need
# credentials and CSRF does not apply to /graphql/ (see config/urls.py).
CORS_URLS_REGEX = r"^/graphql/?$"
CORS_ALLOW_HEADERS = ("accept", "authorization", "content-type", "x-request-id")
# Readable by a frontend's script: the request id to quote in a bug report, and when to retry.
CORS_EXPOSE_HEADERS = ("x-request-id", "retry-after", "ratelimit", "ratelimit-policy")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "corsheaders",
    "channels",
    "accounts",
    "games",
    "tournaments",
]

MIDDLEWARE = [
    "corsheaders.middleware.CorsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]
# /graphql/ is served by a handler of its own with only these (config/middleware.py): the
# ones above are sync-only and would put thread hops on every API request; the API takes
# bearer tokens, so it needs no session, CSRF or auth middleware.
API_MIDDLEWARE = ["corsheaders.middleware.CorsMiddleware"]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates",
    "DIRS": [BASE_DIR / "config" / "templates"],  # graphql/graphiql.html (config/ide.py)
    "APP_DIRS": True,
    "OPTIONS": {"context_processors": [
        "django.template.context_processors.request",
        "django.contrib.auth.context_processors.auth",
        "django.contrib.messages.context_processors.messages",
    ]},
}]

DATA_DIR = Path(os.environ.get("STAPEL_DATA_DIR", BASE_DIR / "db"))
DATABASE_URL = os.environ.get("DATABASE_URL") or f"sqlite:///{DATA_DIR / 'stapel.sqlite3'}"
DATABASES = {"default": dj_database_url.parse(DATABASE_URL)}
# A change waits at most this long for its table's row lock, then answers `busy`: one stuck
# table must never hold a request (and the executor thread it runs on) for long.
STAPEL_TABLE_LOCK_TIMEOUT_MS = int(os.environ.get("TABLE_LOCK_TIMEOUT_MS", 2000) or 2000)
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Under ASGI every request and websocket operation may run in another thread, so
    # persistent per-thread connections (CONN_MAX_AGE) leak; psycopg's pool shares a bounded
    # set of connections per process instead.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": int(os.environ.get("DB_POOL_MIN", 2)),
        # Each live move thread keeps one connection (STAPEL_LIVE_DB_THREADS): the pool is
        # never smaller than those plus a few for requests, or a node starves its own HTTP.
        "max_size": max(int(os.environ.get("DB_POOL_MAX", 16) or 16),
                        int(os.environ.get("LIVE_DB_THREADS", 4) or 4) + 4),
        "timeout": 10,
    }
    # A statement waits at most STAPEL_TABLE_LOCK_TIMEOUT_MS for a row lock and then fails,
    # and the change answers `busy`. Set once per connection, so no change pays a round trip.
    DATABASES["default"]["OPTIONS"]["options"] = f"-c lock_timeout={STAPEL_TABLE_LOCK_TIMEOUT_MS}"
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    # Several writers (web requests and in-process tasks) share one file: wait, don't fail.
    DATABASES["default"]["OPTIONS"] = {"timeout": 20, "transaction_mode": "IMMEDIATE",
                                       "init_command": "PRAGMA journal_mode=WAL;"}
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["TEST"] = {"NAME": str(DATA_DIR / "test.sqlite3")}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "accounts.Player"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
     "OPTIONS": {"min_length": 8}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT") or BASE_DIR / "staticfiles")  # collectstatic
# The reference web client (games/webclient/) is served as plain static files under
# /static/webclient/; its page at / comes from config/urls.py.
STATICFILES_DIRS = [("webclient", BASE_DIR / "games" / "webclient"),
                    # GraphiQL's scripts and styles, served by us (config/graphiql/VENDORED.md)
                    ("graphiql", BASE_DIR / "config" / "graphiql")]
# Static files are served by the ASGI app from the apps' static folders with Cache-Control
# for STATIC_MAX_AGE seconds (config/middleware.py); behind the shipped nginx the proxy serves
# `collectstatic`'s STATIC_ROOT itself (deploy/).
STATIC_MAX_AGE = int(os.environ.get("STATIC_MAX_AGE", 0 if DEBUG else 3600) or 0)

# GraphQL requests are small; anything bigger is refused before it is parsed.
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("MAX_REQUEST_BYTES", 64 * 1024))

REDIS_URL = os.environ.get("REDIS_URL", "")

# A channel stays in a group this long after it last joined. Every websocket re-joins its
# groups every third of it (config/graphql.py), so a live socket never drops out; a killed
# node's channels drop out after it, instead of a day of "over capacity" on every send to
# them. Resume needs no more: a reconnecting client gets a new channel and replays from the
# log (afterSeq), it never relies on an old channel's membership.
WS_GROUP_EXPIRY = int(os.environ.get("WS_GROUP_EXPIRY", 300))

if REDIS_URL:
    CHANNEL_LAYERS = {"default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {"hosts": [REDIS_URL], "capacity": 1000, "expiry": 60,
                   "group_expiry": WS_GROUP_EXPIRY},
    }}
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                          "LOCATION": REDIS_URL}}
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer",
                                  "CONFIG": {"capacity": 1000}}}
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# Celery: Redis as broker when REDIS_URL is set, else tasks run in this process.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", REDIS_URL or "memory://")
if CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    # kombu's Redis transport, without a new redis client per publish and ack (config/broker.py)
    CELERY_BROKER_TRANSPORT = "config.broker:Transport"
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", default=not REDIS_URL)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Several deployments (or test runs) may share one broker on separate queues.
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_QUEUE", "celery")
CELERY_TASK_ACKS_LATE = False  # per task: only idempotent tasks ack late
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# Long timers live in the database and are swept by beat, so no countdown in the broker ever
# comes near the visibility timeout (a countdown beyond it would be redelivered).
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

# Game service knobs.
STAPEL_BOT_PAUSE_SECONDS = env_float("BOT_PAUSE_SECONDS", 0.8)
# The `strong` bots' budget per move: search iterations, and a wall-clock cap in ms (0: none).
STAPEL_STRONG_BOT_ITERATIONS = int(os.environ.get("STRONG_BOT_ITERATIONS", 300) or 300)
STAPEL_STRONG_BOT_TIME_MS = env_float("STRONG_BOT_TIME_MS", 400.0)
STAPEL_ROUND_PAUSE_SECONDS = env_float("ROUND_PAUSE_SECONDS", 3.0)
STAPEL_TURN_CLOCK_DEFAULT_SECONDS = int(os.environ.get("TURN_CLOCK_SECONDS", 0) or 0)
STAPEL_EXPIRIES_BEFORE_BOT = int(os.environ.get("EXPIRIES_BEFORE_BOT", 3) or 3)

# The live path (games/api/live.py): `tableEvents` and `act` documents are compiled once and
# their results projected, instead of executing GraphQL per subscriber and per move. Off:
# every operation runs through strawberry (the tests compare both).
STAPEL_LIVE_FAST_PATH = env_bool("LIVE_FAST_PATH", default=True)
# Pub/sub channel prefix of the live fan-out (games/fanout.py); default: named after this
# deployment's database and Redis database, so two stacks on one Redis never cross.
STAPEL_LIVE_PREFIX = os.environ.get("LIVE_PREFIX", "")
# Threads per process that run moves, each keeping its database connection (games/api/live.py).
STAPEL_LIVE_DB_THREADS = int(os.environ.get("LIVE_DB_THREADS", 4) or 4)
# The garbage collector's thresholds in a web process (config/asgi.py explains the default).
try:
    STAPEL_GC_THRESHOLDS = tuple(int(n) for n in (
        os.environ.get("GC_THRESHOLDS") or "50000,20,100").split(","))
except ValueError:
    STAPEL_GC_THRESHOLDS = ()
if len(STAPEL_GC_THRESHOLDS) != 3 or min(STAPEL_GC_THRESHOLDS) < 1:
    raise ImproperlyConfigured("GC_THRESHOLDS is three positive numbers: gen0,gen1,gen2")

# Where `GET /graphql/` (DEBUG off) sends people for the API's docs; empty: the docs in the
# source (docs/api.md).
API_DOCS_URL = os.environ.get("API_DOCS_URL", "")
GRAPHQL_MAX_DEPTH = int(os.environ.get("GRAPHQL_MAX_DEPTH", 12))
GRAPHQL_MAX_TOKENS = int(os.environ.get("GRAPHQL_MAX_TOKENS", 2000))
GRAPHQL_MAX_ALIASES = int(os.environ.get("GRAPHQL_MAX_ALIASES", 20))
# Estimated work per request (config/cost.py): lower without a token.
GRAPHQL_MAX_COST = int(os.environ.get("GRAPHQL_MAX_COST", 20000))
GRAPHQL_MAX_COST_ANONYMOUS = int(os.environ.get("GRAPHQL_MAX_COST_ANONYMOUS", 5000))
# A response bigger than this is refused with `response_too_large` (HTTP and websocket).
GRAPHQL_MAX_RESPONSE_BYTES = int(os.environ.get("GRAPHQL_MAX_RESPONSE_BYTES", 4 * 1024 * 1024))
# PostgreSQL cancels an API read that runs longer (config/reads.py); 0 turns it off.
API_STATEMENT_TIMEOUT_MS = int(os.environ.get("API_STATEMENT_TIMEOUT_MS", 5000))
# Tokens: new registered players' tokens end after N days (0: never); a guest's token ends
# after N days without use (0: never).
API_TOKEN_LIFETIME_DAYS = int(os.environ.get("API_TOKEN_LIFETIME_DAYS", 0) or 0)
GUEST_TOKEN_IDLE_DAYS = int(os.environ.get("GUEST_TOKEN_IDLE_DAYS", 30) or 0)
WS_ALLOWED_ORIGINS = env_list("WS_ALLOWED_ORIGINS")  # empty: any origin (tokens, not cookies)
WS_MAX_SUBSCRIPTIONS = int(os.environ.get("WS_MAX_SUBSCRIPTIONS", 20))

# Logs (config/logs.py): one JSON object per line on stderr, with the request id of the
# request, websocket session or task that wrote it; LOG_FORMAT=console for people.
LOG_LEVEL = os.environ.get("LOG_LEVEL", "INFO")
LOG_FORMAT = os.environ.get("LOG_FORMAT", "json")
LOGGING_CONFIG = "config.logs.configure"
LOGGING = logs.logging_settings(LOG_LEVEL, LOG_FORMAT)

# TLS. Set HTTPS=true when people reach Stapel over https (usually a proxy terminates TLS and
# says so in X-Forwarded-Proto, which is then trusted): cookies become Secure, plain http is
# redirected (not /health/ and /metrics, which probes ask directly) and HSTS is sent for
# HSTS_SECONDS (start small). Without it nothing claims TLS: a Secure cookie over plain http
# is never sent back, and the admin login would fail with a CSRF error.
HTTPS = env_bool("HTTPS", default=False)
SECURE_CONTENT_TYPE_NOSNIFF = True
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", default=HTTPS)
if HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=True)
    SECURE_REDIRECT_EXEMPT = [r"^health/", r"^metrics$"]
    SECURE_HSTS_SECONDS = int(os.environ.get("HSTS_SECONDS", 3600) or 0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("HSTS_INCLUDE_SUBDOMAINS", default=False)
    SECURE_HSTS_PRELOAD = env_bool("HSTS_PRELOAD", default=False)

# How often beat queues the turn clocks that run out before its next run (each to its
# deadline): a timeout is at most this late when a sweep is missed, and on time otherwise.
try:
    STAPEL_DEADLINE_SWEEP_SECONDS = env_float("DEADLINE_SWEEP_SECONDS", 1.0)
except ValueError:
    STAPEL_DEADLINE_SWEEP_SECONDS = 0.0
if not 0 < STAPEL_DEADLINE_SWEEP_SECONDS <= 60:  # 0 would run beat's entry without pause
    raise ImproperlyConfigured("DEADLINE_SWEEP_SECONDS is a number of seconds above 0, at most 60")
# With tasks in-process (the embedded default) the web process does beat's work as well
# (games/scheduling.py); with a broker, run exactly one `celery beat`.
STAPEL_IN_PROCESS_BEAT = env_bool("IN_PROCESS_BEAT", default=CELERY_TASK_ALWAYS_EAGER)
CELERY_BEAT_SCHEDULE = {
    # Turn clocks: the timeouts due before the next run, each queued to its deadline.
    "games-deadlines": {"task": "games.deadlines", "schedule": STAPEL_DEADLINE_SWEEP_SECONDS},
    # Bots' turns and round ends whose task was lost (a killed worker, a broker outage).
    "games-sweep": {"task": "games.sweep", "schedule": env_float("SWEEP_SECONDS", 5.0)},
    # Registration windows, starts on time, arena ends, and results whose task was lost.
    "tournaments-tick": {"task": "tournaments.tick",
                         "schedule": env_float("TOURNAMENT_TICK_SECONDS", 5.0)},
}
# With Redis, beat keeps its schedule in Redis (RedBeat), not in a celerybeat-schedule file,
# and holds a lock there while it runs: a second `celery beat` waits on the lock instead of
# sending every task twice, and takes over within REDBEAT_LOCK_TIMEOUT seconds when the first
# dies. So one beat runs at a time however many are started (two give failover).
if REDIS_URL:
    CELERY_BEAT_SCHEDULER = "redbeat.RedBeatScheduler"
    CELERY_REDBEAT_REDIS_URL = REDIS_URL
    CELERY_REDBEAT_KEY_PREFIX = os.environ.get("REDBEAT_KEY_PREFIX", "stapel:redbeat:")
    CELERY_REDBEAT_LOCK_TIMEOUT = int(os.environ.get("REDBEAT_LOCK_TIMEOUT", 30) or 30)
    # Beat wakes at least this often (and renews its lock each time).
    CELERY_BEAT_MAX_LOOP_INTERVAL = 5

# Table chat: at most N messages per player every S seconds ("N/S").
_chat_rate = os.environ.get("CHAT_RATE", "5/10").split("/")
STAPEL_CHAT_RATE = (int(_chat_rate[0]), int(_chat_rate[1]))

# Readiness and metrics (config/health.py, config/metrics.py).
STAPEL_HEALTH_WORKER_MAX_AGE = env_float("HEALTH_WORKER_MAX_AGE", 30.0)
STAPEL_METRICS_TOKEN = os.environ.get("METRICS_TOKEN", "")
STAPEL_METRICS_ALLOWED_ADDRESSES = env_list("METRICS_ALLOWED_ADDRESSES")
STAPEL_WORKER_METRICS_PORT = int(os.environ.get("WORKER_METRICS_PORT", 0) or 0)
STAPEL_WORKER_METRICS_ADDR = os.environ.get("WORKER_METRICS_ADDR", "127.0.0.1")

# Webhooks (tournaments/webhooks.py). Non-global addresses (loopback, private, link-local)
# are refused unless listed here as networks, e.g. "127.0.0.1/32" for tests.
STAPEL_WEBHOOK_ALLOWED_NETWORKS = env_list("WEBHOOK_ALLOWED_NETWORKS")
STAPEL_WEBHOOK_TIMEOUT_SECONDS = env_float("WEBHOOK_TIMEOUT_SECONDS", 5.0)
STAPEL_WEBHOOK_RETRY_BASE_SECONDS = env_float("WEBHOOK_RETRY_BASE_SECONDS", 10.0)
STAPEL_WEBHOOK_MAX_ATTEMPTS = int(os.environ.get("WEBHOOK_MAX_ATTEMPTS", 6) or 6)
STAPEL_WEBHOOK_DISABLE_AFTER_FAILURES = int(
    os.environ.get("WEBHOOK_DISABLE_AFTER_FAILURES", 15) or 15)

# The report queue (games/reports.py): reports within this many days count towards a case.
STAPEL_REPORT_WINDOW_DAYS = int(os.environ.get("REPORT_WINDOW_DAYS", 7) or 7)

# Tournament calendars (tournaments/exports.py): the domain part of every event's UID, so
# UIDs stay the same across feeds, hosts and years (RFC 5545: globally unique, stable).
STAPEL_CALENDAR_UID_DOMAIN = os.environ.get("CALENDAR_UID_DOMAIN", "stapel.invalid")

# Rate limits (config/ratelimit.py): `RATE_LIMIT_<NAME>` overrides one, in the `limits`
# notation ("10 per 5 minutes", "30/hour", several separated by ";"), or "off".
_RATE_LIMIT_DEFAULTS = {
    "create_guest": "30 per hour",           # per address
    "register": "10 per hour",               # per address
    "login_username": "10 per 5 minutes",    # failed logins per username
    "login_address": "30 per 5 minutes",     # logins per address
    "create_table": "30 per 10 minutes",     # per player
    "chat": f"{STAPEL_CHAT_RATE[0]} per {STAPEL_CHAT_RATE[1]} seconds",  # per player
    "report": "10 per hour",                 # per player
    "invite_guess": "10 per 10 minutes",     # wrong invite codes per player
    "ws_connect": "60 per minute",           # websocket connects per address
    "ws_operation": "60 per minute",         # subscribe messages per websocket
    "token": "1200 per minute",              # every operation but `act`, per token's player
    "address": "600 per minute",             # every anonymous operation, per address
    # Query cost (config/cost.py) spent over time: each operation but `act` spends its cost.
    "query_cost": "200000 per minute",       # per token's player (10 of the largest queries)
    "query_cost_anonymous": "50000 per minute",  # per address, without a token
}
STAPEL_RATE_LIMITS = {name: os.environ.get(f"RATE_LIMIT_{name.upper()}", default)
                      for name, default in _RATE_LIMIT_DEFAULTS.items()}
STAPEL_RATE_LIMIT_STORAGE = os.environ.get("RATE_LIMIT_STORAGE", REDIS_URL or "memory://")
STAPEL_RATE_LIMIT_KEY_PREFIX = "stapel:rl"
