"""Staff and players for the moderation tests, and a running table to moderate."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps as global_apps
from django.contrib.auth.models import Group

from accounts import services as account_services
from accounts.models import Player
from games import chat, services

PASSWORD = "a-long-moderator-password"


def staff_groups() -> None:
    """The groups of the data migrations (transactional tests flush them away)."""
    importlib.import_module("games.migrations.0003_staff_groups").create_groups(global_apps, None)
    importlib.import_module("games.migrations.0011_staff_see_player_stats").grant(global_apps,
                                                                                   None)


def person(username: str, *, staff: bool = False, group: str | None = None) -> Player:
    player = Player.objects.create_user(username=username, password=PASSWORD,
                                        display_name=username.capitalize(), is_staff=staff)
    if group:
        staff_groups()
        player.groups.add(Group.objects.get(name=group))
    return Player.objects.get(pk=player.pk)  # fresh permission cache


@pytest.fixture
def moderator(db):
    return person("mona", staff=True, group="moderator")


@pytest.fixture
def organiser(db):
    return person("otto", staff=True, group="organiser")


@pytest.fixture
def plain(db):
    return person("paul")


@pytest.fixture
def staff_without_group(db):
    return person("sam", staff=True)


@pytest.fixture
def troll(db):
    player, token = account_services.guest_create(display_name="Troll")
    player.raw_token = token
    return player


def playing_table(*people: Player, game: str = "kato", bots: int = 0):
    table = services.table_create(creator=people[0], game=game, seat_count=len(people) + bots,
                                  options={"rounds": 1} if game == "kato" else None)
    for other in people[1:]:
        services.table_join(player=other, table_id=table.pk)
    for _ in range(bots):
        services.bot_add(player=people[0], table_id=table.pk)
    return services.table_start(player=people[0], table_id=table.pk)


@pytest.fixture
def table(troll, plain):
    return playing_table(troll, plain)


@pytest.fixture
def message(table, troll):
    return chat.chat_message_send(player=troll, table_id=table.pk, text="you all stink")


