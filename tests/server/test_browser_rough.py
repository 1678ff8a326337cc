"""The browser's rough spots of issue 18, each fixed with an assertion here.

Reuses the fixtures of ``conftest.py`` (a real server in a thread, Debian's Chromium).
Pure rendering is checked by importing the page's own modules into a page of the server
(fast: no game is played); the rest drives real tables.
"""

from __future__ import annotations

import re
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
    sync_api,
    wait_for_decision,
)


def run_js(page: Any, body: str) -> Any:
    """Evaluate ``body`` (an async function body) with the page's modules ``tiles`` and
    ``board`` imported; returns what it returns."""
    return page.evaluate(f"""async () => {{
        const tiles = await import('/static/tiles.js');
        const board = await import('/static/board.js');
        {body}
    }}""")


@pytest.fixture
def lobby_page(server: ServerThread, browser: Any) -> Any:
    """The lobby page, for its origin (the modules load from the server)."""
    page, errors = new_page(browser)
    page.goto(server.base + "/")
    yield page
    assert errors == []
    page.context.close()


def test_every_tile_code_of_a_log_line_becomes_a_tile(lobby_page: Any) -> None:
    """Issue 18.1: "(R6", "[R5][R4]", "R4)," and a one-tile score are all tiles."""
    found = run_js(lobby_page, """
        const out = [];
        for (const line of [
            "Ada scored 3 tiles of the red row (R6 R5 R4 = 15), paying B7 B5 B3",
            "Ada scored 1 tile of the red row (R6 = 6), paying R5",
            "(R6 [R5][R4] = 15)",
            "Bea placed O9 O8 and drew 2"]) {
          const li = document.createElement('li');
          li.append(tiles.richText(line));
          const codes = [...li.querySelectorAll('.tile')].map(t => t.dataset.code);
          const plain = [...li.childNodes].filter(n => n.nodeType === 3).map(n => n.data).join('');
          out.push([codes, plain]);
        }
        return out;""")
    assert found[0] == [["R6", "R5", "R4", "B7", "B5", "B3"],
                        "Ada scored 3 tiles of the red row (   = 15), paying   "]
    assert found[1] == [["R6", "R5"], "Ada scored 1 tile of the red row ( = 6), paying "]
    assert found[2] == [["R6", "R5", "R4"], "( [][] = 15)"]
    assert found[3] == [["O9", "O8"], "Bea placed   and drew 2"]


VIEW = """{
    rules: {colors: 3, max_value: 6, copies: 2}, stage: STAGE, to_move: 0, turns: 9,
    bag_count: 0, ending: false,
    players: [{rows: {R: [], O: ["O5"], Y: []}, pile: ["R6"], paid: ["O2"], phase: 2,
               hand_count: 1, score: -3, exchanged_count: 0, mulligan_count: null},
              {rows: {R: [], O: [], Y: []}, pile: [], paid: [], phase: 1,
               hand_count: 5, score: 0, exchanged_count: 1, mulligan_count: null}]}"""


