"""A moderator in the admin of the real server, over plain HTTP: logs in and submits the
admin's forms with their CSRF token, as a browser would."""

from __future__ import annotations

import re

import httpx

CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


class AdminSession:
    def __init__(self, base_url: str):
        self.base_url = base_url.rstrip("/")
        self.client = httpx.AsyncClient(base_url=self.base_url, timeout=30)

    async def _csrf(self, path: str) -> str:
        response = await self.client.get(path)
        response.raise_for_status()
        return CSRF.search(response.text).group(1)

    async def login(self, username: str, password: str) -> None:
        token = await self._csrf("/admin/login/")
        response = await self.client.post("/admin/login/?next=/admin/", data={
            "csrfmiddlewaretoken": token, "username": username, "password": password,
            "next": "/admin/"})
        assert response.status_code == 302 and response.headers["location"] == "/admin/", \
            response.text[:500]

    async def submit(self, path: str, data: dict) -> httpx.Response:
        """GET the form at ``path``, then POST it with ``data``."""
        token = await self._csrf(path)
        return await self.client.post(path, data={"csrfmiddlewaretoken": token, **data})

    async def close(self):
        await self.client.aclose()
