"""Exports of tournaments for organisers' sites: standings and pairings (CSV and JSON), the
bracket of an elimination (JSON), and calendars (iCalendar) of tournaments' starts and
registration windows. Reads only; ``tournaments/views.py`` serves them at stable URLs
(docs/tournaments.md lists them).

CSV cells of text that players write (their display names) that a spreadsheet would run as a
formula (starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return) get a leading
``'`` (OWASP's advice against CSV injection); the JSON exports carry the names unchanged. Ids
and numbers are ours and go out as they are: a table id may start with ``-``, and a site joins
the CSV to the API by it.
"""

from __future__ import annotations

import csv
import io
from datetime import timedelta

from django.conf import settings
from django.db.models import F
from icalendar import Calendar, Event

from accounts.models import Player

from . import selectors
from .errors import TournamentError
from .models import Format, Registration, RoundStatus, Tournament, TournamentStatus

STANDINGS_COLUMNS = ["rank", "player_id", "player", "points", "buchholz", "wins", "placing_sum",
                     "matches", "byes", "eliminated_in_round", "status"]
PAIRINGS_COLUMNS = ["round", "table", "table_id", "seat", "player_id", "player", "placing",
                    "bye", "table_status"]
FEED_SIZE = 200  # tournaments per calendar feed, the most recent by start
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
WRITTEN_BY_PLAYERS = frozenset({"player"})  # the CSV columns whose text players choose
RECENT = (F("starts_at").desc(nulls_last=True), "-id")


def _names(ids) -> dict[int, str]:
    return dict(Player.objects.filter(pk__in=set(ids)).values_list("pk", "display_name"))


def _summary(t: Tournament) -> dict:
    return {"id": str(t.pk), "name": t.name, "game": t.game, "format": t.format,
            "status": t.status, "table_size": t.table_size, "rounds": t.rounds,
            "current_round": t.current_round,
            "starts_at": t.starts_at.isoformat() if t.starts_at else None,
            "finished_at": t.finished_at.isoformat() if t.finished_at else None}


# --- standings ------------------------------------------------------------------------------

def standings_rows(t: Tournament) -> list[dict]:
    statuses = dict(Registration.objects.filter(tournament=t)
                    .values_list("player_id", "status"))
    return [{"rank": s.rank, "player_id": str(s.player_id), "player": s.player.display_name,
             "points": s.points, "buchholz": s.buchholz, "wins": s.wins,
             "placing_sum": s.placing_sum, "matches": s.matches, "byes": s.byes,
             "eliminated_in_round": s.eliminated_in_round,
             "status": statuses.get(s.player_id, "")}
            for s in selectors.standings_of(t.pk)]


def standings_json(t: Tournament) -> dict:
    return {"tournament": _summary(t), "standings": standings_rows(t)}


# --- pairings -------------------------------------------------------------------------------

def pairings_json(t: Tournament) -> dict:
    """Rounds that started; a pending round (paused tournament) is not final yet."""
    rounds = [r for r in selectors.rounds_of(t.pk) if r.status != RoundStatus.PENDING]
    names = _names([p for r in rounds for x in r.tables.all() for p in x.players]
                   + [p for r in rounds for p in r.byes])
    out = []
    for rnd in rounds:
        tables = []
        for link in rnd.tables.all():
            placings = link.placings or {}
            tables.append({
                "number": link.number, "table_id": link.table.public_id,
                "status": link.table.status, "seats": link.seats,
                "players": [{"seat": seat, "player_id": str(p), "player": names.get(p, ""),
                             "placing": placings.get(str(p))}
                            for seat, p in enumerate(link.players)]})
        out.append({"number": rnd.number, "status": rnd.status,
                    "started_at": rnd.started_at.isoformat(),
                    "finished_at": rnd.finished_at.isoformat() if rnd.finished_at else None,
                    "byes": [{"player_id": str(p), "player": names.get(p, "")}
                             for p in rnd.byes],
                    "tables": tables})
    return {"tournament": _summary(t), "rounds": out}


def pairings_rows(t: Tournament) -> list[dict]:
    rows = []
    for rnd in pairings_json(t)["rounds"]:
        for table in rnd["tables"]:
            for p in table["players"]:
                rows.append({"round": rnd["number"], "table": table["number"],
                             "table_id": table["table_id"], "seat": p["seat"],
                             "player_id": p["player_id"], "player": p["player"],
                             "placing": p["placing"], "bye": False,
                             "table_status": table["status"]})
        for p in rnd["byes"]:
            rows.append({"round": rnd["number"], "table": None, "table_id": None, "seat": None,
                         "player_id": p["player_id"], "player": p["player"], "placing": None,
                         "bye": True, "table_status": None})
    return rows


# --- the bracket ------------------------------------------------------------------------------

