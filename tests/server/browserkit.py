"""The browser tests' shared parts: the real server in a thread, headless Chromium, and
the page helpers a person's clicks are made of (``test_browser*.py`` import them; the
fixtures that start the server and Chromium are in ``conftest.py`` and import this lazily).

Importing it skips the importing module, with the reason, when Playwright (Python) or the
server's packages are missing. ``NORETURN_CHROMIUM`` names another Chromium binary.
"""

from __future__ import annotations

import os
import re
import socket
import threading
import time
from typing import Any

import pytest

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright for Python is not installed (pip install playwright)")
uvicorn = pytest.importorskip("uvicorn", reason="the server's packages are not installed")
pytest.importorskip("fastapi", reason="the server's packages are not installed")

from noreturn.server.app import create_app  # noqa: E402

CHROMIUM = os.environ.get("NORETURN_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
SMALL_RULES = {"colors": "3", "max_value": "6", "hand_size": "5"}
"""A small variant typed into the lobby's rules form (the whole game is the published one)."""
TILE = re.compile(r"^[ROYGBP]\d+$")
MAX_TURNS = 200
REVIEW_PLAYOUTS = 4
"""Playouts a decision of the reviewing server: a small game's review in a second or two."""
BOT_DELAY = 1.5
"""Seconds the slow server's bots wait before moving: time to see that one is thinking."""


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
    """Ask for a hint, click its tiles (and row tail), then the move button it enables;
    return once the server's next state has come (so the next hint is the new turn's)."""
    version = page.evaluate("window.noreturn.state().version")
    page.click("#hint")
    box = page.locator("#hint-box[data-action]")
    box.wait_for()
    action: str = box.get_attribute("data-action")
    words = action.split()
    if words[0] == "declare":
        page.click("#declare")
        page.locator("#confirm[open]").wait_for()
        page.click("#confirm-ok")  # the move is sent once the dialog's promise settles:
        _next_state(page, version)  # until then the page still shows this turn's hint
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
    _next_state(page, version)
    return action


def _next_state(page: Any, version: int) -> None:
    """Wait for a state newer than ``version`` (a move's answer)."""
    page.wait_for_function("v => window.noreturn.state().version !== v", arg=version)


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
