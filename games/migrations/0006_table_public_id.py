"""Tables get a random public id (the API's ``Table.id``); existing rows are filled here and
the column becomes unique and required in 0007, in its own transaction (PostgreSQL refuses
to alter a table with updates pending in the same one)."""

from django.db import migrations, models

import games.models


def fill(apps, schema_editor):
    Table = apps.get_model("games", "Table")
    batch = []
    for table in Table.objects.filter(public_id__isnull=True).only("pk").iterator():
        table.public_id = games.models.new_public_id()
        batch.append(table)
        if len(batch) >= 500:
            Table.objects.bulk_update(batch, ["public_id"])
            batch = []
    Table.objects.bulk_update(batch, ["public_id"])


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0005_log_entry_status'),
    ]

    operations = [
        migrations.AddField(
            model_name='table',
            name='public_id',
            field=models.CharField(editable=False, max_length=12, null=True,
                                   help_text="The id clients see (the API's Table.id)."),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop, elidable=True),
    ]
