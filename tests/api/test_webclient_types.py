"""The web client's committed TypeScript types match schema.graphql."""

from pathlib import Path

from django.conf import settings

from games.webclient.generate_types import OUTPUT, SCHEMA, render


def test_webclient_types_are_up_to_date():
    assert Path(settings.BASE_DIR, "schema.graphql") == SCHEMA
    assert OUTPUT.read_text() == render(SCHEMA.read_text()), (
        "games/webclient/types/schema.d.ts is stale: run `make webclient-types`")
