"""``selectors.from_row``: a model instance as read from a row, without ``Model.__init__``
(the move's snapshot): it holds exactly what was read, and a field not read is loaded from
the database when asked for, never a made-up default."""

import pytest

from accounts import services as accounts
from games import selectors
from games.models import Table, TableStatus

pytestmark = pytest.mark.django_db


def test_a_row_built_table_reads_like_one_from_the_orm():
    ada, _ = accounts.guest_create(display_name="Ada")
    stored = Table.objects.create(game="kato", seat_count=2, spectator_delay_seconds=30, creator=ada,
                                  options={"rounds": 2})
    table = selectors.from_row(Table, id=stored.pk, public_id=stored.public_id, game="kato",
                               status=TableStatus.OPEN, version=0)
    assert (table.pk, table.public_id, table.game, table.version) == (
        stored.pk, stored.public_id, "kato", 0)
    assert not table._state.adding
    # not read: loaded from its row, not a new default (a fresh invite code, empty options)
    assert table.invite_code == stored.invite_code
    assert table.options == {"rounds": 2}
    assert table.spectator_delay_seconds == 30
