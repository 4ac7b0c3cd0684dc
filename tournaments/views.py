"""Plain HTTP exports of tournaments at stable URLs (see ``tournaments.exports`` and
docs/tournaments.md). Tournaments are public, so these need no sign-in; errors are JSON with
a code (config/http.py)."""

from __future__ import annotations

import json

from django.views.decorators.http import require_GET

from accounts.errors import DomainError
from config.http import error_response, file_response

from . import exports, selectors

CSV = "text/csv; charset=utf-8"
JSON = "application/json; charset=utf-8"
ICS = "text/calendar; charset=utf-8"


def _json(data, filename: str):
    return file_response(json.dumps(data, ensure_ascii=False, indent=1), content_type=JSON,
                         filename=filename)


def _export(kind: str, ext: str):
    @require_GET
    def view(request, tournament_id: int):
        try:
            t = selectors.tournament_get(tournament_id)
            name = f"stapel-tournament-{t.pk}-{kind}.{ext}"
            if kind == "standings" and ext == "csv":
                return file_response(exports.to_csv(exports.STANDINGS_COLUMNS,
                                                    exports.standings_rows(t)),
                                     content_type=CSV, filename=name, attachment=True)
            if kind == "pairings" and ext == "csv":
                return file_response(exports.to_csv(exports.PAIRINGS_COLUMNS,
                                                    exports.pairings_rows(t)),
                                     content_type=CSV, filename=name, attachment=True)
            if kind == "calendar":
                return file_response(exports.calendar([t], t.name), content_type=ICS,
                                     filename=name)
            build = {"standings": exports.standings_json, "pairings": exports.pairings_json,
                     "bracket": exports.bracket_json}[kind]
            return _json(build(t), name)
        except DomainError as exc:
            return error_response(exc)

    view.__name__ = f"tournament_{kind}_{ext}"
    return view


standings_csv = _export("standings", "csv")
standings_json = _export("standings", "json")
pairings_csv = _export("pairings", "csv")
pairings_json = _export("pairings", "json")
bracket_json = _export("bracket", "json")
calendar_ics = _export("calendar", "ics")


@require_GET
def organiser_calendar(request, player_id: int):
    try:
        rows = exports.tournaments_of_organiser(player_id)
    except DomainError as exc:
        return error_response(exc)
    return file_response(exports.calendar(rows, "Stapel tournaments"), content_type=ICS,
                         filename=f"stapel-organiser-{player_id}.ics")


@require_GET
def game_calendar(request, game: str):
    try:
        rows = exports.tournaments_of_game(game)
    except DomainError as exc:
        return error_response(exc)
    return file_response(exports.calendar(rows, f"Stapel {game} tournaments"),
                         content_type=ICS, filename=f"stapel-{game}.ics")
