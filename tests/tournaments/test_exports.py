"""Exports and calendars: standings and pairings as CSV (read back with Python's csv) and JSON,
an elimination's bracket, and .ics feeds that a calendar library parses, with stable UIDs."""

import csv
import io
from datetime import timedelta

import pytest
from django.utils import timezone
from icalendar import Calendar

from games import scheduling
from tournaments import exports, services
from tournaments.models import Standing, Tournament, TournamentTable

from .helpers import bot_tournament, organiser

pytestmark = pytest.mark.django_db(transaction=True)


def _finished(**kw) -> Tournament:
    org, t = bot_tournament(**kw)
    services.tournament_start(actor=org, tournament_id=t.pk)
    assert scheduling.wait_idle(timeout=120)
    t.refresh_from_db()
    assert t.status == "finished"
    return t


def _csv(response) -> list[dict]:
    return list(csv.DictReader(io.StringIO(response.content.decode("utf-8"))))


def test_standings_and_pairings_as_csv_and_json(client):
    t = _finished(game="kato", format="swiss", players=9, options={"rounds": 1}, table_size=4,
                  rounds=2)
    # A name a spreadsheet would run as a formula is defused in the CSV only.
    first = Standing.objects.filter(tournament=t, rank=1).select_related("player").get()
    first.player.display_name = "=HYPERLINK(1)"
    first.player.save(update_fields=["display_name"])

    response = client.get(f"/api/tournaments/{t.pk}/standings.csv")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == (
        f'attachment; filename="stapel-tournament-{t.pk}-standings.csv"')
    rows = _csv(response)
    assert list(rows[0]) == exports.STANDINGS_COLUMNS
    assert [int(r["rank"]) for r in rows] == list(range(1, 10))
    assert rows[0]["player"] == "'=HYPERLINK(1)" and rows[0]["player_id"] == str(first.player_id)
    assert all(int(r["matches"]) + int(r["byes"]) == 2 for r in rows)

    data = client.get(f"/api/tournaments/{t.pk}/standings.json").json()
    assert data["tournament"]["status"] == "finished"
    assert data["standings"][0]["player"] == "=HYPERLINK(1)"
    assert [r["points"] for r in data["standings"]] == [int(r["points"]) for r in rows]

    response = client.get(f"/api/tournaments/{t.pk}/pairings.csv")
    assert response["Content-Disposition"].endswith(f'"stapel-tournament-{t.pk}-pairings.csv"')
    rows = _csv(response)
    assert list(rows[0]) == exports.PAIRINGS_COLUMNS
    links = TournamentTable.objects.filter(round__tournament=t)
    seated = [r for r in rows if r["bye"] == "false"]
    assert len(seated) == sum(len(x.players) for x in links)
    byes = [r for r in rows if r["bye"] == "true"]
    assert len(byes) == 2 and all(r["table"] == "" for r in byes)  # 9 players, tables of 4
    assert {r["round"] for r in rows} == {"1", "2"}
    for link in links:
        mine = [r for r in seated if r["table_id"] == link.table.public_id]
        assert [int(r["player_id"]) for r in mine] == link.players
        assert {r["player_id"]: int(r["placing"]) for r in mine} == link.placings

    response = client.get(f"/api/tournaments/{t.pk}/pairings.json")
    assert response["Content-Type"] == "application/json; charset=utf-8"
    data = response.json()
    assert [len(r["tables"]) for r in data["rounds"]] == [2, 2]
    # Swiss has no bracket.
    response = client.get(f"/api/tournaments/{t.pk}/bracket.json")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_elimination"


def test_an_elimination_bracket_says_who_went_on_and_who_won(client):
    t = _finished(game="kato", format="single_elimination", players=8, options={"rounds": 1},
                  table_size=4, advance=2)
    data = client.get(f"/api/tournaments/{t.pk}/bracket.json").json()
    first, final = data["rounds"]
    assert not first["final"] and final["final"] and data["tournament"]["advance"] == 2
    for table in first["tables"]:
        assert sorted(p["advanced"] for p in table["players"]) == [False, False, True, True]
    assert all(p["advanced"] is None for p in final["tables"][0]["players"])
    finalists = {p["player_id"] for p in final["tables"][0]["players"]}
    assert data["champion"]["player_id"] in finalists
    champion = Standing.objects.get(tournament=t, rank=1)
    assert data["champion"]["player_id"] == str(champion.player_id)
    assert all(isinstance(p["seed"], int) for r in data["rounds"] for x in r["tables"]
               for p in x["players"])


