"""The replay account: turn by turn, with the table, and for a seat nothing it could not see."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from recordkit import VARIANTS, Game, recorded_game

from noreturn.engine import Rules
from noreturn.records import Record, Verdict, read_record
from noreturn.records.account import HIDDEN_EVENTS, write_account

RECORDS = Path(__file__).parent
S03 = RECORDS / "shared" / "s03_score_whole_row_and_result.json"
S21 = RECORDS / "shared" / "s21_last_mulligan_cannot_redraw_set_aside.json"
NAMES = ["Ada", "Bea", "Cy", "Dot"]
TILE = re.compile(r"\b[ROYGBP]\d{1,2}\b")


def account(record: Record, seat: int | None = None) -> tuple[list[str], Verdict]:
    lines: list[str] = []
    verdict = write_account(record, seat, lines.append)
    return lines, verdict


def named_game(rules: Rules, seed: int) -> Game:
    players = [{"name": NAMES[i], "kind": "bot"} for i in range(rules.players)]
    return recorded_game(rules, seed, players=players)


def test_full_account_of_a_small_game() -> None:
    lines, verdict = account(read_record(S03))
    assert verdict.valid
    for expected in [
        "P0 starts. This account shows everything in the record.",
        "  P0 was dealt R4 R3 R1",
        "Turn 1: P0",
        "  P0 placed R4 R3 R1",
        "  P0 drew O4 O3 O2",
        "Turn 3: P0",
        "  P0 declared phase 2 (no return)",
        "  P0 scored 3 tiles of the red row (R4 R3 R1 = 8), paying O4 O3 O2",
        "    P1's hand: R4 O1",
        "Game over after 6 turns. Score = score pile - rows:",
        "  P0: 8 - 0 = 8, rank 1",
        "  P1: 1 - 4 = -3, rank 2",
    ]:
        assert expected in lines, expected
    assert lines.index("Turn 1: P0") < lines.index("Turn 2: P1") < lines.index("Turn 6: P1")


def test_table_after_the_setup_and_after_every_turn() -> None:
    for rules in VARIANTS[:8]:
        game = named_game(rules, 21)
        lines, _ = account(game.record, 0)
        turns = game.state.turns
        tables = [line for line in lines if line.startswith("  -- table after ")]
        assert len(tables) == turns + 1
        starter = NAMES[game.record["start_player"]]
        assert tables[0] == f"  -- table after 0 turns, {starter} to move:"
        assert tables[-1].endswith("game over:")
        headers = [line for line in lines if line.startswith("Turn ")]
        assert [h.split(":")[0] for h in headers] == [f"Turn {k}" for k in range(1, turns + 1)]
        assert sum(line.strip().startswith("bag: ") for line in lines) == turns + 1


def test_final_scores_show_pile_minus_rows_and_ranks() -> None:
    for rules in VARIANTS[:10]:
        game = named_game(rules, 5)
        lines, verdict = account(game.record)
        state = game.state
        ranks = state.ranks()
        for seat in range(rules.players):
            rows = state.row_sum(seat)
            line = (f"  {NAMES[seat]}: {state.pile_sums[seat]} - {rows} = "
                    f"{state.scores()[seat]}, rank {ranks[seat]}")
            assert line in lines
        assert verdict.scores == tuple(state.scores())


def _seen_by(record: Record, seat: int) -> set[str]:
    """Every tile code ``seat`` could see in the game: its own tiles and all public ones."""
    seen: set[str] = set()
    for event in record["events"]:
        if (event["type"] in HIDDEN_EVENTS and event["player"] == seat) or event["type"] == "place":
            seen |= set(event["tiles"])
        elif event["type"] == "score":
            seen |= set(event["pay"])
    return seen


GAMES = [(rules, seed) for rules in VARIANTS for seed in (1, 2)]


@pytest.mark.parametrize(("rules", "seed"), GAMES, ids=[f"{r}-{s}" for r, s in GAMES])
def test_seat_account_shows_no_tile_the_seat_could_not_see(rules: Rules, seed: int) -> None:
    game = named_game(rules, seed)
    for seat in range(rules.players):
        lines, verdict = account(game.record, seat)
        assert verdict.valid
        me = NAMES[seat]
        others = [n for n in NAMES[:rules.players] if n != me]
        hidden_verbs = (" was dealt ", " drew ", " set aside ", " exchanged ")
        for line in lines:
            text = line.strip()
            if any(text.startswith(o + v) for o in others for v in hidden_verbs):
                assert not TILE.search(text), f"seat {seat} sees a hidden tile: {text}"
                assert re.search(r"\d+ tiles?\b", text), text
            if TILE.search(text):
                assert (text.startswith((me + " ", "your hand:")) or " placed " in text
                        or " scored " in text), f"seat {seat} sees a tile code: {text}"
            assert "'s hand:" not in text
        codes = {code for line in lines for code in TILE.findall(line)}
        assert codes <= _seen_by(game.record, seat)
        dealt = [line for line in lines if " was dealt " in line]
        assert len(dealt) == rules.players
        assert sum(bool(TILE.search(line)) for line in dealt) == 1
        assert sum(line.strip().startswith("your hand:") for line in lines) == game.state.turns + 1


def test_full_account_shows_every_hand_and_every_tile() -> None:
    game = named_game(VARIANTS[1], 3)
    lines, _ = account(game.record)
    for name in NAMES[:3]:
        assert sum(line.strip().startswith(f"{name}'s hand:") for line in lines) == (
            game.state.turns + 1)
    dealt = [line for line in lines if " was dealt " in line]
    assert all(len(TILE.findall(line)) == 8 for line in dealt)


def test_invalid_record_is_told_up_to_the_problem() -> None:
    record = read_record(RECORDS / "broken" / "b10_place_above_row_lowest.json")
    lines, verdict = account(record)
    assert not verdict.valid and verdict.event == 10
    assert lines[-1] == ("INVALID record: event 10: place O3 by player 1: O3 is higher than O1, "
                         "the lowest tile of your orange row; a row only ever goes down "
                         "[illegal-action]")
    assert "  P0 drew R2" in lines and not any("placed O3" in line for line in lines)


def test_seat_account_of_invalid_record_keeps_hidden_details_hidden() -> None:
    record = read_record(S21)
    full, _ = account(record)
    assert full[-1].endswith("draw R4 O1 by player 1: R4 is not in the bag [tile-not-in-bag]")
    own, _ = account(record, 1)
    assert own[-1] == full[-1]
    other, verdict = account(record, 0)
    assert not verdict.valid
    assert other[-1].startswith("INVALID record: event 4: refused [tile-not-in-bag]")
    assert "R4" not in other[-1] and "O1" not in other[-1]
    assert "  P1 set aside 2 tiles" in other and "  P1 set aside R4 R4" in own


def test_result_problem_is_public() -> None:
    lines, _ = account(read_record(RECORDS / "shared" / "s20_dense_ranks_are_wrong.json"), 0)
    assert lines[-1].startswith("INVALID record: event 10: result: ranks [1, 1, 2] should be")


def test_game_in_progress() -> None:
    game = named_game(VARIANTS[0], 9)
    record = {**game.record, "events": game.record["events"][:30]}
    del record["result"]
    lines, verdict = account(record, 0)
    assert verdict.valid and not verdict.over
    assert lines[-1].startswith("The game is in progress: player ")
    assert not any(line.startswith("Game over") for line in lines)


def test_seat_must_be_a_seat_of_the_game() -> None:
    with pytest.raises(ValueError, match="0 to 1"):
        account(read_record(S03), 2)
