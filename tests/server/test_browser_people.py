"""People across tables in a real Chromium (issue 18): the player key, My games, the
leaderboard and the rematch, on a phone (375 px) and at a desktop's width.

Reuses the fixtures of ``conftest.py`` (a real server in a thread, Debian's Chromium).
Games the test only needs finished are played on the server's own service, in-process
(people only, so no bot of the server moves at the same time).
"""

from __future__ import annotations

import re
import secrets
from random import Random
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed")

from browserkit import (
    SMALL_RULES,
    ServerThread,
    create_in_lobby,
    join_and_start,
    new_page,
    overflow,
    play_hinted_move,
    small_targets,
    sync_api,
    wait_for_decision,
)

from noreturn.server.schemas import CreateTable, RulesIn, SeatIn
from noreturn.server.service import TableService, hash_token

PHONE = {"viewport": {"width": 375, "height": 812}, "is_mobile": True, "has_touch": True}
DESKTOP = {"viewport": {"width": 1280, "height": 900}}
TINY = {"colors": 3, "max_value": 6, "hand_size": 5}
KEY = re.compile(r"^[A-Za-z0-9_-]{43}$")


def finished_between(running: ServerThread, names: list[str],
                     keys: list[str | None]) -> tuple[str, dict[int, str]]:
    """A game of people only, joined with ``keys`` and played to its end at random on the
    server's service; its id and seat tokens."""
    service: TableService = running.app.state.service
    made = service.create(CreateTable(seats=[SeatIn(kind="human", name=n) for n in names],
                                      rules=RulesIn(**TINY)))
    table_id = made["table"]["id"]
    tokens = {link["seat"]: link["token"] for link in made["seat_links"]}
    for seat, token in tokens.items():
        service.join(table_id, token, None, keys[seat])
    service.start(table_id, tokens[0])
    rng = Random(len(table_id))
    while (public := service.state_message(table_id, None))["status"] != "finished":
        seat = public["view"]["to_move"]
        mine = service.state_message(table_id, seat, hash_token(tokens[seat]))
        service.act(table_id, seat, rng.choice(mine["legal"]), mine["version"])
    return table_id, tokens


def play_to_the_end(page: Any) -> None:
    """Play the seat's moves by the hints until the game is over."""
    for _turn in range(200):
        if not wait_for_decision(page):
            return
        version = page.get_attribute("body", "data-version")
        play_hinted_move(page)
        page.wait_for_function(
            "v => document.body.dataset.version !== v || document.querySelector('.error')",
            arg=version)
        assert page.locator("#errors .error").count() == 0, page.inner_text("#errors")
    raise AssertionError("no end after 200 moves")


def test_my_games_and_the_leaderboard_with_the_browsers_key(
        server: ServerThread, browser: Any) -> None:
    """On a phone: the lobby links to My games and the leaderboard; the browser makes its
    key once and joins with it; the finished game is in My games with its place and the
    rating, and on the board (the "you" line); a key brought from another device shows
    that person's games. Then the same pages at a desktop's width."""
    cy, dot = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    for _game in range(3):
        finished_between(server, ["Cy", "Dot"], [cy, dot])
    base = server.base
    page, errors = new_page(browser, **PHONE)
    page.goto(base + "/")
    page.click("#people-links a[href='/me']")
    sync_api.expect(page.locator("#rating")).to_contain_text("No rated game yet")
    sync_api.expect(page.locator("#games")).to_contain_text("No games yet")
    key = page.evaluate("localStorage.getItem('noreturn.playerKey')")
    assert KEY.match(key)
    page.click("#key-box summary")
    assert page.input_value("#key-field") == key
    assert overflow(page) == 0 and small_targets(page) == []

    href = create_in_lobby(page, base, SMALL_RULES)
    table_id = href.split("/")[2].split("#")[0]
    page.goto(base + href + "&join=1")
    page.locator("#lobby-seats .badge.ok").first.wait_for()
    page.click("#start")
    page.locator("body[data-status=playing]").wait_for(state="attached")
    play_to_the_end(page)
    assert page.evaluate("localStorage.getItem('noreturn.playerKey')") == key  # made once
    check_my_games(page, base, table_id)
    check_the_board(page)
    check_another_key(page, base, key, cy)
    assert errors == []


def check_my_games(page: Any, base: str, table_id: str) -> None:
    """My games lists the finished table with the seat's place, and the rating."""
    result = page.request.get(f"{base}/api/tables/{table_id}").json()["result"]
    page.goto(base + "/me")
    item = page.locator(f"#games li[data-id='{table_id}']")
    sync_api.expect(item).to_contain_text(f"place {result['ranks'][0]} of 2")
    sync_api.expect(item).to_contain_text("Ada (you)")
    sync_api.expect(item.locator("a[href^='/replay/']")).to_be_visible()
    sync_api.expect(page.locator("#rating")).to_contain_text("Ada · 1 rated game")
    assert overflow(page) == 0 and small_targets(page) == []


