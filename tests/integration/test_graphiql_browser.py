"""GraphiQL in a real headless browser (Debian's chromium, Playwright), cut off from the
internet: with DEBUG on it loads every file from our own server and answers a query. The
screenshot goes to test-artifacts/graphiql.png."""

from __future__ import annotations

import pytest

from .conftest import service_env, start_server
from .test_admin_browser import CHROMIUM, CHROMIUM_ARGS

pytestmark = [
    pytest.mark.integration, pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed "
                       "(apt-get install chromium); the browser tests need it"),
]


async def test_graphiql_works_offline_and_answers_a_query(django_db_setup, artifacts_dir):
    playwright_api = pytest.importorskip("playwright.async_api",
                                         reason="the playwright package is not installed")
    proc, url = start_server(artifacts_dir, service_env(DEBUG="true"))
    elsewhere: list[str] = []

    async def offline(route):
        # Anything not asked of our own server would need the internet: refuse and record.
        if route.request.url.startswith(url):
            await route.continue_()
        else:
            elsewhere.append(route.request.url)
            await route.abort()

    try:
        async with playwright_api.async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                                               headless=True)
            page = await browser.new_page(viewport={"width": 1400, "height": 800})
            await page.route("**/*", offline)
            failed: list[str] = []
            page.on("requestfailed", lambda request: failed.append(request.url))
            try:
                await page.goto(f"{url}/graphql/?q=" + "{ games { id name } }")
                await page.wait_for_selector(".graphiql-execute-button", timeout=30000)
                await page.locator(".graphiql-query-editor").get_by_text("games").wait_for(
                    timeout=30000)
                result = page.locator(".result-window")
                answered = result.get_by_text('"Karma"', exact=True)
                for _ in range(3):  # a click while the page still settles may be lost
                    await page.click(".graphiql-execute-button")
                    try:
                        await answered.wait_for(timeout=15000)
                        break
                    except playwright_api.TimeoutError:
                        continue
                await page.screenshot(path=artifacts_dir / "graphiql.png")
                assert '"kato"' in await result.inner_text()
            finally:
                await browser.close()
    finally:
        proc.stop()
    assert elsewhere == []
    assert [u for u in failed if not u.endswith(".map")] == []
