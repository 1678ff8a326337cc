"""The browser front end in a real headless Chromium, against the real server.

The server (``create_app`` on uvicorn, a temporary SQLite file) runs in a thread; Debian's
``chromium`` is driven by Playwright. A person plays a whole game against a bot by clicking
(following the hints: click the hinted tiles, then the move button the selection offers),
and the end screen's score arithmetic is checked against the record the server stores. A
phone-sized viewport must not scroll sideways and its controls must be tap-sized.

Skipped, with the reason, when Playwright (Python), the server's packages or Chromium are
missing. ``NORETURN_CHROMIUM`` names another Chromium binary. The picture in the docs is made
by ``docs/make_web_screenshot.py``, not here, so a test run never rewrites the docs. The
page helpers are in ``browserkit.py`` and the server and browser fixtures in ``conftest.py``,
which the other browser tests share.
"""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from browserkit import (
    CHROMIUM,
    MAX_TURNS,
    SMALL_RULES,
    ServerThread,
    check_feedback_before_sending,
    create_in_lobby,
    join_and_start,
    new_page,
    overflow,
    play_hinted_move,
    small_targets,
    sync_api,
    wait_for_decision,
)

from noreturn.records import check_record

LINE = re.compile(r"^(\d+)\. (.+): (-?\d+) = pile (-?\d+) - rows (-?\d+)$")
"""A line of the end screen: rank, name, score = pile - rows."""

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).is_file(),
                                reason=f"no Chromium at {CHROMIUM} (apt-get install chromium)")


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
        # the turn under way, counted from 1 as the terminal and the replay count it
        assert page.locator("#turns").inner_text() == f"· turn {view['turns'] + 1}" + (
            " · last round" if view["ending"] else "")
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
    sync_api.expect(box).to_contain_text(re.compile(
        r"looks better( by \d+ points|: it wins more often, though by \d+ points less on "
        r"average) \(\d+ samples\)"))
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
