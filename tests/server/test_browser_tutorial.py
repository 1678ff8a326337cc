"""The browser's guided first game (issue 18, part 2) in Chromium, as a newcomer meets it.

From the lobby's "Learn to play" to the end, on a phone (375 px): the tutorial's table
opens with its lessons on, each lesson comes once at its moment in a panel that fits the
screen and never covers the hand, the hinted move's tiles are marked, and the newcomer
follows the hints, by keyboard for the first phase, by tapping after, to the end lesson's
tips. Reuses the fixtures of ``conftest.py`` (a real server, bots without delay).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed")

from browserkit import (
    MAX_TURNS,
    TILE,
    ServerThread,
    new_page,
    overflow,
    small_targets,
    sync_api,
    wait_for_decision,
)

LESSONS = ["mulligan", "place", "rows", "exchange", "clock", "declare", "score", "end"]
"""The lessons in the order the prepared deal brings them (``static/tutorial.js``)."""
PHONE = {"viewport": {"width": 375, "height": 740}, "is_mobile": True, "has_touch": True}
KEYS = {"mulligan": "Enter", "place": "p", "exchange": "e"}
"""The key that plays a selection of each kind (the table page's keys)."""


def hinted_codes(page: Any, where: str) -> list[str]:
    """The tile codes marked as the hinted move's in ``where`` (a selector)."""
    codes: list[str] = page.locator(f"{where} .tile.hinted").evaluate_all(
        "tiles => tiles.map(t => t.dataset.code)")
    return sorted(codes)


def read_lesson(page: Any, key: str) -> None:
    """The lesson just opened: on screen, focused, in words with every blank filled."""
    lesson = page.locator(f"#lesson[data-lesson={key}]")
    sync_api.expect(lesson).to_be_visible()
    text = lesson.locator(".lesson-body").inner_text()
    assert len(text) > 80 and "{" not in text, text
    assert page.evaluate("document.activeElement.id") == "lesson-ok"  # Enter closes it
    box = lesson.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 375
    assert -1 < box["y"] < 740  # scrolled to its top as it opened
    assert overflow(page) == 0
    assert small_targets(page) == []


def keyboard_move(page: Any, action: str) -> None:
    """Select the hinted tiles with the number keys, then play with the move's key."""
    hand = page.locator("#hand .tile").evaluate_all("tiles => tiles.map(t => t.dataset.code)")
    taken: set[int] = set()
    for code in (w for w in action.split() if TILE.match(w)):
        i = next(k for k, c in enumerate(hand) if c == code and k not in taken)
        taken.add(i)
        page.keyboard.press(str(i + 1))
    assert page.locator("#hand .tile[aria-pressed=true]").count() == len(taken)
    sync_api.expect(page.locator(f'#moves button[data-action="{action}"]').first).to_be_enabled()
    kind = action.split(maxsplit=1)[0]
    if kind == "mulligan" and not taken:  # keeping the whole hand
        page.locator("#moves button[data-kind=keep]").focus()
    page.keyboard.press(KEYS[kind])


def tap_move(page: Any, action: str) -> None:
    """Tap the hinted tiles (and row tail), then the move button they enable."""
    words = action.split()
    if words[0] == "declare":
        page.locator("#hint-play").tap()
        page.locator("#confirm[open]").wait_for()
        page.locator("#confirm-ok").tap()
        return
    if words[0] == "score":
        tail = page.locator(f"#my-rows .row[data-row={words[1]}] .tile")
        tail.nth(tail.count() - int(words[2][1:])).tap()
    for code in (w for w in words if TILE.match(w)):
        page.locator(f"#hand .tile[data-code={code}][aria-pressed=false]").first.tap()
    button = page.locator(f'#moves button[data-action="{action}"]').first
    sync_api.expect(button).to_be_enabled()
    button.tap()


def check_marks(page: Any, action: str) -> None:
    """The hinted move's tiles are marked: its hand tiles, and for a score the row tail."""
    words = action.split()
    tiles = sorted(w for w in words if TILE.match(w))
    assert hinted_codes(page, "#hand") == tiles
    if words[0] == "score":
        row = page.locator(f"#my-rows .row[data-row={words[1]}] .tile").evaluate_all(
            "tiles => tiles.map(t => t.dataset.code)")
        assert hinted_codes(page, "#my-rows") == sorted(row[len(row) - int(words[2][1:]):])


def meet_lesson(page: Any, seen: list[str]) -> bool:
    """Read a lesson that has just opened, if one has (added to ``seen``), and close it by
    keyboard: Enter on its focused "Got it", or Esc. The "rows" lesson is left open (the
    next move is played beside it); whether it was that one."""
    lesson = page.locator("#lesson")
    key = lesson.get_attribute("data-lesson") if lesson.count() else None
    if not key or key in seen:
        return False
    seen.append(key)
    read_lesson(page, key)
    if key == "mulligan":
        assert "Bea" in lesson.inner_text()  # the bot by its name
    if key == "rows":  # left open: it never stands in the way of a move
        return True
    page.keyboard.press("Enter" if len(seen) % 2 else "Escape")
    sync_api.expect(lesson).to_have_count(0)
    assert page.evaluate("document.activeElement.id") == "hand"  # back to the tiles
    return False


def test_the_tutorial_from_the_lobby_teaches_every_lesson_on_a_phone(
        server: ServerThread, browser: Any) -> None:
    page, errors = new_page(browser, **PHONE)
    page.goto(server.base + "/")
    page.locator("#seats .seat-line").first.wait_for()  # the lobby's script has run
    page.locator("#learn").tap()
    page.wait_for_url(re.compile(r"/play/[\w-]+#token=[\w-]+&tutorial=1$"))
    assert page.get_attribute("body", "data-tutorial") == "1"

    seen: list[str] = []
    played: list[str] = []
    open_while_playing = False
    while wait_for_decision(page):
        assert len(played) < MAX_TURNS, played[-5:]
        box = page.locator("#hint-box[data-action]")  # asked for by the tutorial itself
        box.wait_for()
        action: str = box.get_attribute("data-action")
        open_while_playing |= meet_lesson(page, seen)
        check_marks(page, action)
        version = page.get_attribute("body", "data-version")
        me = page.evaluate("window.noreturn.state().view.players[0].phase")
        if action.split(maxsplit=1)[0] in KEYS and me == 1:
            keyboard_move(page, action)
        else:
            tap_move(page, action)
        played.append(action)
        page.wait_for_function(
            "v => document.body.dataset.version !== v || document.querySelector('.error')",
            arg=version)
        assert page.locator("#errors .error").count() == 0, page.inner_text("#errors")

    end = page.locator("#end #lesson[data-lesson=end]")
    sync_api.expect(end).to_be_visible()
    seen.append("end")
    assert end.locator("li").count() == 3  # the strategy tips
    assert seen == LESSONS, seen
    assert open_while_playing
    sync_api.expect(page.locator("#end-winner")).to_have_text("You win!")
    assert overflow(page) == 0 and small_targets(page) == []
    page.keyboard.press("Enter")
    sync_api.expect(page.locator("#lesson")).to_have_count(0)
    assert errors == []

    page.reload()  # each lesson once: a reload of the finished table teaches nothing again
    page.locator("body[data-status=finished]").wait_for(state="attached")
    sync_api.expect(page.locator("#end")).to_be_visible()
    assert page.locator("#lesson").count() == 0


def test_the_rules_page_starts_the_tutorial_in_german_and_a_lesson_closes_with_escape(
        server: ServerThread, browser: Any) -> None:
    """A German browser (Accept-Language) gets German lessons and plays as Ada (as "Du"
    the log said "Du erhielt", no German); the lessons can be turned off for good."""
    page, errors = new_page(browser, viewport={"width": 1280, "height": 900}, locale="de-DE")
    page.goto(server.base + "/rules")
    page.locator("body[data-ready='1']").wait_for(state="attached")  # its script has run
    assert page.locator("main [data-learn]").inner_text() == "Spielen lernen"
    page.locator("header [data-learn]").click()
    page.wait_for_url(re.compile(r"/play/[\w-]+#token=[\w-]+&tutorial=1$"))
    lesson = page.locator("#lesson[data-lesson=mulligan]")
    sync_api.expect(lesson).to_be_visible()
    assert lesson.locator("h2").inner_text() == "Willkommen: der Mulligan"
    assert "Du spielst gegen Bea" in lesson.inner_text()
    assert lesson.locator("#lesson-ok").inner_text() == "Verstanden"
    assert page.evaluate("window.noreturn.state().names") == ["Ada", "Bea"]
    page.keyboard.press("Escape")
    sync_api.expect(lesson).to_have_count(0)
    page.click("#moves button[data-kind=keep]")  # play on: the next lesson comes
    sync_api.expect(page.locator("#lesson[data-lesson=place]")).to_be_visible()
    assert page.locator("#hand .tile.hinted").count() > 0  # the suggestion's tiles
    page.click("#lesson-stop")  # no more lessons, for good at this table: a plain game
    sync_api.expect(page.locator("#lesson")).to_have_count(0)
    assert page.locator("#hand .tile.hinted").count() == 0
    page.reload()
    assert wait_for_decision(page)
    page.wait_for_timeout(500)  # time enough for a hint to come and bring a lesson
    assert page.locator("#lesson").count() == 0
    assert page.locator("#hint-box").is_hidden()
    assert errors == []


STALE_HINT = """async () => {
    const { tutor } = await import("/static/tutorial.js");
    const asked = [];
    const on = tutor(new URLSearchParams("tutorial=1"), "stale-hint", (m) => {
        asked.push(m.type);
        return true;
    });
    const player = { phase: 1, rows: {}, score: 0 };
    const state = (version) => ({ type: "state", version, status: "playing",
        names: ["Ada", "Bea"], legal: ["mulligan"],
        view: { stage: "mulligan", to_move: 0, bag_count: 80, players: [player, player] } });
    const hint = (version) => ({ type: "hint", action: "mulligan", reason: "keep them", version });
    const lesson = () => document.getElementById("lesson")?.dataset.lesson ?? null;
    on({ type: "welcome", seat: 0 });
    on(state(5));  // our turn: the tutor asks for a hint at version 5
    on(state(6));  // the game moved on, and the tutor asks again at 6
    on(hint(5));  // the answer to the ask at 5 comes now: stale at 6
    const stale = lesson();
    on(hint(6));  // the answer to the ask at 6: current
    return { asked, stale, fresh: lesson() };
}"""


def test_a_hint_answered_after_the_game_moved_on_teaches_nothing(
        server: ServerThread, browser: Any) -> None:
    """The tutor judges the lessons by the hint for the state's version: an answer for an
    older version (it names its version), even one arriving after the tutor asked again,
    is not taken for the current one (tutorial.js, driven with made-up messages on a page
    of the server)."""
    page, errors = new_page(browser)
    page.goto(server.base + "/rules")
    page.locator("body[data-ready='1']").wait_for(state="attached")
    result = page.evaluate(STALE_HINT)
    assert result == {"asked": ["hint", "hint"], "stale": None, "fresh": "mulligan"}
    assert errors == []


def test_your_tables_shows_a_tutorial_the_public_list_leaves_out(
        server: ServerThread, browser: Any) -> None:
    """A guided game is not in the lobby's public list, yet the lobby's "Your tables" knows
    its status by asking for it: "Play as Ada" while it goes on, none once it is closed."""
    page, errors = new_page(browser, **PHONE)
    made = page.request.post(f"{server.base}/api/tutorial", data={}).json()
    table_id, seat = made["table"]["id"], made["seat_links"][0]
    page.goto(server.base + "/")
    page.evaluate("""entry => localStorage.setItem("noreturn.tables", JSON.stringify([entry]))""",
                  {"id": table_id, "created_at": made["table"]["created_at"], "seats": [],
                   "links": [{"seat": seat["seat"], "name": seat["name"], "link": seat["link"]}],
                   "spectator_link": made["spectator_link"]})
    page.reload()
    mine = page.locator("#mine li")
    sync_api.expect(mine.locator(".badge")).to_have_attribute("class", re.compile("st-playing"))
    sync_api.expect(mine.get_by_role("link", name="Play as Ada")).to_be_visible()
    assert page.locator(f"#tables li[data-id='{table_id}']").count() == 0  # not listed
    closed = page.request.post(f"{server.base}/api/tables/{table_id}/close",
                               data={"token": made["creator_token"]})
    assert closed.ok, closed.text()
    page.reload()
    sync_api.expect(mine.locator(".badge")).to_have_attribute("class", re.compile("st-closed"))
    sync_api.expect(mine.get_by_role("link", name="Play as Ada")).to_have_count(0)
    assert errors == []
