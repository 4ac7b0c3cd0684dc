from pathlib import Path

from django.conf import settings

from accounts.management.commands.export_schema import schema_sdl


def test_schema_graphql_is_up_to_date():
    committed = (Path(settings.BASE_DIR) / "schema.graphql").read_text()
    assert committed == schema_sdl(), "schema.graphql is stale: run `make schema`"
