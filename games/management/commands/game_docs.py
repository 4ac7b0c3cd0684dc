"""Write docs/games/<game>.md from the games' declarations, or check that they are fresh."""

from django.core.management.base import BaseCommand, CommandError

from games import docs


class Command(BaseCommand):
    help = "Write each game's reference page (docs/games/) from its declaration."

    def add_arguments(self, parser):
        parser.add_argument("--check", action="store_true",
                            help="only check; fail when a page is stale")

    def handle(self, *args, check=False, **options):
        if check:
            stale = docs.stale()
            if stale:
                raise CommandError("stale game docs (run `make game-docs`): " + ", ".join(stale))
            self.stdout.write("game docs are fresh")
            return
        for path in docs.write():
            self.stdout.write(f"wrote {path}")
