"""The reference web client (games/webclient) in a real headless browser against a real
server and worker. A guest clicks a whole KaTO match against three bots and one whole round
of each other game; two browsers play at a private table joined by its invite link; a page
reload resumes the move list; a spectator sees no hand; a tournament page follows a bot
tournament to its standings. Nothing any browser received carries a card its seat may not
see. Screenshots go to test-artifacts/."""

from __future__ import annotations

import json
import re
import shutil
import time

import pytest
from channels.db import database_sync_to_async

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]

pytestmark = [
    pytest.mark.integration, pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed "
                       "(apt-get install chromium); the web client browser test needs it"),
]

DESKTOP = {"width": 1200, "height": 900}
PHONE = {"width": 390, "height": 844}
# The foreign-card check also looks at these per-seat secrets in events.
SECRET_EVENTS = {"dealt", "drew_cards", "drew_card", "hand_shown", "peeked_hand", "hand_swapped",
                 "received_card", "gave_card", "face_up_choice", "placed_reserve",
                 "inserted_card", "played_from"}


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


def _events(node):
    if isinstance(node, dict):
        if "type" in node and "data" in node and isinstance(node["data"], dict):
            yield node
        for value in node.values():
            yield from _events(value)
    elif isinstance(node, list):
        for value in node:
            yield from _events(value)


def _check_no_foreign_cards(frames, my_seat):
    """No websocket payload the browser held carries another seat's hand or secret cards
    (``my_seat`` None: a spectator, who may see no hand at all)."""
    assert frames, "the browser received no websocket frames"
    for frame in frames:
        assert '"hands"' not in frame, "a payload carried every hand"
        payload = json.loads(frame)
        for view in _views(payload):
            if view.get("hand") is not None:
                assert my_seat is not None and view.get("seat") == my_seat, \
                    "a view with a hand for another seat"
        for event in _events(payload):
            if event["type"] in SECRET_EVENTS:
                data = event["data"]
                seats = {data.get("seat"), data.get("from"), data.get("to")} - {None}
                assert my_seat in seats, f"a {event['type']} event of another seat: {data}"


class Browser:
    """One chromium for a test; each person gets a context of their own."""

    def __init__(self, pw):
        self.pw = pw

    async def __aenter__(self):
        self.browser = await self.pw.chromium.launch(executable_path=CHROMIUM,
                                                     args=CHROMIUM_ARGS, headless=True)
        return self

    async def __aexit__(self, *exc):
        await self.browser.close()

    async def person(self, url, name, viewport=DESKTOP, locale="en-GB", setup=None):
        context = await self.browser.new_context(viewport=viewport, locale=locale)
        page = await context.new_page()
        if setup is not None:
            await setup(page)
        page.frames_received = []
        page.errors = []
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        page.sockets_closed = []

        def watch(ws):
            ws.on("framereceived", lambda payload: page.frames_received.append(
                payload if isinstance(payload, str) else payload.decode()))
            ws.on("close", lambda ws: page.sockets_closed.append(ws.url))

        page.on("websocket", watch)
        await page.goto(f"{url}/")
        await page.fill("input[name=name]", name)
        await page.click("button[type=submit]")
        await page.wait_for_selector("#create select[name=game]")
        return page


async def _create_table(page, game, options, seats=4, private=False):
    await page.select_option("#create select[name=game]", game)
    await page.fill("#create input[name=seats]", str(seats))
    for name, value in options.items():
        await page.fill(f"#create input[name='opt-{name}']", str(value))
    if private:
        await page.select_option("#create select[name=visibility]", "PRIVATE")
    await page.click("#create button[type=submit]")
    await page.wait_for_selector("#addbot")


async def _add_bots(page, count):
    for n in range(count):
        await page.click("#addbot")
        await page.wait_for_function(
            "n => document.querySelectorAll('[data-remove]').length >= n", arg=n + 1)


async def _status(page):
    return await page.get_attribute("#status", "data-status")


async def _click(locator) -> bool:
    """Click unless the page moved on meanwhile (the element went away or was disabled by an
    update): then the next step looks again."""
    try:
        await locator.click(timeout=1500)
        return True
    except Exception as exc:  # playwright's TimeoutError
        if "Timeout" not in type(exc).__name__:
            raise
        return False


