"""The browser in German: a whole game read in German, and the language switch.

Playwright drives Debian's Chromium (the fixtures of conftest.py). A German browser
(``Accept-Language: de``) gets every page in German at once; the switch at the top of each
page changes the language for this browser, remembered across pages.
"""

from __future__ import annotations

from typing import Any

import pytest

sync_api = pytest.importorskip("playwright.sync_api",
                               reason="Playwright for Python is not installed")

from browserkit import (  # noqa: E402 - after the skip above
    ServerThread,
    create_in_lobby,
    join_and_start,
    new_page,
    overflow,
    play_hinted_move,
    wait_for_decision,
)

ENGLISH = ("Your hand", "Turn log", "placed", " drew ", "Final scores", "score now", "wins!",
           "Download the record", "Hint")
"""Our English words that must not show on a German page."""


def test_a_whole_game_in_german_in_the_browser(
        server: ServerThread, browser: Any) -> None:
    page, errors = new_page(browser, locale="de-DE", viewport={"width": 1280, "height": 900})
    page.goto(server.base + "/")
    sync_api.expect(page.locator("#create")).to_have_text("Tisch anlegen")
    assert page.get_attribute("html", "lang") == "de"
    href = create_in_lobby(page, server.base)
    page.goto(server.base + href)
    join_and_start(page)
    sync_api.expect(page.locator("#conn")).to_have_text("verbunden")
    sync_api.expect(page.locator("#hand-title")).to_have_text("Deine Hand")
    while wait_for_decision(page):
        play_hinted_move(page)
    sync_api.expect(page.locator("#end")).to_be_visible()
    sync_api.expect(page.locator("#end-title")).to_have_text("Spielende")
    winner = page.locator("#end-winner").inner_text()
    assert "gewinn" in winner or "teil" in winner, winner
    assert "Stapel" in page.locator("#end-lines").inner_text()
    log = page.locator("#log").inner_text()
    assert "legte" in log and " zog " in log, log[-300:]
    assert "Spielende: " in log or "Spielende vor leerem Beutel: " in log, log[-300:]
    body = page.locator("body").inner_text()
    for english in ENGLISH:
        assert english not in body, english
    assert errors == []


def test_the_lobby_names_levels_rules_and_the_page_in_german(
        server: ServerThread, browser: Any) -> None:
    """The lobby said "easy" and "medium" for the bots (its seat menu said "leicht"), the
    changed rules by their API keys ("max value 6") and the page's title in English."""
    page, errors = new_page(browser, locale="de-DE", viewport={"width": 390, "height": 844})
    create_in_lobby(page, server.base, rules={"max_value": "6"})
    assert page.title() == "No Return · Lobby"
    levels = page.locator("#timeout-level option").all_inner_texts()
    assert levels == ["leicht", "mittel", "schwer"], levels
    page.goto(server.base + "/")
    seats = page.locator("#tables .table-seats").first
    sync_api.expect(seats).to_contain_text("(Bot, leicht)")
    listed = page.locator("#tables").inner_text()
    assert "Höchster Wert 6" in listed and "max value" not in listed, listed
    assert errors == []


def test_the_language_switch_is_remembered_across_pages(
        server: ServerThread, browser: Any) -> None:
    page, errors = new_page(browser, locale="en-GB", viewport={"width": 375, "height": 740})
    page.goto(server.base + "/")
    sync_api.expect(page.locator("#create")).to_have_text("Create the table")
    page.select_option("#lang-select", "de")
    sync_api.expect(page.locator("#create")).to_have_text("Tisch anlegen")
    page.goto(server.base + "/rules")
    page.locator("body[data-ready='1']").wait_for(state="attached")
    sync_api.expect(page.locator("#r-tiles")).to_have_text("Die Steine")
    assert page.locator("main .tile").count() > 10  # the examples' tiles drawn as tiles
    page.select_option("#lang-select", "en")
    sync_api.expect(page.locator("#r-tiles")).to_have_text("The tiles")
    assert errors == []


def test_german_words_fit_a_phone(server: ServerThread, browser: Any) -> None:
    """German words run longer than English: on a 375 px phone nothing scrolls sideways,
    in the lobby, at the table, and at the end."""
    page, errors = new_page(browser, locale="de-DE", viewport={"width": 375, "height": 740},
                            is_mobile=True, has_touch=True)
    href = create_in_lobby(page, server.base)
    assert overflow(page) == 0
    page.goto(server.base + href)
    join_and_start(page)
    seen = 0
    while wait_for_decision(page):
        if seen < 3:
            assert overflow(page) == 0, "the table scrolls sideways"
            seen += 1
        play_hinted_move(page)
    sync_api.expect(page.locator("#end-title")).to_have_text("Spielende")
    assert overflow(page) == 0
    assert errors == []