def check_the_board(page: Any) -> None:
    """The board (from My games): three games by default, then one; best first; this
    browser's line and the bot marked; no sideways scrolling, phone or desktop."""
    page.click("#board-link")
    board = page.locator("#board tbody tr")
    sync_api.expect(board).to_have_count(2)  # Cy and Dot: three games each
    assert set(board.locator("th .board-name").all_inner_texts()) == {"Cy", "Dot"}
    page.select_option("#min-games", "1")
    sync_api.expect(board).to_have_count(4)  # Ada and the easy bot, one game each
    sync_api.expect(page.locator("#board tr.me")).to_contain_text("Ada")
    sync_api.expect(page.locator("#board tr[data-kind=bot]")).to_contain_text("bot")
    ratings = [float(x) for x in page.locator("#board tbody td.num:nth-child(3)")
               .all_inner_texts()]
    assert ratings == sorted(ratings, reverse=True)
    assert overflow(page) == 0 and small_targets(page) == []
    page.set_viewport_size(DESKTOP["viewport"])
    assert overflow(page) == 0


def check_another_key(page: Any, base: str, key: str, other: str) -> None:
    """A key brought from another device (``other``: Cy's) shows that person's games;
    something else is refused with a reason."""
    page.goto(base + "/me")
    page.click("#key-box summary")
    page.fill("#key-input", "not a key")
    page.click("#key-box button[type=submit]")
    sync_api.expect(page.locator("#errors")).to_contain_text("not a player key")
    page.fill("#key-input", other)
    page.click("#key-box button[type=submit]")
    sync_api.expect(page.locator("#rating")).to_contain_text("Cy · 3 rated games")
    sync_api.expect(page.locator("#games li")).to_have_count(3)
    assert overflow(page) == 0
    assert page.input_value("#key-field") == other and key not in page.content()


def test_a_rematch_keeps_the_seats_and_every_link_reaches_it(
        server: ServerThread, browser: Any) -> None:
    """Ada on a phone, Bo at a desktop, both on their finished table's page: Ada asks for
    the rematch and lands on it by her old link's token; Bo's page offers "Play the
    rematch" by itself, which seats him there; Bo starts it. A spectator of the old table
    is offered to watch it, and so is anyone from the old table's line in the lobby."""
    table_id, tokens = finished_between(server, ["Ada", "Bo"], [None, None])
    base = server.base
    ada, ada_errors = new_page(browser, **PHONE)
    bo, bo_errors = new_page(browser, **DESKTOP)
    watcher, watcher_errors = new_page(browser, **PHONE)
    ada.goto(f"{base}/play/{table_id}#token={tokens[0]}")
    bo.goto(f"{base}/play/{table_id}#token={tokens[1]}")
    watcher.goto(f"{base}/watch/{table_id}")
    for page in (ada, bo):
        sync_api.expect(page.locator("#rematch")).to_be_visible()
        sync_api.expect(page.locator("#rematch")).to_have_text("Rematch")
        sync_api.expect(page.locator("#rematch-go")).to_be_hidden()
    sync_api.expect(watcher.locator("#end")).to_be_visible()
    sync_api.expect(watcher.locator("#rematch")).to_be_hidden()  # only a seat may ask
    assert overflow(ada) == 0 and small_targets(ada) == []

    ada.click("#rematch")
    ada.wait_for_url(re.compile(r"/play/(?!" + re.escape(table_id) + r")[^#]+#token="))
    new_id = ada.url.split("/play/")[1].split("#")[0]
    assert tokens[0] in ada.url  # the same link's token holds the new seat
    ada.locator("#lobby:not([hidden])").wait_for()
    sync_api.expect(ada.locator("#lobby-seats")).to_contain_text("Bo")
    assert overflow(ada) == 0

    go = bo.locator("#rematch-go")
    sync_api.expect(go).to_have_text("Play the rematch")  # came by itself, no reload
    sync_api.expect(bo.locator("#rematch")).to_be_hidden()
    sync_api.expect(watcher.locator("#rematch-go")).to_have_text("Watch the rematch")
    assert watcher.get_attribute("#rematch-go", "href") == f"/watch/{new_id}"
    go.click()
    bo.wait_for_url(re.compile(re.escape(f"/play/{new_id}#token=")))
    bo.locator("#lobby:not([hidden])").wait_for()
    sync_api.expect(bo.locator("#start")).to_be_enabled()  # Ada joined when she asked
    bo.click("#start")
    for page in (ada, bo):
        page.locator("body[data-status=playing]").wait_for(state="attached")
    assert overflow(ada) == 0
    again = ada.request.post(f"{base}/api/tables/{table_id}/rematch",
                             data={"token": tokens[1]}).json()
    assert again["id"] == new_id  # asking twice: the same rematch
    lobby, lobby_errors = new_page(browser, **PHONE)
    lobby.goto(base + "/")  # the old table's line in the lobby leads to its rematch
    pointer = lobby.locator(f"li[data-id='{table_id}'] a[data-rematch]")
    sync_api.expect(pointer).to_have_text("Watch the rematch")
    assert pointer.get_attribute("href") == f"/watch/{new_id}"
    assert ada_errors == bo_errors == watcher_errors == lobby_errors == []


def test_join_and_start_send_the_key(server: ServerThread, browser: Any) -> None:
    """The lobby's "Take this seat" joins with the browser's key: the seat is in its
    history at once (before any game is played)."""
    page, errors = new_page(browser, **DESKTOP)
    href = create_in_lobby(page, server.base, SMALL_RULES)
    page.goto(server.base + href)
    join_and_start(page)
    key = page.evaluate("localStorage.getItem('noreturn.playerKey')")
    mine = page.request.post(f"{server.base}/api/me", data={"player_key": key}).json()
    assert [t["table"]["id"] for t in mine["tables"]] == [href.split("/")[2].split("#")[0]]
    assert errors == []
