"""Resuming in the browser: a seat link opened again later goes on where the game stood.

A person closes the tab in the middle of a game (or the phone drops the page); the seat
link is all they need: the new page shows the same hand, rows and log, and the game goes on
from there to its end.
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
    play_hinted_move,
    wait_for_decision,
)


def test_a_seat_link_opened_again_resumes_the_game(
        server: ServerThread, browser: Any) -> None:
    page, errors = new_page(browser, viewport={"width": 1280, "height": 900})
    href = create_in_lobby(page, server.base)
    page.goto(server.base + href)
    join_and_start(page)
    for _turn in range(4):
        assert wait_for_decision(page)
        play_hinted_move(page)
    assert wait_for_decision(page)
    before = page.evaluate("window.noreturn.state()")
    log = page.locator("#log li").all_inner_texts()
    page.context.close()  # the tab is gone

    again, more = new_page(browser, viewport={"width": 375, "height": 740})
    again.goto(server.base + href)
    assert wait_for_decision(again)
    now = again.evaluate("window.noreturn.state()")
    assert now["version"] == before["version"]
    assert now["view"]["hand"] == before["view"]["hand"]
    assert now["view"]["players"] == before["view"]["players"]
    assert again.locator("#log li").all_inner_texts() == log
    while wait_for_decision(again):  # and the game goes on to its end
        play_hinted_move(again)
    sync_api.expect(again.locator("#end")).to_be_visible()
    assert errors == [] and more == []
