"""Plain HTTP endpoints of games: the replay export.

``GET /api/tables/<id>/replay.json``: the same document as the ``tableReplay`` query's
``document`` (see ``games.replays``), for the same readers, as one JSON file.
"""

from __future__ import annotations

import json

from django.views.decorators.http import require_GET

from accounts.errors import DomainError
from config.http import error_response, file_response, request_player

from . import replays


@require_GET
def replay_json(request, table_id: str):
    try:
        document = replays.replay_for(table_id, request_player(request))
    except DomainError as exc:
        return error_response(exc)
    return file_response(json.dumps(document, ensure_ascii=False, sort_keys=True),
                         content_type="application/json; charset=utf-8",
                         filename=f"stapel-table-{table_id}-replay.json")