async def _step(page) -> bool:
    """One click a player would make, if it is their turn: a pending choice first, then the
    call when it is offered, then the first highlighted card or slot, else the first action."""
    for selector in ("#actions button.choice:enabled", "#confirm-faceup:enabled"):
        button = page.locator(selector)
        if await button.count():
            return await _click(button.first)
    if await page.locator("#confirm-faceup").count():  # Karma: pick the first unpicked card
        return await _click(page.locator("#hand button.card[aria-pressed=false]").first)
    call = page.locator("#call[aria-pressed=false]")
    if await call.count():
        return await _click(call)
    target = page.locator("#hand button.card[aria-disabled=false], "
                          "#hand button.slot[aria-disabled=false]")
    if await target.count():
        return await _click(target.first)
    action = page.locator("#actions button.action:enabled")
    if await action.count():
        return await _click(action.first)
    return False


async def _round_over(page):
    return await page.locator("table.results tbody tr").count() > 0


async def _play_to_the_end(pages, artifacts_dir, shot_name, timeout=150, shot_after=6,
                           round_only=False):
    """Click for every page until the match (or with ``round_only`` its first round) is over;
    one screenshot of the first page midway."""
    deadline = time.monotonic() + timeout
    clicks = 0
    for page in pages:
        page.sockets_closed.clear()
    while time.monotonic() < deadline:
        if await _status(pages[0]) in ("finished", "aborted"):
            break
        if round_only and await _round_over(pages[0]):
            break
        moved = False
        for page in pages:
            if await _step(page):
                moved = True
                clicks += 1
                if clicks == shot_after:
                    await pages[0].screenshot(path=artifacts_dir / shot_name, full_page=True)
        await pages[0].wait_for_timeout(60 if moved else 120)
    if not (round_only and await _round_over(pages[0])):
        assert await _status(pages[0]) == "finished", f"the match did not end ({clicks} clicks)"
        await pages[0].wait_for_selector("#winner")
    for page in pages:
        # The server closes a socket that breaks the protocol (a repeated id: 4409): none did.
        assert not page.sockets_closed, "a websocket was closed during the match"
    return clicks


async def _failure(page, artifacts_dir, name):
    await page.screenshot(path=artifacts_dir / f"webclient-failure-{name}.png", full_page=True)
    flash = await page.text_content("#flash")
    return f"page errors {page.errors}; flash {flash!r}"


def _playwright():
    return pytest.importorskip("playwright.async_api",
                               reason="the playwright package is not installed")


MOVED_OR_CHOOSING = """() => document.activeElement.matches('#actions button.choice')
    || [...document.querySelectorAll('#moves li')]
       .some(li => /^Ada (plays|draws|chooses)/.test(li.textContent))"""


async def _keyboard_move(page, tries: int = 3) -> None:
    """Tab to a playable card or an action and press Enter, as a person with a keyboard
    would: again (as they would) when nothing came of it within 10 s. A card with several
    readings (a wild card: which colour?) then offers its choices and takes the focus."""
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    for _ in range(tries):
        for _ in range(80):
            await page.keyboard.press("Tab")
            if await page.evaluate("""() => document.activeElement.matches(
                    '#hand button.card[aria-disabled=false], #actions button.action')"""):
                break
        else:
            raise AssertionError("Tab reached no playable card or action: focus on "
                                 + await page.evaluate("() => document.activeElement.outerHTML"))
        await page.keyboard.press("Enter")
        try:
            await page.wait_for_function(MOVED_OR_CHOOSING, timeout=10_000)
            return
        except PlaywrightTimeout:
            continue
    raise AssertionError(f"{tries} presses of Enter on a playable control made no move")


async def test_a_guest_plays_a_whole_kato_match_against_three_bots(
        live_server_url, celery_worker_proc, artifacts_dir):
    async with _playwright().async_playwright() as pw, Browser(pw) as b:
        page = await b.person(live_server_url, "Ada")
        try:
            await _create_table(page, "kato", {"rounds": 2, "hand_size": 5})
            await _add_bots(page, 3)
            await page.screenshot(path=artifacts_dir / "webclient-kato-0-seats.png", full_page=True)
            await page.click("#start")
            await page.wait_for_selector(".hand .card")
            # The first move by keyboard alone: Tab to a playable card or an action, Enter.
            await page.wait_for_selector("#board[data-my-turn=true]")
            await _keyboard_move(page)
            if await page.evaluate("() => document.activeElement.matches('#actions .choice')"):
                await page.keyboard.press("Enter")
            await page.wait_for_function("""() => [...document.querySelectorAll('#moves li')]
                .some(li => /^Ada (plays|draws|chooses)/.test(li.textContent))""")
            clicks = await _play_to_the_end([page], artifacts_dir, "webclient-kato-1-mid.png",
                                            timeout=200)
            await page.screenshot(path=artifacts_dir / "webclient-kato-2-end.png", full_page=True)
            # The language switch: the same page in German.
            await page.select_option("#lang", "de")
            await page.wait_for_selector("#status:has-text('beendet')")
            await page.wait_for_selector("#winner:has-text('Gewonnen hat')")
            await page.select_option("#lang", "en")
            await page.wait_for_selector("#winner:has-text('Winner')")
            await page.wait_for_function("document.querySelectorAll('#moves li').length > 10")
            assert clicks > 3
            # Two rounds and the match as a table; the move list reads as sentences.
            assert await page.locator("table.results tbody tr").count() == 3
            moves = await page.locator("#moves li").all_text_contents()
            assert len(moves) > 10 and any(m.startswith("Ada plays ") for m in moves)
            assert not any("=" in m or "{" in m for m in moves), moves[:20]
            names = await page.locator(".seatbox .who").all_text_contents()
            assert len(set(names)) == 4, names  # the three bots can be told apart
            _check_no_foreign_cards(page.frames_received, 0)
            assert not page.errors
        except Exception as failure:
            raise AssertionError(await _failure(page, artifacts_dir, "kato")) from failure