def test_words_one_tile_scored_rows_and_final_scores(lobby_page: Any) -> None:
    """Issue 18.2: "1 tile", a row emptied by scoring says so, "Final scores" at the end;
    18.9: the colour label in front of a row has a label of its own ("red row: empty...");
    18.10: the score says why it may be far below zero."""
    said = run_js(lobby_page, f"""
        const STAGE = "play";
        const view = {VIEW};
        const panel = board.playerPanel(view, 0, ["Ada", "Bea"]);
        const other = board.playerPanel(view, 1, ["Ada", "Bea"]);
        const rows = [...panel.querySelectorAll('.row')].map(r => [
            r.dataset.row, r.querySelector('.ctag').getAttribute('role'),
            r.querySelector('.ctag').getAttribute('aria-label'),
            r.querySelector('.row-tiles').textContent]);
        const over = board.scoresTable({{...view, stage: "over"}}, ["Ada", "Bea"], 0);
        const during = board.scoresTable(view, ["Ada", "Bea"], 0);
        return {{rows, heaps: [...panel.querySelectorAll('.heap summary')].map(e => e.textContent),
                 otherRows: [...other.querySelectorAll('.row-tiles')].map(e => e.textContent),
                 final: over.caption.textContent, during: during.caption.textContent,
                 why: panel.querySelector('.facts [title]').title,
                 tracker: board.trackerEl(view, {{R1: 1}}).firstChild.textContent,
                 plural: [tiles.tilesCount(1), tiles.tilesCount(0)]}};""")
    assert said["plural"] == ["1 tile", "0 tiles"]
    assert said["tracker"].startswith("1 tile unseen")
    assert said["heaps"] == ["pile: 1 tile = 6", "paid: 1 tile = 2"]
    assert said["rows"] == [["O", "img", "orange row: 1 tile = 5", "●O5= 5"]]
    assert said["otherRows"] == []  # another's panel lists no empty rows
    assert said["final"] == "Final scores (pile \u2212 rows)"
    assert said["during"].startswith("Scores so far")
    assert "count against you until you score them" in said["why"]
    mine = run_js(lobby_page, f"""
        const STAGE = "play";
        const view = {VIEW};
        const el = board.rowsEl(view, 0, {{showEmpty: true}});
        const two = board.rowsEl(view, 1, {{showEmpty: true}});
        const done = {{...view.players[0], rows: {{R: [], O: [], Y: []}}}};
        return [[...el.querySelectorAll('.row.empty .row-tiles')].map(e => e.textContent),
                [...two.querySelectorAll('.ctag')].map(e => e.getAttribute('aria-label')),
                board.rowsEl({{...view, players: [done, view.players[1]]}}, 0).textContent,
                board.rowsEl(view, 1).textContent];""")
    assert mine[0] == ["row scored", "no row (none placed)"]
    assert mine[1] == ["red row: empty, no row yet", "orange row: empty, no row yet",
                       "yellow row: empty, no row yet"]
    assert mine[2:] == ["all rows scored", "no rows yet"]  # another's panel, rows all gone


def test_guidance_is_not_an_error_and_a_selection_made_while_the_bot_thinks_stays(
        slow_server: ServerThread, browser: Any) -> None:
    """Issue 18.3: with nothing selected, and while the bot moves, the move lines are neutral
    guidance (no ✗, not red) naming whose turn it is. 18.5: tiles selected while the bot
    thinks are still selected when the turn comes."""
    page, errors = new_page(browser, viewport={"width": 1280, "height": 900})
    href = create_in_lobby(page, slow_server.base, SMALL_RULES)
    page.goto(slow_server.base + href)
    join_and_start(page)
    assert wait_for_decision(page)
    assert page.locator("#moves .why.refused").count() == 0
    aside = page.locator(".move", has=page.locator("button[data-kind=mulligan]")).locator(".why")
    sync_api.expect(aside).to_have_text("select the tiles to set aside, or keep your hand")
    assert aside.evaluate("e => getComputedStyle(e).color") != "rgb(164, 22, 26)"  # not --bad
    page.click("#moves button[data-kind=keep]")
    sync_api.expect(page.locator("#turn-note")).to_have_text(re.compile(r"\(bot\) is thinking…"))
    bot = page.evaluate("window.noreturn.state().names[1]")
    whys = page.locator("#moves .why")
    assert whys.count() >= 1
    for text in whys.all_inner_texts():
        assert text == f"{bot}'s turn", text
    assert page.locator("#moves .why.refused").count() == 0
    tiles = page.locator("#hand .tile")
    tiles.nth(0).click()
    tiles.nth(2).click()
    chosen = page.locator("#hand .tile[aria-pressed=true]").evaluate_all(
        "ts => ts.map(t => t.dataset.code)")
    assert len(chosen) == 2
    assert page.get_attribute("body", "data-my-turn") == "0"  # chosen while the bot thinks
    assert wait_for_decision(page)
    kept = page.locator("#hand .tile[aria-pressed=true]").evaluate_all(
        "ts => ts.map(t => t.dataset.code)")
    assert kept == chosen
    assert errors == []


