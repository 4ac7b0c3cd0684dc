"""The web client's page is served at / and at its deep links; its modules are static files."""

import pytest
from django.contrib.staticfiles import finders


@pytest.mark.parametrize("path", ["/", "/t/12", "/t/Ab-9_xYz12Qw", "/t/Ab-9_xYz12Qw/replay", "/join/AbC-d", "/tournaments/3", "/leaderboard"])
def test_the_page_is_served_at_the_lobby_and_deep_links(client, path):
    response = client.get(path)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    assert b'<script type="module" src="/static/webclient/js/app.js">' in response.content


def test_the_modules_are_found_as_static_files():
    for name in ("js/app.js", "js/api.js", "js/cards.js", "js/games.js", "js/i18n.js",
                 "js/replay.js", "css/app.css"):
        assert finders.find(f"webclient/{name}"), name


def test_unknown_paths_still_404(client):
    assert client.get("/nothing-here").status_code == 404
