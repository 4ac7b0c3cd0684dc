from django.contrib import admin
from django.http import JsonResponse
from django.urls import path

from .graphql import graphql_view


def health(request):
    return JsonResponse({"status": "ok"})


urlpatterns = [
    path("admin/", admin.site.urls),
    path("graphql/", graphql_view),
    path("graphql", graphql_view),
    path("health/", health),
]
