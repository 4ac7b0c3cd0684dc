from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand
from strawberry.printer import print_schema


def schema_sdl() -> str:
    from config.schema import schema

    return print_schema(schema) + "\n"


class Command(BaseCommand):
    help = "Write the GraphQL schema to schema.graphql (a test fails when it is stale)."

    def add_arguments(self, parser):
        parser.add_argument("--path", default=str(Path(settings.BASE_DIR) / "schema.graphql"))

    def handle(self, *args, path, **options):
        Path(path).write_text(schema_sdl())
        self.stdout.write(f"wrote {path}")