def test_moves_are_off_while_disconnected_and_the_notice_goes_on_reconnecting(
        server: ServerThread, browser: Any) -> None:
    """Issue 18.6: during an outage no move, hint or "your turn"; back online, the "Not
    connected" notice is gone and the turn is back."""
    page, errors = new_page(browser, viewport={"width": 1280, "height": 900})
    href = create_in_lobby(page, server.base, SMALL_RULES)
    page.goto(server.base + href)
    join_and_start(page)
    assert wait_for_decision(page)
    page.evaluate("() => { window.noreturn.drop(); document.getElementById('hint').click(); }")
    page.locator("body[data-conn=retry]").wait_for(state="attached")
    sync_api.expect(page.locator("#errors")).to_contain_text("Not connected right now")
    assert page.get_attribute("body", "data-my-turn") == "0"
    buttons = page.locator("#moves button")
    assert buttons.count() >= 1
    for i in range(buttons.count()):
        assert buttons.nth(i).is_disabled()
    assert page.locator("#hint").is_disabled()
    assert "▶ your turn" not in page.inner_text("#my-badges")
    sync_api.expect(page.locator("#turn-note")).to_contain_text("Not connected")
    sync_api.expect(page.locator("#conn")).to_have_text("connected")
    assert wait_for_decision(page)
    sync_api.expect(page.locator("#errors .error")).to_have_count(0)
    sync_api.expect(page.locator("#my-badges")).to_contain_text("▶ your turn")
    assert errors == []


def test_the_waiting_room_takes_the_seat_in_one_click_and_starts_when_all_joined(
        server: ServerThread, browser: Any) -> None:
    """Issue 18.4: "Take this seat" joins at once; Start is off (and says whom it waits for)
    until the other person joined; then one click starts."""
    page, errors = new_page(browser, viewport={"width": 375, "height": 812}, is_mobile=True,
                            has_touch=True)
    page.goto(server.base + "/")
    page.fill("input[name=name-0]", "Ada")
    page.select_option("select[name=kind-1]", "human")
    page.fill("input[name=name-1]", "Bea")
    page.click("#create")
    page.locator("#created a.primary").wait_for()
    bea = page.locator("#created a[data-seat-link^='Seat 2']").get_attribute("href")
    page.click("#created a.primary")  # "Take this seat": no Join needed
    page.locator("#lobby:not([hidden])").wait_for()
    sync_api.expect(page.locator("#lobby-seats li").first.locator(".badge.ok")).to_have_text(
        "joined")
    assert "join=1" not in page.url  # the address keeps only the token
    sync_api.expect(page.locator("#start")).to_be_disabled()
    sync_api.expect(page.locator("#start-why")).to_contain_text("waits for Bea to join")
    other, more = new_page(browser)
    other.goto(server.base + bea)
    other.locator("#lobby:not([hidden])").wait_for()
    sync_api.expect(other.locator("#lobby-seats li").nth(1).locator(".badge.wait")).to_have_text(
        "not joined yet")  # a plain seat link does not join by itself
    sync_api.expect(other.locator("#start")).to_be_enabled()  # Ada has joined: Bea may start
    other.click("#join")
    sync_api.expect(page.locator("#start")).to_be_enabled(timeout=10000)  # polled every 2.5 s
    page.click("#start")
    page.locator("body[data-status=playing]").wait_for(state="attached")
    assert overflow(page) == 0
    assert errors == [] and more == []


def focus_in_mine(page: Any) -> bool:
    """Whether the keyboard focus is in the seat's own panel (not lost to the page)."""
    inside: bool = page.evaluate(
        "document.getElementById('mine').contains(document.activeElement)")
    return inside


