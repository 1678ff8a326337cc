"""The browser front end in a real headless Chromium, against the real server.

The server (``create_app`` on uvicorn, a temporary SQLite file) runs in a thread; Debian's
``chromium`` is driven by Playwright. A person plays a whole game against a bot by clicking
(following the hints: click the hinted tiles, then the move button the selection offers),
and the end screen's score arithmetic is checked against the record the server stores. A
phone-sized viewport must not scroll sideways and its controls must be tap-sized.

Skipped, with the reason, when Playwright (Python), the server's packages or Chromium are
missing. ``NORETURN_CHROMIUM`` names another Chromium binary. The picture in the docs is made
by ``docs/make_web_screenshot.py``, not here, so a test run never rewrites the docs.
"""

from __future__ import annotations

import os
import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright for Python is not installed (pip install playwright)")
uvicorn = pytest.importorskip("uvicorn", reason="the server's packages are not installed")
pytest.importorskip("fastapi", reason="the server's packages are not installed")

from noreturn.records import check_record  # noqa: E402
from noreturn.server.app import create_app  # noqa: E402

CHROMIUM = os.environ.get("NORETURN_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
SMALL_RULES = {"colors": "3", "max_value": "6", "hand_size": "5"}
"""A small variant typed into the lobby's rules form (the whole game is the published one)."""
LINE = re.compile(r"^(\d+)\. (.+): (-?\d+) = pile (-?\d+) - rows (-?\d+)$")
TILE = re.compile(r"^[ROYGBP]\d+$")
MAX_TURNS = 200
REVIEW_PLAYOUTS = 4
"""Playouts a decision of the reviewing server: a small game's review in a second or two."""
BOT_DELAY = 1.5
"""Seconds the slow server's bots wait before moving: time to see that one is thinking."""

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).is_file(),
                                reason=f"no Chromium at {CHROMIUM} (apt-get install chromium)")


