"""The log's index on ``table_id`` alone goes: the unique (table, seq) index starts with the
same column and serves every lookup of a table's log, while every move, chat line and seat
change wrote both."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0009_state_lz4"),
    ]

    operations = [
        migrations.AlterField(
            model_name="tablelogentry",
            name="table",
            field=models.ForeignKey(db_index=False,
                                    on_delete=django.db.models.deletion.CASCADE,
                                    related_name="log", to="games.table"),
        ),
    ]
