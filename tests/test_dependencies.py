"""Keep only what is used: every runtime dependency in pyproject.toml is used by the code or
the process definitions, and nothing is installed into Django that no process needs."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from django.conf import settings

ROOT = Path(__file__).resolve().parents[1]
# Distribution name -> what the code says when it uses it.
USED_AS = {"django": "django", "strawberry-graphql": "strawberry", "channels-redis":
           "channels_redis", "uvicorn": "uvicorn", "psycopg": "postgresql",
           "dj-database-url": "dj_database_url", "django-cors-headers": "corsheaders",
           "prometheus-client": "prometheus_client", "celery-redbeat": "redbeat"}


def _requirement_name(requirement: str) -> str:
    return re.split(r"[\[<>=!~ ;]", requirement, maxsplit=1)[0].lower()


def _our_text() -> str:
    files = [*ROOT.glob("config/**/*.py"), *ROOT.glob("games/**/*.py"),
             *ROOT.glob("accounts/**/*.py"), *ROOT.glob("tournaments/**/*.py"),
             ROOT / "Makefile", *ROOT.glob("deploy/*")]
    return "\n".join(f.read_text() for f in files if f.is_file())


def test_every_runtime_dependency_is_used():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    text = _our_text()
    unused = [name for name in map(_requirement_name, project["dependencies"])
              if USED_AS.get(name, name.replace("-", "_")) not in text]
    assert unused == []


def test_no_asgi_server_but_uvicorn_is_wired_in():
    assert "daphne" not in settings.INSTALLED_APPS
    assert "--ws " not in (ROOT / "Makefile").read_text()  # deprecated; uvicorn picks
