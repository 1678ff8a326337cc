"""Regenerate docs/web.png, docs/web-de.png and docs/rules.png: the browser's pages.

Run from the repository root: ``python docs/make_web_screenshot.py``. It starts the server
(a temporary SQLite database) in a thread, creates a table for Ada and two bots through the
API, and plays Ada's seat in headless Chromium by following the hints until Ada is in phase 2
with a score to make; then it selects that score's row tail and payment (not sent) and saves
the page: once in an English browser (web.png), once in a German one (web-de.png, every word
from the German catalog). Then the rules page on a phone, in German (rules.png). Needs
Playwright for Python and Debian's ``chromium`` (or ``NORETURN_CHROMIUM``).
"""

from __future__ import annotations

import os
import re
import socket
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import uvicorn
from playwright.sync_api import sync_playwright

from noreturn.server.app import create_app

DOCS = Path(__file__).resolve().parent
CHROMIUM = os.environ.get("NORETURN_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
VIEWPORT = {"width": 1360, "height": 1000}
TILE = re.compile(r"^[ROYGBP]\d+$")


def start_server(db_url: str) -> tuple[uvicorn.Server, str]:
    """The app on a free port in a daemon thread; returns the server and its address."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(db_url), host="127.0.0.1", port=port,
                                           log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    return server, f"http://127.0.0.1:{port}"


def hint(page: Any) -> str:
    """Ask for a hint and return the suggested action's text."""
    page.click("#hint")
    box = page.locator("#hint-box[data-action]")
    box.wait_for()
    action: str = box.get_attribute("data-action")
    return action


def select(page: Any, action: str) -> None:
    """Click the action's row tail (for a score) and its hand tiles."""
    words = action.split()
    if words[0] == "score":
        tail = page.locator(f"#my-rows .row[data-row={words[1]}] .tile")
        tail.nth(tail.count() - int(words[2][1:])).click()
    for code in (w for w in words if TILE.match(w)):
        page.locator(f"#hand .tile[data-code={code}][aria-pressed=false]").first.click()


def play_until_scoring(page: Any) -> bool:
    """Follow the hints; True when Ada is to score in phase 2 with two rows or more."""
    while True:
        page.locator("body[data-my-turn='1'][data-pending='0'], body[data-status=finished]"
                     ).wait_for(state="attached")
        if page.get_attribute("body", "data-status") == "finished":
            return False
        view = page.evaluate("window.noreturn.state().view")
        me = view["players"][view["seat"]]
        action = hint(page)
        rows = sum(1 for row in me["rows"].values() if row)
        if action.startswith("score") and rows >= 2 and view["turns"] >= 24:
            select(page, action)
            return True
        version = page.get_attribute("body", "data-version")
        if action == "declare":
            page.click("#declare")
            page.click("#confirm-ok")
        else:
            select(page, action)
            page.locator(f'#moves button[data-action="{action}"]').first.click()
        page.wait_for_function("v => document.body.dataset.version !== v", arg=version)


def table_shot(browser: Any, base: str, locale: str, name: str) -> None:
    """A game played to a scoring turn in a browser of ``locale``, saved as ``name``."""
    page = browser.new_page(viewport=VIEWPORT, locale=locale)
    for _attempt in range(5):
        made = page.request.post(f"{base}/api/tables", data={"seats": [
            {"kind": "human", "name": "Ada"}, {"kind": "bot", "level": "medium"},
            {"kind": "bot", "level": "easy"}]}).json()
        page.goto(base + made["seat_links"][0]["link"])
        page.click("#join")
        page.locator("#lobby-seats .badge.ok").wait_for()
        page.click("#start")
        if play_until_scoring(page):
            break
    else:
        raise SystemExit("no game reached a scoring turn in 5 tries")
    page.locator("#tracker-box").evaluate("el => el.open = true")
    page.evaluate("document.getElementById('log').scrollTop = 1e9")
    page.mouse.move(0, 0)
    page.screenshot(path=str(DOCS / name), full_page=True)
    page.close()


def rules_shot(browser: Any, base: str) -> None:
    """The rules page on a phone, in German: its top with the first worked example."""
    page = browser.new_page(viewport={"width": 390, "height": 1100}, locale="de-DE")
    page.goto(base + "/rules")
    page.locator("body[data-ready='1']").wait_for(state="attached")
    page.screenshot(path=str(DOCS / "rules.png"))
    page.close()


def main() -> None:
    """Play until a good moment and save the pictures."""
    with tempfile.TemporaryDirectory() as tmp:
        server, base = start_server(f"sqlite:///{tmp}/tables.db")
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            table_shot(browser, base, "en-GB", "web.png")
            table_shot(browser, base, "de-DE", "web-de.png")
            rules_shot(browser, base)
            browser.close()
        server.should_exit = True
    print(f"wrote {DOCS / 'web.png'}, {DOCS / 'web-de.png'} and {DOCS / 'rules.png'}")


if __name__ == "__main__":
    main()
