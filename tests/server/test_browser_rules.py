"""The rules page (/rules) in Chromium: every section, tiles drawn as tiles, on a phone."""

from __future__ import annotations

from typing import Any

from browserkit import (
    ServerThread,
    new_page,
    overflow,
    small_targets,
)


def test_the_rules_page_shows_tiles_and_an_example_of_each_turn(server: ServerThread,
                                                                  browser: Any) -> None:
    page, errors = new_page(browser, viewport={"width": 375, "height": 812},
                            is_mobile=True, has_touch=True)
    page.goto(f"{server.base}/")
    page.click("a[href='/rules']")
    page.wait_for_url(f"{server.base}/rules")
    headings = page.locator("main h2").all_inner_texts()
    assert headings == ["The tiles", "Phase 1: build rows", "Declare: there is no return",
                        "Phase 2: score", "The end and the score", "A few tips"]
    for kind in ("Place", "Exchange"):
        assert kind in page.locator("main h3").all_inner_texts()
    tiles = page.locator("main .tile[role=img]")
    assert tiles.count() >= 25  # every example's tiles are drawn, none left as text
    assert tiles.first.get_attribute("aria-label") == "red 11"  # read as words
    assert page.locator(".tile .val.u69").count() >= 2  # the 6 and the 9 underlined
    assert overflow(page) == 0 and small_targets(page) == []
    assert errors == []
