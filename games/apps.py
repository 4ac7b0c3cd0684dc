from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.backends.signals import connection_created

        from config.metrics import install_sql_counter

        # Every SQL statement this process sends is counted (stapel_sql_statements_total).
        connection_created.connect(install_sql_counter,
                                   dispatch_uid="stapel-sql-statements")