def keys_for(page: Any, action: str, enter: str) -> list[str]:
    """The keys that play a hinted phase-1 move: its tiles' digits, then the verb's letter
    (or ``enter``)."""
    if action == "declare":
        return ["d"]
    verb, *codes = action.split()
    hand = page.locator("#hand .tile").evaluate_all("ts => ts.map(t => t.dataset.code)")
    used: list[int] = []
    for code in codes:
        used.append(next(i for i, c in enumerate(hand) if c == code and i not in used))
    assert max(used) < 9, (hand, action)  # a small variant: hands of 5 and their draws
    return [str(i + 1) for i in used] + [enter or verb[0]]


def test_a_game_by_keys_alone_keeps_the_focus(server: ServerThread, browser: Any) -> None:
    """Issue 18.7: the terminal's keys (1-9, p, e, d, h, t, ?, Enter): a few presses a move,
    and after each move the focus is still in the seat's panel."""
    page, errors = new_page(browser, viewport={"width": 1280, "height": 900})
    href = create_in_lobby(page, server.base, SMALL_RULES)
    page.goto(server.base + href)
    join_and_start(page)
    assert wait_for_decision(page)
    sync_api.expect(page.locator("#keys-help")).to_contain_text("p place")
    page.keyboard.press("?")
    assert page.locator("#keys-help").get_attribute("open") is not None
    page.keyboard.press("Escape")
    page.locator("#keys-help summary").blur()  # the focus nowhere: the first key brings it
    opened = page.locator("#tracker-box").get_attribute("open") is not None
    page.keyboard.press("t")
    assert (page.locator("#tracker-box").get_attribute("open") is not None) != opened
    page.keyboard.press("Enter")  # nothing selected: keep the whole hand
    moves = presses = 0
    while moves < 4 and wait_for_decision(page):
        assert focus_in_mine(page), page.evaluate("document.activeElement.outerHTML")
        view = page.evaluate("window.noreturn.state().view")
        if view["stage"] != "play" or view["players"][view["seat"]]["phase"] != 1:
            break
        version = page.get_attribute("body", "data-version")
        page.keyboard.press("h")
        box = page.locator("#hint-box[data-action]")
        box.wait_for()
        action: str = box.get_attribute("data-action")
        keys = keys_for(page, action, "Enter" if moves % 2 else "")
        for key in keys:
            page.keyboard.press(key)
        if action == "declare":
            page.locator("#confirm[open]").wait_for()
            page.keyboard.press("Tab")  # from Cancel to Declare
            page.keyboard.press("Enter")
            presses += 2
        presses += 1 + len(keys)
        moves += 1
        page.wait_for_function("v => document.body.dataset.version !== v", arg=version)
        assert page.locator("#errors .error").count() == 0, page.inner_text("#errors")
        me = page.evaluate("(s => s.view.players[s.view.seat])(window.noreturn.state())")
        if me["score"] < 0 and me["phase"] == 1:  # 18.10: why the score is below zero
            sync_api.expect(page.locator("#rows-help")).to_contain_text(
                "your rows count against you until scored")
    assert moves >= 2
    assert presses / moves <= 7
    assert page.evaluate("document.activeElement === document.body") is False
    assert errors == []


