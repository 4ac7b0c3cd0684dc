"""The admin in a real headless browser (Debian's chromium driven by Playwright): a
moderator logs in, opens a running table with every hand, steps into its log, and bans a
player. Screenshots go to test-artifacts/ for people to look at."""

from __future__ import annotations

import shutil

import pytest
from channels.db import database_sync_to_async

from accounts.models import Player
from games import chat, moderation
from games.selectors import table_pk_from_public

from .play import START, new_guest, open_table
from .test_moderation_live import PASSWORD, make_moderator

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]

pytestmark = [
    pytest.mark.integration, pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed "
                       "(apt-get install chromium); the admin browser test needs it"),
]


async def test_a_moderator_opens_a_table_and_bans_a_player_in_the_browser(
        live_server_url, artifacts_dir):
    playwright_api = pytest.importorskip("playwright.async_api",
                                         reason="the playwright package is not installed")
    await make_moderator(live_server_url, "mona")
    alice = await new_guest(live_server_url, "Alice")
    bob = await new_guest(live_server_url, "Bob the Troll")
    table_id = await open_table(alice, [bob], "kato", {"rounds": 1})
    await alice(START, {"id": table_id})

    def seed_chat_and_report():
        troll = Player.objects.get(display_name="Bob the Troll")
        victim = Player.objects.get(display_name="Alice")
        message = chat.chat_message_send(player=troll, table_id=table_pk_from_public(table_id),
                                         text="you play like a potato")
        moderation.report_create(reporter=victim, player_id=troll.pk, reason="insults in chat",
                                 table_id=table_pk_from_public(table_id),
                                 message_id=message.pk)
        return troll

    troll = await database_sync_to_async(seed_chat_and_report)()

    async with playwright_api.async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                                           headless=True)
        page = await browser.new_page(viewport={"width": 1400, "height": 900})
        try:
            await page.goto(f"{live_server_url}/admin/")
            await page.fill("#id_username", "mona")
            await page.fill("#id_password", PASSWORD)
            await page.click("input[type=submit]")
            await page.wait_for_selector("#site-name")
            await page.screenshot(path=artifacts_dir / "admin-1-index.png", full_page=True)

            # The table list, then the table with every hand and its seats.
            await page.click("text=Tables")
            await page.wait_for_selector("#result_list")
            await page.screenshot(path=artifacts_dir / "admin-2-tables.png", full_page=True)
            # The admin names tables by their key (staff only); the API by their public id.
            table_pk = await database_sync_to_async(table_pk_from_public)(table_id)
            await page.click(f"#result_list a[href$='/games/table/{table_pk}/change/']")
            await page.wait_for_selector(".stapel-hands")
            assert await page.locator(".stapel-card").count() > 0
            await page.screenshot(path=artifacts_dir / "admin-3-table.png", full_page=True)

            # The log, with the state after the first deal.
            await page.click("text=Step through the log")
            await page.wait_for_selector("table.stapel-log")
            await page.click("table.stapel-log tr:has-text('match_started') a:has-text('state')")
            await page.wait_for_selector(".stapel-hands")
            await page.screenshot(path=artifacts_dir / "admin-4-log.png", full_page=True)

            # The reports queue leads to the player; ban them from their page.
            await page.goto(f"{live_server_url}/admin/games/report/")
            await page.wait_for_selector("text=insults in chat")
            await page.screenshot(path=artifacts_dir / "admin-5-reports.png", full_page=True)
            await page.click("#result_list a:has-text('Bob the Troll')")
            await page.wait_for_selector(".object-tools")
            await page.screenshot(path=artifacts_dir / "admin-6-player.png", full_page=True)
            await page.click(".object-tools a:has-text('Ban')")
            await page.fill("#id_reason", "insults in chat, repeatedly")
            await page.select_option("#id_duration", "7d")
            await page.screenshot(path=artifacts_dir / "admin-7-ban-form.png", full_page=True)
            await page.click("input[name=apply]")
            await page.wait_for_selector(".messagelist .success")
            await page.screenshot(path=artifacts_dir / "admin-8-banned.png", full_page=True)

            await page.goto(f"{live_server_url}/admin/games/auditlog/")
            await page.wait_for_selector("#result_list >> text=insults in chat, repeatedly")
            await page.screenshot(path=artifacts_dir / "admin-9-audit-log.png", full_page=True)
        finally:
            await browser.close()

    await database_sync_to_async(troll.refresh_from_db)()
    assert troll.is_banned() and troll.ban_reason == "insults in chat, repeatedly"