# Karma and Ätsch (rounds 1) are one round a match; Krass Kariert plays its first deal.
@pytest.mark.parametrize("game,seats,options", [
    ("krass_kariert", 3, {"hand_size": 5}),
    ("karma", 2, {}),
    ("aetsch", 3, {"hand_size": 4}),
])
async def test_a_guest_plays_a_whole_round_of_each_other_game(
        live_server_url, celery_worker_proc, artifacts_dir, game, seats, options):
    async with _playwright().async_playwright() as pw, Browser(pw) as b:
        page = await b.person(live_server_url, "Ada", locale="de-DE")
        try:
            await _create_table(page, game, options, seats=seats)
            await _add_bots(page, seats - 1)
            await page.click("#start")
            await page.wait_for_selector(".hand .card")
            one_deal = game == "krass_kariert"
            await _play_to_the_end([page], artifacts_dir, f"webclient-{game}-mid.png",
                                   shot_after=4, round_only=one_deal)
            await page.screenshot(path=artifacts_dir / f"webclient-{game}-end.png", full_page=True)
            # The browser's language is German: so is the page.
            if one_deal:
                assert await page.locator("table.results tbody tr").count() == 1
                assert await page.locator("#moves li", has_text="verliert einen Chip").count() == 1
            else:
                assert (await page.text_content("#status")).strip() == "beendet"
                assert await page.locator("table.results tr.final").count() == 1
            moves = await page.locator("#moves li").all_text_contents()
            assert not any("=" in m or "{" in m for m in moves), moves[:20]
            _check_no_foreign_cards(page.frames_received, 0)
            assert not page.errors
        except Exception as failure:
            raise AssertionError(await _failure(page, artifacts_dir, game)) from failure


async def test_a_friend_joins_a_private_table_by_its_invite_link_and_both_play(
        live_server_url, celery_worker_proc, artifacts_dir):
    async with _playwright().async_playwright() as pw, Browser(pw) as b:
        ada = await b.person(live_server_url, "Ada")
        bob = await b.person(live_server_url, "Bob", viewport=PHONE)
        try:
            await ada.screenshot(path=artifacts_dir / "webclient-lobby.png", full_page=True)
            await _create_table(ada, "kato", {"rounds": 1, "hand_size": 4}, seats=3, private=True)
            link = await ada.input_value("#invite")
            assert "/join/" in link
            await bob.goto(link)
            await bob.wait_for_selector(".seats")
            assert await bob.locator("#join").count() == 0  # the link seated Bob
            await _add_bots(ada, 1)
            # Chat before the start: Bob sees Ada's message and may report it.
            await ada.fill("#chatform input", "Viel Glück!")
            await ada.click("#chatform button")
            await bob.wait_for_selector("#chatlog li:has-text('Viel Glück!') button.report")
            # Bob reports the message; the prompt asks why.
            bob.once("dialog", lambda dialog: dialog.accept("spam"))
            await bob.click("#chatlog li:has-text('Viel Glück!') button.report")
            await bob.wait_for_selector("#flash.info:has-text('moderators have your report')")
            # Chatting too fast: the refusal says when to try again (CHAT_RATE 5 per 10 s).
            for n in range(6):
                await bob.fill("#chatform input", f"hallo {n}")
                await bob.click("#chatform button")
                await bob.wait_for_function("""() => document.querySelector('#chatform input').value === ''
                    || /try again in [0-9]+ s/.test(document.querySelector('#flash').textContent)""")
            assert re.search(r"try again in \d+ s", await bob.text_content("#flash"))
            await bob.wait_for_selector("#chatlog li:has-text('hallo 4')")
            await ada.click("#start")
            await ada.wait_for_selector(".hand .card")
            await bob.wait_for_selector(".hand .card")
            await _play_to_the_end([ada, bob], artifacts_dir, "webclient-invite-mid.png")
            await bob.wait_for_selector("#winner")
            await bob.screenshot(path=artifacts_dir / "webclient-invite-phone-end.png", full_page=True)
            _check_no_foreign_cards(ada.frames_received, 0)
            _check_no_foreign_cards(bob.frames_received, 1)
            assert not ada.errors and not bob.errors
        except Exception as failure:
            raise AssertionError(await _failure(ada, artifacts_dir, "invite-ada")
                                 + await _failure(bob, artifacts_dir, "invite-bob")) from failure