class ServerThread:
    """The real app on uvicorn in a thread, on a free port of 127.0.0.1."""

    def __init__(self, db_url: str, bot_delay: float = 0.0, **options: Any) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.app = create_app(db_url, bot_delay=bot_delay, **options)
        config = uvicorn.Config(self.app, host="127.0.0.1",
                                port=self.port,
                                log_level="warning", lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def base(self) -> str:
        """The server's address."""
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> ServerThread:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    """One server with a fresh SQLite database for this module's tests."""
    db = tmp_path_factory.mktemp("browser") / "tables.db"
    with ServerThread(f"sqlite:///{db}") as running:
        yield running


@pytest.fixture(scope="module")
def slow_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    """A server whose bots wait ``BOT_DELAY`` seconds before each move, as people see them."""
    db = tmp_path_factory.mktemp("browser-slow") / "tables.db"
    with ServerThread(f"sqlite:///{db}", bot_delay=BOT_DELAY) as running:
        yield running


@pytest.fixture(scope="module")
def reviewing_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    """A server that reviews finished games at ``REVIEW_PLAYOUTS`` a decision (quick)."""
    db = tmp_path_factory.mktemp("browser-review") / "tables.db"
    with ServerThread(f"sqlite:///{db}", review_playouts=REVIEW_PLAYOUTS) as running:
        yield running


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium (the system's), skipped with the reason if it will not start."""
    with sync_api.sync_playwright() as pw:
        try:
            chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        except sync_api.Error as exc:
            pytest.skip(f"Chromium at {CHROMIUM} does not start: {exc.message.splitlines()[0]}")
        yield chromium
        chromium.close()


def new_page(browser: Any, **context: Any) -> tuple[Any, list[str]]:
    """A page in a fresh context, and the list its script errors (and anything the server's
    Content-Security-Policy refused) are collected in."""
    page = browser.new_context(**context).new_page()
    page.set_default_timeout(15000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda message: errors.append(message.text)
            if "Content Security Policy" in message.text else None)
    return page, errors


def create_in_lobby(page: Any, base: str, rules: dict[str, str] | None = None) -> str:
    """Create a table for one person and an easy bot in the lobby; returns the seat link."""
    page.goto(base + "/")
    page.select_option("select[name=kind-1]", "bot")
    page.select_option("select[name=level-1]", "easy")
    page.fill("input[name=name-0]", "Ada")
    if rules:
        page.click("#rules-box summary")
        for name, value in rules.items():
            page.fill(f"input[name={name}]", value)
    page.click("#create")
    link = page.locator("#created a.primary")
    link.wait_for()
    href: str = link.get_attribute("href")
    assert href.startswith("/play/") and "#token=" in href
    assert page.locator("#created .link-field").count() == 2  # the seat and the spectators
    return href


def join_and_start(page: Any) -> None:
    """On the seat's page: join, then start the game."""
    page.locator("#lobby:not([hidden])").wait_for()
    page.click("#join")
    page.locator("#lobby-seats li:has(.badge.seat) .badge.ok").wait_for()  # this seat's
    page.click("#start")
    page.locator("body[data-status=playing]").wait_for(state="attached")


def wait_for_decision(page: Any) -> bool:
    """Wait until this seat is to move (True) or the game is over (False)."""
    page.locator("body[data-my-turn='1'][data-pending='0'], body[data-status=finished]"
                 ).wait_for(state="attached")
    return bool(page.get_attribute("body", "data-status") != "finished")


def check_feedback_before_sending(page: Any) -> None:
    """Selecting more tiles than an exchange allows: the button is off and says why."""
    tiles = page.locator("#hand .tile")
    for i in range(tiles.count()):
        tiles.nth(i).click()
    assert page.locator("#hand .tile[aria-pressed=true]").count() == tiles.count()
    move = page.locator(".move", has=page.locator("button[data-kind=exchange]"))
    why = move.locator(".why")
    sync_api.expect(why).not_to_have_text(re.compile("checking"))
    sync_api.expect(why).to_contain_text("exchange")  # the server's reason, e.g. "1 to 4"
    assert move.locator("button").is_disabled()
    page.click("#clear")
    assert page.locator("#hand .tile[aria-pressed=true]").count() == 0


def play_hinted_move(page: Any) -> str:
    """Ask for a hint, click its tiles (and row tail), then the move button it enables."""
    page.click("#hint")
    box = page.locator("#hint-box[data-action]")
    box.wait_for()
    action: str = box.get_attribute("data-action")
    words = action.split()
    if words[0] == "declare":
        page.click("#declare")
        page.locator("#confirm[open]").wait_for()
        page.click("#confirm-ok")
        return action
    if words[0] == "score":
        row, count = words[1], int(words[2][1:])
        tail = page.locator(f"#my-rows .row[data-row={row}] .tile")
        tail.nth(tail.count() - count).click()
    for code in (w for w in words if TILE.match(w)):
        page.locator(f"#hand .tile[data-code={code}][aria-pressed=false]").first.click()
    button = page.locator(f'#moves button[data-action="{action}"]').first
    sync_api.expect(button).to_be_enabled()
    button.click()
    return action


def check_end_screen(page: Any, base: str, table_id: str) -> None:
    """The end screen's arithmetic is the record's: scores, ranks, piles and rows."""
    end = page.locator("#end")
    sync_api.expect(end).to_be_visible()
    lines = page.locator("#end-lines li").all_inner_texts()
    record = page.request.get(f"{base}/api/tables/{table_id}/record").json()
    verdict = check_record(record)
    assert verdict.valid and verdict.over, verdict.reason
    names = [p["name"] for p in record["players"]]
    assert len(lines) == len(names)
    for line in lines:
        match = LINE.match(line.strip())
        assert match, f"not score arithmetic: {line!r}"
        rank, name, score, pile, rows = match.groups()
        seat = names.index(name)
        assert int(score) == int(pile) - int(rows)
        assert int(score) == record["result"]["scores"][seat]
        assert int(rank) == record["result"]["ranks"][seat]
        assert int(pile) == verdict.state.pile_sums[seat]
        assert int(rows) == verdict.state.row_sum(seat)
    assert page.get_attribute("#end-record", "href") == f"/api/tables/{table_id}/record"


def test_a_whole_game_against_a_bot_by_clicking(server: ServerThread, browser: Any) -> None:
    """Lobby → seat → join → start → every move by clicking → end screen = the record."""
    page, errors = new_page(browser, viewport={"width": 1280, "height": 900})
    href = create_in_lobby(page, server.base)
    table_id = href.split("/")[2].split("#")[0]
    page.goto(server.base + href)
    join_and_start(page)
    sync_api.expect(page.locator("#conn")).to_have_text("connected")

    played: list[str] = []
    checked = dropped = False
    while wait_for_decision(page):
        assert len(played) < MAX_TURNS, f"no end after {MAX_TURNS} moves: {played[-5:]}"
        view = page.evaluate("window.noreturn.state().view")
        if not checked and view["stage"] == "play" and view["players"][view["seat"]]["phase"] == 1:
            check_feedback_before_sending(page)
            checked = True
        if not dropped and len(played) == 3:
            page.evaluate("window.noreturn.drop()")  # the connection drops: it comes back
            page.locator("body[data-conn=retry]").wait_for(state="attached")
            sync_api.expect(page.locator("#conn")).to_have_text("connected")
            dropped = True
            continue
        version = page.get_attribute("body", "data-version")
        played.append(play_hinted_move(page))
        page.wait_for_function(
            "v => document.body.dataset.version !== v || document.querySelector('.error')",
            arg=version)
        assert page.locator("#errors .error").count() == 0, page.inner_text("#errors")
    assert checked and dropped
    kinds = {a.split()[0] for a in played}  # a whole game: every kind of move, by clicking
    assert played[0].startswith("mulligan") and {"place", "declare", "score"} <= kinds, played

    check_end_screen(page, server.base, table_id)

    page.click("#end-replay")  # the replay steps through the same game
    page.locator("body[data-step='0']").wait_for(state="attached")
    page.click("#next")
    page.locator("body[data-step='1']").wait_for(state="attached")
    page.click("#last")
    sync_api.expect(page.locator("#step-log")).to_contain_text("game over")
    assert errors == []


def overflow(page: Any) -> int:
    """How many pixels the page is wider than the screen (0: no sideways scrolling)."""
    width: int = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    return width


def small_targets(page: Any) -> list[Any]:
    """Visible controls smaller than 44 x 44 CSS pixels."""
    found: list[Any] = page.evaluate("""() => [...document.querySelectorAll(
        'button, a.button, select, input, summary')]
        .filter(e => e.offsetParent !== null)
        .map(e => [e.id || e.className || e.tagName, e.getBoundingClientRect()])
        .filter(([, r]) => r.width < 44 || r.height < 44)
        .map(([name, r]) => [name, Math.round(r.width), Math.round(r.height)])""")
    return found


def test_a_phone_sees_everything_without_sideways_scrolling(server: ServerThread,
                                                           browser: Any) -> None:
    """390 x 844 (a phone): lobby, table, spectator view and replay fit; tap-sized controls."""
    phone = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
             "device_scale_factor": 2}
    page, errors = new_page(browser, **phone)
    href = create_in_lobby(page, server.base, SMALL_RULES)
    assert overflow(page) == 0
    assert small_targets(page) == []
    page.goto(server.base + href)
    join_and_start(page)
    assert wait_for_decision(page)
    assert page.evaluate("window.noreturn.state().view.rules.colors") == 3  # the rules form
    page.locator("#hand .tile").first.tap()
    assert page.locator("#hand .tile[aria-pressed=true]").count() == 1
    assert overflow(page) == 0
    assert small_targets(page) == []

    bots = page.request.post(f"{server.base}/api/tables", data={
        "seats": [{"kind": "bot", "level": "easy"}] * 3,
        "rules": {"colors": 3, "max_value": 6, "hand_size": 5}}).json()
    table_id = bots["table"]["id"]
    page.goto(f"{server.base}/watch/{table_id}")
    page.locator("#others .player").first.wait_for()
    assert page.locator("#role").inner_text() == "spectator"
    assert page.locator("#hand .tile").count() == 0
    page.locator("body[data-status=finished]").wait_for(state="attached")
    sync_api.expect(page.locator("#end")).to_be_visible()
    assert overflow(page) == 0
    page.goto(f"{server.base}/replay/{table_id}")
    page.locator("body[data-step='0']").wait_for(state="attached")
    sync_api.expect(page.locator("#review-status")).to_contain_text(  # this server: none
        "No review: this server reviews no games")
    page.click("#last")
    assert overflow(page) == 0
    assert small_targets(page) == []
    assert errors == []


def test_a_wrong_seat_link_says_so_and_stops(server: ServerThread, browser: Any) -> None:
    """A made-up token: a clear error, no endless reconnecting, a way to watch instead."""
    page, errors = new_page(browser)
    table = page.request.post(f"{server.base}/api/tables", data={
        "seats": [{"kind": "human", "name": "Ada"}, {"kind": "bot", "level": "easy"}]}).json()
    page.goto(f"{server.base}/play/{table['table']['id']}#token=not-the-token")
    sync_api.expect(page.locator("#errors")).to_contain_text("not valid")
    page.locator("body[data-conn=off]").wait_for(state="attached")
    assert page.locator("#errors a", has_text="Watch instead").count() == 1
    page.goto(f"{server.base}/play/no-such-table#token=x")
    sync_api.expect(page.locator("#errors")).to_contain_text("no table")
    assert errors == []


def test_when_to_switch_by_keyboard_on_a_phone_while_the_bot_is_seen_thinking(
        slow_server: ServerThread, browser: Any) -> None:
    """The button only on phase-1 turns; Enter asks; the advisor's line shows as plain text;
    while the bot is to move the turn note says it is thinking."""
    phone = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
    page, errors = new_page(browser, **phone)
    href = create_in_lobby(page, slow_server.base, SMALL_RULES)
    page.goto(slow_server.base + href)
    join_and_start(page)
    assert wait_for_decision(page)
    assert page.evaluate("window.noreturn.state().view.stage") == "mulligan"
    sync_api.expect(page.locator("#switch")).to_be_hidden()
    page.click("#moves button[data-kind=keep]")
    sync_api.expect(page.locator("#turn-note")).to_have_text(re.compile(r"\(bot\) is thinking…"))
    assert wait_for_decision(page)
    button = page.locator("#switch")
    sync_api.expect(button).to_be_visible()
    sync_api.expect(button).to_have_text("When to switch?")
    button.focus()
    page.keyboard.press("Enter")
    box = page.locator("#switch-box")
    sync_api.expect(box).to_be_visible()
    sync_api.expect(box).to_contain_text("declare now: margin ")
    sync_api.expect(box).to_contain_text(re.compile(r"looks better by \d+ points \(\d+ samples\)"))
    assert page.locator("#switch-box *").count() == 0  # plain text, never markup
    assert page.evaluate("document.activeElement.id") == "switch"  # focus stays for the keys
    assert overflow(page) == 0
    assert small_targets(page) == []
    assert errors == []


def finished_bot_game(page: Any, base: str) -> str:
    """A small game of two bots, played to its end on the server; its table id."""
    created = page.request.post(f"{base}/api/tables", data={
        "seats": [{"kind": "bot", "level": "random"}, {"kind": "bot", "level": "greedy"}],
        "rules": {"colors": 3, "max_value": 6, "hand_size": 5}}).json()
    table_id: str = created["table"]["id"]
    deadline = time.monotonic() + 30
    while page.request.get(f"{base}/api/tables/{table_id}").json()["status"] != "finished":
        assert time.monotonic() < deadline, "the bots did not finish their game"
        time.sleep(0.1)
    return table_id


def check_hands(page: Any, hands: list[list[str]]) -> None:
    """Every seat's hand on the replay page is the replay's."""
    shown = page.locator("#players .replay-hand")
    assert shown.count() == len(hands)
    for seat, hand in enumerate(hands):
        codes = shown.nth(seat).locator(".tile").evaluate_all(
            "tiles => tiles.map(t => t.dataset.code)")
        assert sorted(codes) == sorted(hand)
    assert "hand" in (shown.first.get_attribute("aria-label") or "")


def check_seat_reviews(page: Any, review: dict[str, Any]) -> None:
    """Each seat's section shows its accuracy, switch window and decisions worst first."""
    for facts in review["seats"]:
        section = page.locator(f".seat-review[data-seat='{facts['seat']}']")
        shown = float(section.locator(".accuracy").inner_text())  # rounded by the page
        assert abs(shown - facts["accuracy"]) <= 0.5
        sync_api.expect(section.locator(".declare")).to_contain_text("declaring was best")
        losses = [float(x) for x in section.locator(".decisions li").evaluate_all(
            "items => items.map(i => i.dataset.loss)")]
        assert len(losses) == facts["decisions"]
        assert losses == sorted(losses, reverse=True)  # worst first


def test_a_finished_games_replay_shows_every_hand_and_the_review(
        reviewing_server: ServerThread, browser: Any) -> None:
    """At 375 px: the replay shows each seat's hand at each step; the review is said to be
    under way (held back here) until the page, asking again, shows it: per seat accuracy,
    luck, switch window, decisions worst first, and the labelled chart. A decision jumps to
    its step. Then the same page at desktop width."""
    reviewer = reviewing_server.app.state.reviewer
    gate = threading.Event()
    real = reviewer.runner

    def held(record: dict[str, Any], playouts: int, stop: threading.Event) -> dict[str, Any]:
        gate.wait(30)
        return real(record, playouts, stop)  # type: ignore[no-any-return]

    reviewer.runner = held
    phone = {"viewport": {"width": 375, "height": 812}, "is_mobile": True, "has_touch": True}
    page, errors = new_page(browser, **phone)
    base = reviewing_server.base
    try:
        table_id = finished_bot_game(page, base)
        replay = page.request.get(f"{base}/api/tables/{table_id}/replay").json()
        page.goto(f"{base}/replay/{table_id}")
        page.locator("body[data-step='0']").wait_for(state="attached")
        sync_api.expect(page.locator("#review-status")).to_contain_text("being reviewed")
        assert page.get_attribute("body", "data-review") == "202"
        check_hands(page, replay["steps"][0]["hands"])
        page.click("#last")
        assert overflow(page) == 0
    finally:
        gate.set()
    review = page.locator("#review-body .seat-review")
    review.first.wait_for(timeout=60000)  # the page asked again by itself
    assert review.count() == 2
    check_seat_reviews(page, page.request.get(f"{base}/api/tables/{table_id}/review").json())
    chart = page.locator("svg.margin-chart[role=img]")
    sync_api.expect(chart).to_be_visible()
    assert chart.locator("polyline").count() == 2
    described = chart.locator("desc").text_content() or ""
    assert "expected margin" in described and replay["names"][0] in described
    assert overflow(page) == 0
    assert small_targets(page) == []

    first = page.locator(".seat-review[data-seat='1'] .decisions li").first
    index = int(first.get_attribute("data-index") or "-1")
    first.locator("button").click()
    expected = max(k for k, step in enumerate(replay["steps"]) if step["event"] <= index)
    page.locator(f"body[data-step='{expected}']").wait_for(state="attached")

    page.set_viewport_size({"width": 1280, "height": 900})
    sync_api.expect(chart).to_be_visible()
    assert overflow(page) == 0
    assert errors == []
