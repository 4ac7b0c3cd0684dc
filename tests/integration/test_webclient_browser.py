"""The reference web client (games/webclient) in a real headless browser against a real
server and worker: a guest opens a KaTO table with three bots and clicks to the end of the
match; nothing the browser received carries another seat's cards. Screenshots go to
test-artifacts/."""

from __future__ import annotations

import json
import shutil
import time

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]

pytestmark = [
    pytest.mark.integration, pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed "
                       "(apt-get install chromium); the web client browser test needs it"),
]


def _views(node):
    """Every object in a payload that looks like a game view (has handCounts)."""
    if isinstance(node, dict):
        if "handCounts" in node:
            yield node
        for value in node.values():
            yield from _views(value)
    elif isinstance(node, list):
        for value in node:
            yield from _views(value)


def _check_no_foreign_cards(frames, my_seat):
    for frame in frames:
        assert '"hands"' not in frame, "a payload carried every hand"
        for view in _views(json.loads(frame)):
            if view.get("hand") is not None:
                assert view.get("seat") == my_seat, "a view with a hand for another seat"


async def test_a_guest_plays_a_whole_kato_match_against_three_bots(
        live_server_url, celery_worker_proc, artifacts_dir):
    playwright_api = pytest.importorskip("playwright.async_api",
                                         reason="the playwright package is not installed")
    async with playwright_api.async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                                           headless=True)
        page = await browser.new_page(viewport={"width": 1200, "height": 900})
        frames: list[str] = []
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(
            payload if isinstance(payload, str) else payload.decode())))
        try:
            await page.goto(f"{live_server_url}/")
            await page.fill("input[name=name]", "Ada")
            await page.click("button[type=submit]")
            await page.wait_for_selector("#create select[name=game]")
            await page.select_option("#create select[name=game]", "kato")
            await page.fill("#create input[name='opt-rounds']", "1")
            await page.click("#create button[type=submit]")
            await page.wait_for_selector("#addbot")
            for _ in range(3):
                await page.click("#addbot")
                await page.wait_for_timeout(300)
            await page.screenshot(path=artifacts_dir / "webclient-kato-0-seats.png", full_page=True)
            await page.click("#start")
            await page.wait_for_selector(".hand .card")
            shot = False
            deadline = time.monotonic() + 240
            while time.monotonic() < deadline:
                status = (await page.text_content("#status") or "").strip()
                if status == "finished":
                    break
                enabled = page.locator("#actions button.action:enabled")
                if await enabled.count():
                    # Prefer a card from the hand (a play), else the first action (draw, pass, colour ...).
                    card = page.locator(".hand button.card:enabled")
                    if await card.count():
                        await card.first.click()
                        choice = page.locator("#actions button.choice:enabled")
                        if await choice.count():  # a wild card: pick the first colour offered
                            await choice.first.click()
                        await page.wait_for_timeout(150)
                        if not shot:
                            await page.screenshot(path=artifacts_dir / "webclient-kato-1-mid.png", full_page=True)
                            shot = True
                        continue
                    await enabled.first.click()
                await page.wait_for_timeout(150)
            await page.screenshot(path=artifacts_dir / "webclient-kato-2-end.png", full_page=True)
            assert (await page.text_content("#status") or "").strip() == "finished"
            assert await page.locator("#moves li").count() > 10
            _check_no_foreign_cards(frames, 0)
        except Exception as failure:
            await page.screenshot(path=artifacts_dir / "webclient-failure.png", full_page=True)
            flash = await page.text_content("#flash")
            raise AssertionError(f"page errors {errors}; flash {flash!r}") from failure
        finally:
            await browser.close()


async def _guest_page(browser, url, name, frames=None):
    context = await browser.new_context(viewport={"width": 390, "height": 844})
    page = await context.new_page()
    if frames is not None:
        page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(
            payload if isinstance(payload, str) else payload.decode())))
    await page.goto(f"{url}/")
    await page.fill("input[name=name]", name)
    await page.click("button[type=submit]")
    await page.wait_for_selector("#create select[name=game]")
    return page


async def test_a_reload_resumes_the_move_list_and_a_spectator_sees_no_hand(
        live_server_url, celery_worker_proc, artifacts_dir):
    playwright_api = pytest.importorskip("playwright.async_api",
                                         reason="the playwright package is not installed")
    async with playwright_api.async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                                           headless=True)
        try:
            page = await _guest_page(browser, live_server_url, "Ada")
            await page.select_option("#create select[name=game]", "kato")
            await page.fill("#create input[name='opt-rounds']", "1")
            await page.click("#create button[type=submit]")
            await page.wait_for_selector("#addbot")
            for _ in range(3):
                await page.click("#addbot")
                await page.wait_for_timeout(300)
            await page.click("#start")
            await page.wait_for_selector(".hand .card")
            await page.wait_for_timeout(1000)
            before = await page.locator("#moves li").all_text_contents()
            await page.reload()
            await page.wait_for_selector(".hand .card")
            await page.wait_for_timeout(1000)
            after = await page.locator("#moves li").all_text_contents()
            assert len(before) > 5
            assert after[:len(before)] == before, "the move list after the reload lost or reordered moves"

            # A second person opens the same (public) table: counts and the pile, no hand.
            frames: list[str] = []
            watcher = await _guest_page(browser, live_server_url, "Eve", frames)
            await watcher.goto(page.url)
            await watcher.wait_for_selector(".counts li")
            assert await watcher.locator(".hand").count() == 0
            assert await watcher.locator(".note").count() == 1
            await watcher.wait_for_timeout(1000)
            (artifacts_dir / "webclient-spectator-frames.txt").write_text("\n".join(frames))
            await watcher.screenshot(path=artifacts_dir / "webclient-kato-spectator-phone.png",
                                     full_page=True)
            for frame in frames:
                assert '"hands"' not in frame
                for view in _views(json.loads(frame)):
                    assert view.get("hand") is None, "a spectator received a hand"
        finally:
            await browser.close()
