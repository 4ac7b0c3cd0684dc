from django.conf import settings
from django.contrib import admin
from django.http import HttpResponse, JsonResponse
from django.urls import path, re_path

from games import views as game_views
from tournaments import views as tournament_views

from . import health, ide, metrics
from .graphql import graphql_view

admin.site.site_header = "Stapel administration"
admin.site.site_title = "Stapel admin"
admin.site.index_title = "Moderation and tournaments"


def health_ok(request):
    return JsonResponse({"status": "ok"})


def webclient(request, **_):
    """The web client's one page: the lobby at / and every deep link the client routes itself."""
    page = (settings.BASE_DIR / "games" / "webclient" / "index.html").read_text()
    return HttpResponse(page, content_type="text/html; charset=utf-8")


urlpatterns = [
    path("admin/", admin.site.urls),
    path("graphql/", graphql_view),
    path("graphql", graphql_view),
    path("graphql/schema.graphql", ide.schema_sdl),
    path("health/", health_ok),
    path("health/live", health.live),
    path("health/ready", health.ready),
    path("metrics", metrics.metrics_view),
    path("api/tables/<str:table_id>/replay.json", game_views.replay_json, name="table-replay"),
    # Tournament exports and calendars (docs/tournaments.md): stable URLs, no sign-in.
    path("api/tournaments/<int:tournament_id>/standings.csv", tournament_views.standings_csv),
    path("api/tournaments/<int:tournament_id>/standings.json", tournament_views.standings_json),
    path("api/tournaments/<int:tournament_id>/pairings.csv", tournament_views.pairings_csv),
    path("api/tournaments/<int:tournament_id>/pairings.json", tournament_views.pairings_json),
    path("api/tournaments/<int:tournament_id>/bracket.json", tournament_views.bracket_json),
    path("api/tournaments/<int:tournament_id>/calendar.ics", tournament_views.calendar_ics),
    path("api/calendars/organisers/<int:player_id>.ics", tournament_views.organiser_calendar),
    path("api/calendars/games/<str:game>.ics", tournament_views.game_calendar),
    path("", webclient),
    re_path(r"^(?:t|join|tournaments|leaderboard)(?:/.*)?$", webclient),
]