def test_a_phone_with_three_players_shows_the_hand_and_hint_on_the_turn(
        slow_server: ServerThread, browser: Any) -> None:
    """Issue 18.8: 375 px, two opponents: the own panel comes first, and each turn brings
    the hand and the Hint button on screen, though the player scrolled down meanwhile."""
    base = slow_server.base
    phone = {"viewport": {"width": 375, "height": 812}, "is_mobile": True, "has_touch": True}
    page, errors = new_page(browser, **phone)
    made = page.request.post(f"{base}/api/tables", data={
        "seats": [{"kind": "human", "name": "Ada"}, {"kind": "bot", "level": "easy"},
                  {"kind": "bot", "level": "easy"}],
        "rules": {"colors": 3, "max_value": 6, "hand_size": 5}}).json()
    page.goto(base + made["seat_links"][0]["link"])
    join_and_start(page)
    turns = 0
    while turns < 3 and wait_for_decision(page):
        mine = page.locator("#mine").bounding_box()
        first_other = page.locator("#others .player").first.bounding_box()
        assert mine["y"] < first_other["y"]
        for sel in ("#hand", "#hint"):
            box = page.evaluate("s => { const r = document.querySelector(s)"
                                ".getBoundingClientRect(); return [r.top, r.bottom]; }", sel)
            assert box[0] >= 0 and box[1] <= 812, (sel, box, turns)
        version = page.get_attribute("body", "data-version")
        play_hinted_move(page)
        page.wait_for_function("v => document.body.dataset.version !== v", arg=version)
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")  # reads the log
        turns += 1
    assert turns >= 3
    assert overflow(page) == 0
    assert errors == []


def score_by_keys(page: Any, action: str) -> int:
    """Aim the hinted score with r and +, select its payment with digits, send it with s;
    the number of keys pressed."""
    words = action.split()
    row, count, pay = words[1], int(words[2][1:]), words[4:]
    presses = 0
    aimed = page.locator(f"#my-rows .row[data-row={row}] .tile.target")
    while aimed.count() == 0:
        assert presses < 6, "r never aimed at the hinted row"
        page.keyboard.press("r")
        presses += 1
    for _ in range(count - 1):
        page.keyboard.press("+")
    sync_api.expect(aimed).to_have_count(count)
    keys = keys_for(page, "pay " + " ".join(pay), "s")
    for key in keys:
        page.keyboard.press(key)
    return presses + count - 1 + len(keys)


def test_a_score_aimed_and_paid_by_keys(server: ServerThread, browser: Any) -> None:
    """Issue 18.7, phase 2 by keys: after two placements and a declaration, r aims at a row,
    + widens the aim, digits pay and s scores (the hinted score)."""
    page, errors = new_page(browser, viewport={"width": 1280, "height": 900})
    href = create_in_lobby(page, server.base, SMALL_RULES)
    page.goto(server.base + href)
    join_and_start(page)
    scored, placed, seen = False, 0, []
    while not scored and wait_for_decision(page):
        version = page.get_attribute("body", "data-version")
        state = page.evaluate("window.noreturn.state()")
        view, legal = state["view"], state["legal"]
        places = [a for a in legal if a.startswith("place")]
        if view["stage"] == "mulligan":
            page.keyboard.press("Enter")  # keep
        elif view["players"][view["seat"]]["phase"] == 1 and placed >= 2 and "declare" in legal:
            page.keyboard.press("d")
            page.locator("#confirm[open]").wait_for()
            page.keyboard.press("Tab")
            page.keyboard.press("Enter")
        elif view["players"][view["seat"]]["phase"] == 1:
            action = max(places, key=len) if places else next(
                a for a in legal if a.startswith("exchange"))
            for key in keys_for(page, action, ""):
                page.keyboard.press(key)
            placed += bool(places)
        else:
            page.keyboard.press("h")
            box = page.locator("#hint-box[data-action]")
            box.wait_for()
            action = box.get_attribute("data-action")
            seen.append(action)
            if action.startswith("score"):
                assert score_by_keys(page, action) <= 12
                scored = True
            else:
                play_hinted_move(page)
        page.wait_for_function("v => document.body.dataset.version !== v", arg=version)
        assert page.locator("#errors .error").count() == 0, page.inner_text("#errors")
    assert scored, f"the game ended without a score hinted: {seen}"
    line = page.locator("#log li", has_text="Ada scored").first
    line.wait_for(state="attached")
    assert line.locator(".tile").count() >= 2  # 18.1 in a real log: the scored and paid tiles
    assert errors == []
