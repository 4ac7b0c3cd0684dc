from django.contrib import admin
from django.http import JsonResponse
from django.urls import path

from . import health, metrics
from .graphql import graphql_view

admin.site.site_header = "Stapel administration"
admin.site.site_title = "Stapel admin"
admin.site.index_title = "Moderation and tournaments"


def health_ok(request):
    return JsonResponse({"status": "ok"})


urlpatterns = [
    path("admin/", admin.site.urls),
    path("graphql/", graphql_view),
    path("graphql", graphql_view),
    path("health/", health_ok),
    path("health/live", health.live),
    path("health/ready", health.ready),
    path("metrics", metrics.metrics_view),
]