async def test_a_reload_resumes_the_move_list_and_a_spectator_sees_no_hand(
        live_server_url, celery_worker_proc, artifacts_dir):
    async with _playwright().async_playwright() as pw, Browser(pw) as b:
        page = await b.person(live_server_url, "Ada", viewport=PHONE)
        await _create_table(page, "kato", {"rounds": 1})
        await _add_bots(page, 3)
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
        watcher = await b.person(live_server_url, "Eve", viewport=PHONE)
        await watcher.goto(page.url)
        await watcher.wait_for_selector(".counts li")
        assert await watcher.locator(".hand").count() == 0
        assert await watcher.locator(".note").count() == 1
        await watcher.wait_for_timeout(1000)
        await watcher.screenshot(path=artifacts_dir / "webclient-kato-spectator-phone.png",
                                 full_page=True)
        _check_no_foreign_cards(watcher.frames_received, None)


def _bot_tournament():
    from tests.tournaments.helpers import bot_tournament

    return bot_tournament(game="kato", format="swiss", players=8,
                          options={"rounds": 1, "hand_size": 3}, table_size=4, rounds=2)


def _start(org, tournament):
    from tournaments.services import tournament_start

    tournament_start(actor=org, tournament_id=tournament.pk)


async def test_a_tournament_page_follows_a_bot_tournament_to_its_standings(
        live_server_url, celery_worker_proc, artifacts_dir):
    org, tournament = await database_sync_to_async(_bot_tournament)()
    async with _playwright().async_playwright() as pw, Browser(pw) as b:
        page = await b.person(live_server_url, "Fan")
        try:
            await page.click("header a[href='/tournaments']")
            await page.click(f"a[href='/tournaments/{tournament.pk}']")
            await page.wait_for_selector("#tstatus[data-status=REGISTRATION]")
            await database_sync_to_async(_start)(org, tournament)
            # Bots without pauses may finish both rounds before the page reads RUNNING.
            await page.wait_for_selector(
                "#tstatus[data-status=RUNNING], #tstatus[data-status=FINISHED]", timeout=20_000)
            await page.wait_for_selector("#tstatus[data-status=FINISHED]", timeout=120_000)
            rows = page.locator("table.standings tbody tr")
            assert await rows.count() == 8
            assert (await rows.first.locator("td").first.text_content()).strip() == "1"
            assert await page.locator("ul.rounds li").count() == 2
            await page.screenshot(path=artifacts_dir / "webclient-tournament.png", full_page=True)
            # The rated tournament's players are on the KaTO leaderboard.
            await page.click("header a[href='/leaderboard']")
            await page.wait_for_selector("table.results tbody tr")
            assert await page.locator("table.results tbody tr").count() >= 8
            assert not page.errors
        except Exception as failure:
            raise AssertionError(await _failure(page, artifacts_dir, "tournament")) from failure


