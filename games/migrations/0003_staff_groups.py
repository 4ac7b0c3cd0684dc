"""The staff groups: moderators keep the service clean, organisers run tournaments.

Permissions are normally created after all migrations ran; they are created here first so
the groups get them on a fresh database. Tournament permissions that exist when this runs go
to the organisers; the tournaments app adds its own to the group when it defines them.
"""

from django.contrib.auth.management import create_permissions
from django.db import migrations

MODERATOR = [
    "accounts.view_player", "accounts.ban_player", "accounts.mute_player",
    "accounts.revoke_player_tokens", "accounts.view_apitoken",
    "games.view_table", "games.view_table_state", "games.abort_table", "games.view_seat",
    "games.view_tablelogentry", "games.view_chatmessage", "games.hide_chatmessage",
    "games.view_report", "games.resolve_report", "games.view_auditlog",
]
ORGANISER = ["accounts.view_player", "games.view_table", "games.view_seat",
             "games.view_tablelogentry", "games.view_auditlog"]


def create_groups(apps, schema_editor):
    for app_config in apps.get_app_configs():
        # Historical app configs have no models module, and create_permissions skips those.
        original = getattr(app_config, "models_module", None)
        app_config.models_module = original or True
        try:
            create_permissions(app_config, verbosity=0, apps=apps)
        finally:
            app_config.models_module = original
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")

    def perms(names):
        out = []
        for name in names:
            app_label, codename = name.split(".")
            out.extend(Permission.objects.filter(content_type__app_label=app_label,
                                                 codename=codename))
        return out

    moderator, _ = Group.objects.get_or_create(name="moderator")
    moderator.permissions.add(*perms(MODERATOR))
    organiser, _ = Group.objects.get_or_create(name="organiser")
    organiser.permissions.add(*perms(ORGANISER),
                              *Permission.objects.filter(content_type__app_label="tournaments"))


def remove_groups(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=["moderator", "organiser"]).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("accounts", "0002_alter_player_options"),
        ("games", "0002_moderation"),
    ]

    operations = [migrations.RunPython(create_groups, remove_groups)]
