from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from games.services import table_finished

        from .receivers import on_table_finished

        table_finished.connect(on_table_finished, dispatch_uid="tournaments.table_finished")
