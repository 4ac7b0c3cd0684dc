"""After a fresh ``migrate`` a person who is only in the organiser group may create
tournaments (the group's permissions come from migrations, not from the test)."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import json
import django
django.setup()
from django.contrib.auth.models import Group
from django.test import Client
from accounts import services
from accounts.models import Player

person = Player.objects.create(username="olga", display_name="Olga", password="!")
person.groups.add(Group.objects.get(name="organiser"))
assert not person.user_permissions.exists() and not person.is_superuser
_, token = services.api_token_create(player=person, name="t")
query = '''mutation($input: CreateTournamentInput!) { createTournament(input: $input) {
  tournament { name organiser { displayName } } errors { code } } }'''
variables = {"input": {"name": "Friday KaTO", "game": "kato", "format": "SWISS",
                       "tableSize": 2, "options": {"rounds": 1}, "rounds": 2}}
response = Client().post("/graphql/", json.dumps({"query": query, "variables": variables}),
                         content_type="application/json",
                         headers={"Authorization": f"Bearer {token}"})
print(json.dumps(response.json()))
"""


def test_a_member_of_the_organiser_group_creates_a_tournament_after_a_fresh_migrate(tmp_path):
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "REDIS_URL", "CELERY_TASK_ALWAYS_EAGER")}
    env.update(STAPEL_DATA_DIR=str(tmp_path), DJANGO_SETTINGS_MODULE="config.settings")
    subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env,
                   check=True, timeout=300)
    run = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, check=True,
                         capture_output=True, text=True, timeout=120)
    body = json.loads(run.stdout.strip().splitlines()[-1])
    assert body["data"]["createTournament"] == {
        "tournament": {"name": "Friday KaTO", "organiser": {"displayName": "Olga"}},
        "errors": []}