async def test_a_stale_move_refreshes_the_table_without_a_word(
        live_server_url, celery_worker_proc, artifacts_dir):
    """The socket between page and server is routed: Ada's first move goes out with a version
    one behind, as if someone had moved first. The server answers `stale_version`; the page
    shows no error, reloads the table, and her next click plays."""
    answers = []

    async def route(page):
        async def handler(ws):
            server = ws.connect_to_server()
            stale = {"sent": False}

            def to_server(message):
                frame = json.loads(message)
                query = (frame.get("payload") or {}).get("query") or ""
                if frame.get("type") == "subscribe" and "act(" in query and not stale["sent"]:
                    stale["sent"] = True
                    frame["payload"]["variables"]["v"] -= 1
                    message = json.dumps(frame)
                server.send(message)

            def to_page(message):
                if "stale_version" in message:
                    answers.append(message)
                ws.send(message)

            ws.on_message(to_server)
            server.on_message(to_page)

        await page.route_web_socket("**/graphql/", handler)

    async with _playwright().async_playwright() as pw, Browser(pw) as b:
        page = await b.person(live_server_url, "Ada", setup=route)
        table_reads = []
        page.on("request", lambda r: table_reads.append(r.post_data) if (
            r.method == "POST" and "roundResults" in (r.post_data or "")) else None)
        try:
            await _create_table(page, "kato", {"rounds": 1, "hand_size": 4}, seats=2)
            await _add_bots(page, 1)
            await page.click("#start")
            await page.wait_for_selector("#board[data-my-turn=true]")
            reads = len(table_reads)
            for _ in range(50):  # a wild card takes two clicks (card, colour)
                if answers:
                    break
                await _step(page)
                await page.wait_for_timeout(100)
            assert answers, "the server did not answer stale_version"
            await page.wait_for_timeout(300)
            assert len(table_reads) > reads, "the table was not read again"
            assert await page.locator("#flash").is_hidden(), await page.text_content("#flash")
            # The next click is sent with the version the page has now, and plays.
            await page.wait_for_selector("#board[data-my-turn=true]")
            played = """() => [...document.querySelectorAll('#moves li')]
                .some(li => /^Ada (plays|draws|chooses)/.test(li.textContent))"""
            for _ in range(20):  # a wild card takes two clicks (card, then colour)
                if await page.evaluate(played):
                    break
                await _step(page)
                await page.wait_for_timeout(200)
            await page.wait_for_function(played)
            assert await page.locator("#flash").is_hidden()
        except Exception as failure:
            raise AssertionError(await _failure(page, artifacts_dir, "stale")) from failure


async def test_a_finished_match_is_watched_again_step_by_step(
        live_server_url, celery_worker_proc, artifacts_dir):
    """A short KaTO match against a bot, then its replay from the table page: the arrow keys
    and buttons step through it, each step reads as sentences, the hands dealt are revealed,
    and the last step shows the match result."""
    async with _playwright().async_playwright() as pw, Browser(pw) as b:
        page = await b.person(live_server_url, "Ada")
        try:
            await _create_table(page, "kato", {"rounds": 1, "hand_size": 3}, seats=2)
            await _add_bots(page, 1)
            await page.click("#start")
            await page.wait_for_selector(".hand .card")
            await _play_to_the_end([page], artifacts_dir, "webclient-replay-mid.png", timeout=30)
            await page.click("#replay-link")
            await page.wait_for_selector("#rv-counter[data-step='1']")
            counter = await page.text_content("#rv-counter")
            total = int(re.fullmatch(r"Step 1 of (\d+)", counter).group(1))
            assert total > 4
            assert await page.locator("#rv-first").is_disabled()
            await page.keyboard.press("ArrowRight")
            await page.wait_for_selector("#rv-counter[data-step='2']")
            await page.click("#rv-last")
            await page.wait_for_selector(f"#rv-counter[data-step='{total}']")
            assert await page.locator("#rv-hands li").count() == 2
            assert await page.locator("#rv-forward").is_disabled()
            await page.wait_for_selector("#rv-winner:has-text('Winner')")
            assert await page.locator("#rv-result table.results tr.final").count() == 1
            assert await page.locator("#rv-events li", has_text="Final placings").count() == 1
            await page.screenshot(path=artifacts_dir / "webclient-replay.png", full_page=True)
            for step in range(total - 1, total - 4, -1):
                await page.keyboard.press("ArrowLeft")
                await page.wait_for_selector(f"#rv-counter[data-step='{step}']")
            assert await page.locator("#rv-winner").count() == 0
            await page.click("#rv-back")
            await page.wait_for_selector(f"#rv-counter[data-step='{total - 4}']")
            await page.keyboard.press("Home")
            await page.wait_for_selector("#rv-counter:has-text('Step 1 of')")
            # Forward to the first deal: the hands only their seats saw are revealed.
            for step in range(2, total + 1):
                await page.keyboard.press("ArrowRight")
                await page.wait_for_selector(f"#rv-counter[data-step='{step}']")
                if await page.locator("#rv-events li.revealed[data-type=dealt]").count():
                    break
            assert await page.locator("#rv-events li.revealed[data-type=dealt] .card").count() == 6
            await page.screenshot(path=artifacts_dir / "webclient-replay-deal.png", full_page=True)
            moves = await page.locator("#rv-events li").all_text_contents()
            assert moves and not any("=" in m or "{" in m for m in moves), moves
            assert not page.errors
        except Exception as failure:
            raise AssertionError(await _failure(page, artifacts_dir, "replay")) from failure