def _events(response) -> dict[str, object]:
    assert response.status_code == 200
    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    cal = Calendar.from_ical(response.content)
    return {str(e["UID"]): e for e in cal.walk("VEVENT")}


def test_calendars_per_tournament_organiser_and_game_with_stable_uids(client, settings):
    settings.STAPEL_CALENDAR_UID_DOMAIN = "example.org"
    org = organiser()
    now = timezone.now().replace(microsecond=0)
    opens, closes, starts = now + timedelta(days=1), now + timedelta(days=6), now + timedelta(days=7)
    t = services.tournament_create(organiser=org, name="Sunday KaTO, \"open\"; all", game="kato",
                                   format="swiss", registration_opens_at=opens,
                                   registration_closes_at=closes, starts_at=starts)
    arena = services.tournament_create(organiser=org, name="Arena", game="karma",
                                       format="arena", duration_minutes=90,
                                       starts_at=starts + timedelta(days=1))
    other = services.tournament_create(organiser=organiser("other"), name="Other", game="kato",
                                       format="swiss", starts_at=starts)

    mine = _events(client.get(f"/api/calendars/organisers/{org.pk}.ics"))
    assert set(mine) == {f"tournament-{t.pk}-registration@example.org",
                         f"tournament-{t.pk}-start@example.org",
                         f"tournament-{arena.pk}-registration@example.org",
                         f"tournament-{arena.pk}-start@example.org"}
    start = mine[f"tournament-{t.pk}-start@example.org"]
    assert str(start["SUMMARY"]) == "Sunday KaTO, \"open\"; all"
    assert start.decoded("DTSTART") == starts
    window = mine[f"tournament-{t.pk}-registration@example.org"]
    assert (window.decoded("DTSTART"), window.decoded("DTEND")) == (opens, closes)
    arena_start = mine[f"tournament-{arena.pk}-start@example.org"]
    assert arena_start.decoded("DTEND") - arena_start.decoded("DTSTART") == timedelta(minutes=90)

    kato = _events(client.get("/api/calendars/games/kato.ics"))
    assert {f"tournament-{t.pk}-start@example.org",
            f"tournament-{other.pk}-start@example.org"} <= set(kato)
    assert not any(f"tournament-{arena.pk}-" in u for u in kato)
    # The same event is the same in every feed, and a feed reads the same twice.
    assert kato[f"tournament-{t.pk}-start@example.org"].to_ical() == start.to_ical()
    one = client.get(f"/api/tournaments/{t.pk}/calendar.ics")
    assert one["Content-Disposition"] == f'inline; filename="stapel-tournament-{t.pk}-calendar.ics"'
    assert set(_events(one)) == {f"tournament-{t.pk}-registration@example.org",
                                 f"tournament-{t.pk}-start@example.org"}
    assert client.get(f"/api/tournaments/{t.pk}/calendar.ics").content == one.content

    services.tournament_cancel(tournament_id=t.pk, reason="rain")
    cancelled = _events(client.get(f"/api/tournaments/{t.pk}/calendar.ics"))
    assert {str(e["STATUS"]) for e in cancelled.values()} == {"CANCELLED"}


def test_unknown_things_are_json_404s(client):
    for url in ("/api/tournaments/999999/standings.csv", "/api/calendars/games/chess.ics",
                "/api/calendars/organisers/999999.ics", "/api/tournaments/999999/bracket.json"):
        response = client.get(url)
        assert response.status_code == 404, url
        assert response.json()["error"]["code"] == "not_found"


def test_only_names_are_defused_in_csv_ids_go_out_as_they_are():
    # A table id is random url-safe text and starts with "-" one time in 64; a site joins the
    # CSV to the API by it, so it must not gain a quote (this failed CI now and then).
    row = {c: None for c in exports.PAIRINGS_COLUMNS}
    row.update(round=1, table=1, table_id="-Ab3_x", seat=0, player_id="-7", player="-x",
               placing=1, bye=False, table_status="finished")
    (header, line) = list(csv.reader(io.StringIO(exports.to_csv(exports.PAIRINGS_COLUMNS,
                                                                 [row]))))
    cells = dict(zip(header, line, strict=True))
    assert cells["table_id"] == "-Ab3_x" and cells["player_id"] == "-7"
    assert cells["player"] == "'-x" and cells["bye"] == "false"
