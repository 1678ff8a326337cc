"""Regenerate docs/web-tutorial.png: the browser's guided first game at its exchange lesson.

Run from the repository root: ``python docs/make_web_tutorial_screenshot.py``. It starts the
server (a temporary SQLite database) in a thread, presses "Learn to play" in the lobby in
headless Chromium, and follows the suggestions (closing each lesson) until the lesson on
exchanging opens, with the suggested exchange's tiles marked in the hand; then it saves the
page. The prepared deal makes that the same moment every time. Needs Playwright for Python
and Debian's ``chromium`` (or ``NORETURN_CHROMIUM``).
"""

from __future__ import annotations

import re

from make_web_screenshot import CHROMIUM, DOCS, FLAGS, TILE, start_server
from playwright.sync_api import Page, sync_playwright

VIEWPORT = {"width": 1280, "height": 900}
WANTED = "exchange"
"""The lesson shown in the picture."""


def follow_until_lesson(page: Page, wanted: str) -> None:
    """Close each lesson and play the suggested move, until lesson ``wanted`` is open."""
    for _move in range(60):
        page.locator("body[data-my-turn='1'][data-pending='0']").wait_for(state="attached")
        box = page.locator("#hint-box[data-action]")
        box.wait_for()
        if page.locator(f"#lesson[data-lesson={wanted}]").count():
            return
        if page.locator("#lesson").count():
            page.click("#lesson-ok")
        action = box.get_attribute("data-action") or ""
        version = page.get_attribute("body", "data-version")
        if action == "declare":
            raise SystemExit(f"the game reached its declaration before lesson {wanted!r}")
        for code in (w for w in action.split() if TILE.match(w)):
            page.locator(f"#hand .tile[data-code={code}][aria-pressed=false]").first.click()
        page.locator(f'#moves button[data-action="{action}"]').first.click()
        page.wait_for_function("v => document.body.dataset.version !== v", arg=version)
    raise SystemExit(f"lesson {wanted!r} never came")


def main() -> None:
    """Start the tutorial from the lobby and save docs/web-tutorial.png at the lesson."""
    import tempfile  # noqa: PLC0415 - a script: only what it needs when it runs

    with tempfile.TemporaryDirectory() as tmp:
        server, base = start_server(f"sqlite:///{tmp}/tables.db")
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            page = browser.new_page(viewport=VIEWPORT)
            page.goto(base + "/")
            page.click("#learn")
            page.wait_for_url(re.compile(r"&tutorial=1$"))
            follow_until_lesson(page, WANTED)
            page.evaluate("window.scrollTo(0, 0)")
            page.mouse.move(0, 0)
            page.screenshot(path=str(DOCS / "web-tutorial.png"), full_page=True)
            browser.close()
        server.should_exit = True
    print(f"wrote {DOCS / 'web-tutorial.png'}")


if __name__ == "__main__":
    main()
