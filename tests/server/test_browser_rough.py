"""The browser's rough spots of issue 18, each fixed with an assertion here.

Reuses the fixtures of ``test_browser.py`` (a real server in a thread, Debian's Chromium).
Pure rendering is checked by importing the page's own modules into a page of the server
(fast: no game is played); the rest drives real tables.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed")

from test_browser import (
    ServerThread,
    browser,  # noqa: F401 - a fixture
    new_page,
    server,  # noqa: F401 - a fixture
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
def lobby_page(server: ServerThread, browser: Any) -> Any:  # noqa: F811
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
            "Ada scored 3 tiles of the R row (R6 R5 R4 = 15), paying B7 B5 B3",
            "Ada scored 1 tile of the R row (R6 = 6), paying R5",
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
                        "Ada scored 3 tiles of the R row (   = 15), paying   "]
    assert found[1] == [["R6", "R5"], "Ada scored 1 tile of the R row ( = 6), paying "]
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
                 plural: [tiles.plural(1, "tile"), tiles.plural(0, "tile")]}};""")
    assert said["plural"] == ["1 tile", "0 tiles"]
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
        return [[...el.querySelectorAll('.row.empty .row-tiles')].map(e => e.textContent),
                [...two.querySelectorAll('.ctag')].map(e => e.getAttribute('aria-label'))];""")
    assert mine[0] == ["row scored", "no row (none placed)"]
    assert mine[1] == ["red row: empty, no row yet", "orange row: empty, no row yet",
                       "yellow row: empty, no row yet"]