def bracket_json(t: Tournament) -> dict:
    """An elimination's rounds, each table with who went on; the champion once it is over.
    ``not_elimination`` for other formats."""
    if t.format != Format.SINGLE_ELIMINATION:
        raise TournamentError("not_elimination", "only single elimination has a bracket")
    pairings = pairings_json(t)
    seeds = dict(Registration.objects.filter(tournament=t).values_list("player_id", "seed"))
    standings = {row["player_id"]: row for row in standings_rows(t)}
    rounds = pairings["rounds"]
    for i, rnd in enumerate(rounds):
        later = rounds[i + 1] if i + 1 < len(rounds) else None
        going = None if later is None else (
            {p["player_id"] for x in later["tables"] for p in x["players"]}
            | {p["player_id"] for p in later["byes"]})
        rnd["final"] = len(rnd["tables"]) == 1 and not rnd["byes"]
        for entry in [p for x in rnd["tables"] for p in x["players"]] + rnd["byes"]:
            pid = int(entry["player_id"])
            entry["seed"] = seeds.get(pid)
            entry["advanced"] = None if going is None else entry["player_id"] in going
    champion = None
    if t.status == TournamentStatus.FINISHED and rounds and rounds[-1]["final"]:
        best = next((row for row in standings.values() if row["rank"] == 1), None)
        if best is not None:
            champion = {"player_id": best["player_id"], "player": best["player"]}
    return {"tournament": {**_summary(t), "advance": t.advance}, "rounds": rounds,
            "champion": champion}


# --- CSV ------------------------------------------------------------------------------------

def _cell(value, written_by_players: bool) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    text = str(value)
    return "'" + text if written_by_players and text.startswith(FORMULA_STARTS) else text


def to_csv(columns: list[str], rows: list[dict]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_cell(row[c], c in WRITTEN_BY_PLAYERS) for c in columns])
    return buffer.getvalue()


# --- calendars ------------------------------------------------------------------------------

def uid(t: Tournament, what: str) -> str:
    """Stable across feeds and time: the same tournament's start is the same event
    everywhere it appears (its own feed, its organiser's, its game's)."""
    return f"tournament-{t.pk}-{what}@{settings.STAPEL_CALENDAR_UID_DOMAIN}"


def _events(t: Tournament) -> list[Event]:
    events = []
    cancelled = t.status == TournamentStatus.CANCELLED
    description = (f"{t.game}, {t.format.replace('_', ' ')}, tables of {t.table_size}. "
                   f"Status: {t.status}.")
    opens = t.registration_opens_at or t.created_at
    closes = t.registration_closes_at or t.starts_at
    if closes is not None and closes > opens:
        event = Event()
        event.add("uid", uid(t, "registration"))
        event.add("summary", f"Registration: {t.name}")
        event.add("dtstart", opens)
        event.add("dtend", closes)
        event.add("dtstamp", t.created_at)
        event.add("description", description)
        event.add("categories", [t.game, "registration"])
        event.add("status", "CANCELLED" if cancelled else "CONFIRMED")
        event.add("transp", "TRANSPARENT")  # a window, not a busy time
        events.append(event)
    start = t.starts_at or t.started_at
    if start is not None:
        event = Event()
        event.add("uid", uid(t, "start"))
        event.add("summary", t.name)
        event.add("dtstart", start)
        end = t.ends_at or (start + timedelta(minutes=t.duration_minutes)
                            if t.duration_minutes else None) or t.finished_at
        if end is not None and end > start:
            event.add("dtend", end)
        event.add("dtstamp", t.created_at)
        event.add("description", description)
        event.add("categories", [t.game, "tournament"])
        event.add("status", "CANCELLED" if cancelled else "CONFIRMED")
        events.append(event)
    return events


def calendar(tournaments, name: str) -> bytes:
    cal = Calendar()
    cal.add("prodid", "-//Stapel//tournaments//EN")
    cal.add("version", "2.0")
    cal.add("calscale", "GREGORIAN")
    cal.add("x-wr-calname", name)
    for t in tournaments:
        for event in _events(t):
            cal.add_component(event)
    return cal.to_ical()


def tournaments_of_organiser(player_id) -> list[Tournament]:
    try:
        pk = int(player_id)
    except (TypeError, ValueError):
        raise TournamentError("not_found", "no such organiser") from None
    if not Player.objects.filter(pk=pk).exists():
        raise TournamentError("not_found", "no such organiser")
    return list(Tournament.objects.filter(organiser_id=pk).order_by(*RECENT)[:FEED_SIZE])


def tournaments_of_game(game: str) -> list[Tournament]:
    from games import selectors as game_selectors

    if not game_selectors.game_exists(game):
        raise TournamentError("not_found", "no such game")
    return list(Tournament.objects.filter(game=game).order_by(*RECENT)[:FEED_SIZE])
