"""The organiser group gets the tournaments permissions.

``games/0003_staff_groups`` runs before this app's tables exist, so on a fresh database the
organisers had only view permissions and ``createTournament`` refused them. This runs after
both apps: it creates the tournaments permissions (Django would only do so after the last
migration) and gives them all to the group.
"""

from django.contrib.auth.management import create_permissions
from django.db import migrations


def organiser_permissions_add(apps, schema_editor):
    app_config = apps.get_app_config("tournaments")
    # Historical app configs have no models module, and create_permissions skips those.
    original = getattr(app_config, "models_module", None)
    app_config.models_module = original or True
    try:
        create_permissions(app_config, verbosity=0, apps=apps)
    finally:
        app_config.models_module = original
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    organiser, _ = Group.objects.get_or_create(name="organiser")
    organiser.permissions.add(*Permission.objects.filter(content_type__app_label="tournaments"))


def organiser_permissions_remove(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for organiser in Group.objects.filter(name="organiser"):
        organiser.permissions.remove(
            *Permission.objects.filter(content_type__app_label="tournaments"))


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("games", "0003_staff_groups"),
        ("tournaments", "0001_initial"),
    ]

    operations = [migrations.RunPython(organiser_permissions_add, organiser_permissions_remove)]
