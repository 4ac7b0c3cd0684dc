"""Shared setup for tournament tests: organisers and bot players."""

from __future__ import annotations

from django.contrib.auth.models import Permission

from accounts.models import Player
from tournaments import services


def organiser(username: str = "org") -> Player:
    player = Player.objects.create(username=username, display_name=username.title(),
                                   password="!")
    player.user_permissions.add(Permission.objects.get(codename="add_tournament"))
    return Player.objects.get(pk=player.pk)  # fresh permission cache


def bots(count: int, level: str = "heuristic") -> list[Player]:
    return [Player.objects.get_or_create(
        username=f"bot-{level}-{n}",
        defaults={"display_name": f"Bot {n}", "is_bot": True, "bot_level": level,
                  "password": "!"})[0] for n in range(1, count + 1)]


def bot_tournament(*, game: str, format: str, players: int, options: dict, **kw):
    org = organiser()
    t = services.tournament_create(organiser=org, name=f"{game} {format}", game=game,
                                   format=format, options=options, **kw)
    for bot in bots(players):
        services.tournament_register(player=bot, tournament_id=t.pk)
    return org, t
