from django.db import migrations, models

import games.models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0006_table_public_id'),
    ]

    operations = [
        migrations.AlterField(
            model_name='table',
            name='public_id',
            field=models.CharField(default=games.models.new_public_id, editable=False,
                                   help_text="The id clients see (the API's Table.id).",
                                   max_length=12, unique=True),
        ),
    ]
