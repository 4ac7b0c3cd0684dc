"""Games tells us (on commit) when a match ended; the work happens in a task."""

from __future__ import annotations


def on_table_finished(sender, table_id: int, status: str, **kwargs) -> None:
    from . import tasks

    tasks.table_finished.delay(table_id)
