"""No finished work is lost to a path: bad output folders are refused before the work
starts, and a folder that fails at the end sends the work to a fallback folder, said where.
"""

from __future__ import annotations

import asyncio
import io
import json
import re
import shutil
import tempfile
from pathlib import Path

import pytest
from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import Static
from typer.testing import CliRunner

from noreturn.cli import app
from noreturn.engine import Rules
from noreturn.files import OutputDir, OutputError, check_output_dir
from noreturn.records import check_record, read_record
from noreturn.sim.commands import simulate_command
from noreturn.sim.report import tournament_command
from noreturn.sim.simulate import simulate
from noreturn.sim.tournament import Settings
from noreturn.table import LocalTable, make_seats
from noreturn.tui.app import NoReturnApp
from noreturn.tui.plain import play_plain
from noreturn.tui.screens import ConfirmScreen, EndScreen

runner = CliRunner()
SMALL = "colors=3,max_value=6,hand_size=4"


@pytest.fixture
def rescue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's data folder for this test: where the fallback folders go."""
    data = tmp_path / "data"
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    return data / "noreturn" / "rescued"


@pytest.fixture
def nowhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A file where the data folder and the temporary folder should be: no fallback works."""
    file = tmp_path / "file"
    file.write_text("x")
    monkeypatch.setenv("XDG_DATA_HOME", str(file))
    monkeypatch.setattr(tempfile, "tempdir", str(file))
    return file


def flat(text: str) -> str:
    """Terminal output as one line: no panel borders, single spaces."""
    return " ".join(text.replace("│", " ").split())


def _commands(file: Path) -> list[tuple[list[str], str, str]]:
    """(arguments, the option blamed, words of the problem) for each command."""
    tournament = ["tournament", "--bots", "random,greedy", "--games", "2", "--workers", "1",
                  "--rules", SMALL]
    return [
        (["simulate", "--games", "2", "--out", str(file)], "--out", "is a file, not a folder"),
        (["simulate", "--games", "2", "--out", "/proc/noreturn-out"], "--out",
         "cannot write in /proc/noreturn-out"),
        ([*tournament, "--out", str(file)], "--out", "is a file, not a folder"),
        ([*tournament, "--out", str(file / "sub")], "--out", "part of that path is a file"),
        (["play", "--plain", "--save-dir", str(file)], "--save-dir", "is a file, not a folder"),
    ]


@pytest.mark.parametrize("case", range(5))
def test_a_bad_output_folder_is_refused_before_any_work(tmp_path: Path, case: int) -> None:
    file = tmp_path / "bad.json"
    file.write_text("{}")
    args, option, problem = _commands(file)[case]
    result = runner.invoke(app, args, input="quit\n")
    text = flat(result.output)
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)  # no traceback
    assert f"Invalid value for '{option}'" in text and problem in text
    assert "give a folder" in text  # the fix
    assert "games:" not in text and "No Return" not in text and "simulating" not in text


def test_check_output_dir_creates_a_missing_folder(tmp_path: Path) -> None:
    assert check_output_dir(tmp_path / "a" / "b").is_dir()


def test_simulate_records_go_to_a_fallback_when_the_folder_vanishes_meanwhile(
    tmp_path: Path, rescue: Path,
) -> None:
    folder = tmp_path / "records"
    out = OutputDir(folder, "simulate")
    games = simulate(Rules.parse(SMALL, players=2), 3, out=out)
    next(games)
    shutil.rmtree(folder)
    folder.write_text("not a folder any more")
    assert len(list(games)) == 2
    assert out.problem is not None and str(folder) in out.problem
    saved = sorted(rescue.glob("simulate-*/*.json"))
    assert [p.name for p in saved] == ["game-0-00001.json", "game-0-00002.json"]
    assert all(check_record(read_record(p)).valid for p in saved)


def test_simulate_command_says_where_the_records_went(tmp_path: Path, rescue: Path) -> None:
    file = tmp_path / "taken"
    file.write_text("x")
    console = Console(file=io.StringIO(), width=300)
    assert simulate_command(Rules(players=2), 2, 0, "rollout", file, console) == 0
    text = flat(console.file.getvalue())  # type: ignore[attr-defined]
    (fallback,) = rescue.glob("simulate-*")
    assert f"could not write in {file}" in text and str(fallback) in text
    assert len(list(fallback.glob("*.json"))) == 2


def test_simulate_command_without_any_folder_ends_with_one_error_line(nowhere: Path) -> None:
    file = nowhere
    console = Console(file=io.StringIO(), width=300)
    assert simulate_command(Rules(players=2), 1, 0, "rollout", file / "out", console) == 1
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert text.startswith("error: could not write in") and "Traceback" not in text


def test_a_tournament_whose_folder_fails_at_the_end_keeps_its_results(
    tmp_path: Path, rescue: Path,
) -> None:
    file = tmp_path / "bad.json"
    file.write_text("x")
    setup = Settings(("random", "greedy"), Rules.parse(SMALL, players=2), 4, 3, workers=1)
    console = Console(file=io.StringIO(), width=300)
    assert tournament_command(setup, file, records=True, console=console) == 0
    text = flat(console.file.getvalue())  # type: ignore[attr-defined]
    (results,) = rescue.glob("tournament-*/results.json")
    assert json.loads(results.read_text())["games"] == 4
    assert (results.parent / "tournament.png").is_file()
    assert len(list(rescue.glob("tournament-records-*/*.json"))) == 4
    assert f"could not write in {file}" in text and f"results: {results}" in text


def _table(save_dir: Path) -> LocalTable:
    return LocalTable(make_seats(2, ["Ada"], ["greedy"]), Rules.parse(SMALL, players=2), 3,
                      save_dir)


def test_play_saves_to_a_fallback_when_its_folder_became_a_file(
    tmp_path: Path, rescue: Path,
) -> None:
    folder = tmp_path / "games"
    table = _table(folder)
    folder.write_text("a file now")  # during the game
    out: list[str] = []
    assert play_plain(table, io.StringIO("1\n" * 300), out.append) == 0
    text = "\n".join(out)
    assert "final scores:" in text
    assert table.path is not None and table.path.parent.parent == rescue
    assert f"could not write in {folder}" in text and f"record saved: {table.path}" in text
    record = read_record(table.path)
    assert "result" in record and check_record(record).valid


def test_play_shows_the_record_when_no_folder_at_all_takes_it(nowhere: Path) -> None:
    table = _table(nowhere)
    out: list[str] = []
    assert play_plain(table, io.StringIO("1\n" * 300), out.append) == 0
    text = "\n".join(out)
    assert "could not write in" in text
    shown = json.loads(text[text.index("\n{", text.index("keep as a .json file")):])
    assert shown == table.record() and check_record(shown).valid


@pytest.mark.parametrize("anywhere", [True, False])
def test_the_full_screen_game_quits_without_a_traceback_when_saving_fails(
    tmp_path: Path, nowhere: Path, monkeypatch: pytest.MonkeyPatch, anywhere: bool,
) -> None:
    if anywhere:
        monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    game = NoReturnApp(_table(nowhere), bot_delay=0)

    async def run() -> None:
        async with game.run_test(size=(120, 40)) as pilot:
            await _quit(pilot)

    asyncio.run(run())
    saved = game.return_value or ""
    if anywhere:
        assert re.search(r"rescued/games-[^/]+/game-[^/]+\.json$", saved)
        assert check_record(read_record(saved)).valid
    else:
        assert saved == "" and game.table.path is None


async def _quit(pilot: Pilot[str]) -> None:
    await pilot.pause()
    await pilot.press("q")
    assert isinstance(pilot.app.screen, ConfirmScreen)
    await pilot.press("y")


def test_output_dir_gives_up_with_one_clear_error(nowhere: Path) -> None:
    with pytest.raises(OutputError, match="nor in a fallback folder"):
        OutputDir(nowhere, "games").write("x.json", lambda path: path.write_text("{}"))


def test_the_end_screen_says_where_the_record_went(tmp_path: Path, rescue: Path) -> None:
    folder = tmp_path / "games"
    table = _table(folder)
    while not table.is_over():
        table.run_bots()
        if not table.is_over():
            assert table.try_action(table.hint()[0]) is None
    folder.write_text("a file now")
    game = NoReturnApp(table, bot_delay=0)
    shown: list[str] = []

    async def run() -> None:
        async with game.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            assert isinstance(game.screen, EndScreen)
            shown.append(flat(str(game.screen.query_one("#result", Static).content)))
            await pilot.press("q")

    asyncio.run(run())
    assert f"could not write in {folder}" in shown[0]
    assert f"Record saved: {table.path}" in shown[0] and game.return_value == str(table.path)
    assert table.path is not None and table.path.parent.parent == rescue


def test_a_free_name_never_takes_an_existing_files(tmp_path: Path) -> None:
    out = OutputDir(tmp_path, "games")
    assert out.free_name("game-1", ".json") == "game-1.json"
    (tmp_path / "game-1.json").write_text("{}")
    (tmp_path / "game-1-2.json").write_text("{}")
    assert out.free_name("game-1", ".json") == "game-1-3.json"
    assert out.free_name("game-2", ".json") == "game-2.json"
