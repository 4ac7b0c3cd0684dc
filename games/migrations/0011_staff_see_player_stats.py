"""Moderators and organisers see each person's record per game (PlayerStats) in the admin:
a moderator judging a report, an organiser seeding a tournament."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUPS = ("moderator", "organiser")


def grant(apps, schema_editor):
    app_config = apps.get_app_config("games")
    original = getattr(app_config, "models_module", None)
    app_config.models_module = original or True  # see 0003: historical configs have none
    try:
        create_permissions(app_config, verbosity=0, apps=apps)
    finally:
        app_config.models_module = original
    Permission = apps.get_model("auth", "Permission")
    view = Permission.objects.filter(content_type__app_label="games",
                                     codename="view_playerstats")
    for group in apps.get_model("auth", "Group").objects.filter(name__in=GROUPS):
        group.permissions.add(*view)


def revoke(apps, schema_editor):
    Permission = apps.get_model("auth", "Permission")
    view = Permission.objects.filter(content_type__app_label="games",
                                     codename="view_playerstats")
    for group in apps.get_model("auth", "Group").objects.filter(name__in=GROUPS):
        group.permissions.remove(*view)


class Migration(migrations.Migration):
    dependencies = [("games", "0010_log_table_index_in_unique_seq")]

    operations = [
        migrations.AlterModelOptions(name="playerstats", options={"verbose_name": "player record"}),
        migrations.RunPython(grant, revoke),
    ]
