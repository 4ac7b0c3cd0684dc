"""`GET /graphql/` from a browser (config/ide.py): with DEBUG off a short page that says where
the API, its schema and docs are; with DEBUG on GraphiQL from our own static files (its
offline browser test is tests/integration/test_graphiql_browser.py)."""

from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.contrib.staticfiles import finders

pytestmark = pytest.mark.django_db


def test_a_browser_gets_a_page_saying_where_the_api_and_docs_are(client, settings):
    settings.DEBUG = False
    response = client.get("/graphql/", headers={"Accept": "text/html,*/*;q=0.8"})
    assert response.status_code == 200
    page = response.content.decode()
    assert "http://testserver/graphql/schema.graphql" in page
    assert "docs/api.md" in page and "graphql-transport-ws" in page
    assert "graphiql" not in page.lower().replace("graphiql, the in-browser", "")


def test_other_clients_get_the_same_as_json_and_a_docs_url_setting_is_used(client, settings):
    settings.DEBUG = False
    settings.API_DOCS_URL = "https://docs.example.org/stapel"
    about = client.get("/graphql/", headers={"Accept": "*/*"}).json()
    assert about["api"] == "http://testserver/graphql/"
    assert about["websocket"].startswith("ws://testserver/graphql/")
    assert about["docs"] == "https://docs.example.org/stapel"


def test_the_schema_is_served_as_the_repository_has_it(client):
    response = client.get("/graphql/schema.graphql")
    assert response["Content-Type"].startswith("text/plain")
    assert response.content.decode() == (Path(django_settings.BASE_DIR)
                                         / "schema.graphql").read_text()


def test_graphiql_with_debug_loads_nothing_from_elsewhere(client, settings):
    settings.DEBUG = True
    page = client.get("/graphql/", headers={"Accept": "text/html"}).content.decode()
    assert "/static/graphiql/graphiql.min.js" in page and 'integrity="sha384-' in page
    assert "unpkg" not in page and "https://" not in page
    for name in ("graphiql.min.js", "graphiql.min.css", "react.production.min.js",
                 "react-dom.production.min.js", "plugin-explorer.umd.js"):
        assert finders.find(f"graphiql/{name}"), name  # served under /static/


def test_queries_over_get_still_work(client, settings):
    settings.DEBUG = False
    response = client.get("/graphql/", {"query": "{ games { id } }"},
                          headers={"Accept": "text/html"})
    assert response.status_code == 200 and response.json()["data"]["games"]
