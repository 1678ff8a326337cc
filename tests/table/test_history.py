"""``noreturn history``: local games summed by opponents, a plot, and folders that hold
other things."""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path

from typer.testing import CliRunner

from noreturn.cli import app
from noreturn.table import LocalTable, make_seats
from noreturn.table.history import History, load_history
from noreturn.table.resume import newest_record


def _games(folder: Path) -> list[LocalTable]:
    """Three finished games (two against easy, one against medium) and one unfinished."""
    tables = []
    for seed, bot in ((1, "easy"), (2, "easy"), (3, "medium")):
        table = LocalTable(make_seats(2, ["Ada"], [bot]), seed=seed, save_dir=folder)
        while not table.is_over():
            table.run_bots()
            if not table.is_over():
                assert table.try_action(table.hint()[0]) is None
        table.save()
        tables.append(table)
    unfinished = LocalTable(make_seats(2, ["Ada"], ["greedy"]), seed=4, save_dir=folder)
    unfinished.save()
    (folder / "notes.json").write_text("{\"not\": \"a record\"}")
    (folder / "deep.json").write_text("[" * 100_000)  # the parser recursed until it crashed
    (folder / "binary.json").write_bytes(bytes(range(256)))
    return tables


def test_history_sums_each_persons_games_by_opponents(tmp_path: Path) -> None:
    tables = _games(tmp_path)
    history = load_history(tmp_path)
    assert history.people() == ["Ada"] and len(history.unfinished) == 1
    assert sorted(p.name for p in history.skipped) == ["binary.json", "deep.json", "notes.json"]
    rows = {row[0]: row for row in history.by_opponents("Ada")}
    assert set(rows) == {"easy", "medium"} and rows["easy"][1] == 2 and rows["medium"][1] == 1
    scores = [t.state.scores() for t in tables]
    assert rows["easy"][2] == sum(s[0] == max(s) for s in scores[:2])
    assert rows["medium"][4] == scores[2][0] - scores[2][1]


def test_the_history_command_prints_the_table_and_writes_the_plot(tmp_path: Path) -> None:
    _games(tmp_path)
    plot = tmp_path / "mine.png"
    result = CliRunner().invoke(app, ["history", "--dir", str(tmp_path), "--plot", str(plot)])
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert "games by opponents" in said and "medium" in said
    assert "1 unfinished game; go on with it: noreturn play --resume " in said
    unfinished = [p for p in tmp_path.glob("game-*.json") if "result" not in p.read_text()]
    assert f"--resume {unfinished[0]}" in said and "notes.json" in said
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_plot_named_badly_is_refused_and_one_not_written_fails(tmp_path: Path) -> None:
    """``--plot notes.txt`` ended in matplotlib's traceback, ``--plot x`` wrote x.png while
    saying x, and a plot that could not be written exited 0."""
    _games(tmp_path)
    for plot, said in (("notes.txt", "name a file ending in .png, such as notes.png"),
                       ("x", "name a file ending in .png, such as x.png")):
        result = CliRunner().invoke(app, ["history", "--dir", str(tmp_path), "--plot",
                                          str(tmp_path / plot)], env={"COLUMNS": "300"})
        assert result.exit_code == 2 and said in result.output
        assert "games by opponents" not in result.output
    assert not list(tmp_path.glob("*.png")) and not list(tmp_path.glob("*.txt"))
    result = CliRunner().invoke(app, ["history", "--dir", str(tmp_path), "--plot",
                                      "/proc/noreturn-history.png"])
    assert result.exit_code == 1 and "the plot could not be written" in result.output


def test_no_finished_games_says_how_to_get_one(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["history", "--dir", str(tmp_path)])
    assert result.exit_code == 1
    said = " ".join(result.output.split())
    assert "no finished games" in said and "noreturn play" in said
    assert not list(tmp_path.iterdir())


def test_only_unfinished_games_says_how_to_go_on_and_a_wrong_dir_says_so(
        tmp_path: Path) -> None:
    """An unfinished game alone got "no finished games: play one", not a word of the
    game to go on with; a missing folder or a file as --dir got "no finished games" too."""
    unfinished = LocalTable(make_seats(2, ["Ada"], ["greedy"]), seed=4, save_dir=tmp_path)
    path = unfinished.save()
    result = CliRunner().invoke(app, ["history", "--dir", str(tmp_path)],
                                env={"COLUMNS": "300"})
    said = " ".join(result.output.split())
    assert result.exit_code == 1 and "no finished games" in said
    assert f"1 unfinished game; go on with it: noreturn play --resume {path}" in said
    for said in (f"{tmp_path / 'nope'}: no such folder; give the folder your records are in",
                 f"{path} is a file, not a folder: give the folder your records are in"):
        folder = said.split(": ")[0].removesuffix(" is a file, not a folder")
        result = CliRunner().invoke(app, ["history", "--dir", folder], env={"COLUMNS": "300"})
        assert result.exit_code == 2 and said in " ".join(result.output.split())


def test_files_left_out_are_counted_in_good_english(tmp_path: Path) -> None:
    (tmp_path / "notes.json").write_text("{}")
    said = " ".join(CliRunner().invoke(app, ["history", "--dir", str(tmp_path)]).output.split())
    assert "1 file in " in said and " is not a game record, left out: notes.json" in said
    (tmp_path / "more.json").write_text("[]")
    said = " ".join(CliRunner().invoke(app, ["history", "--dir", str(tmp_path)]).output.split())
    assert "2 files in " in said and " are not game records, left out: " in said


def test_the_history_speaks_german_when_asked(tmp_path: Path) -> None:
    _games(tmp_path)
    result = CliRunner().invoke(app, ["history", "--dir", str(tmp_path), "--lang", "de",
                                      "--plot", str(tmp_path / "mine.png")])
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert "Spiele nach Gegnern" in said
    assert "1 nicht beendetes Spiel; fortsetzen mit: noreturn play --resume " in said
    assert "games by opponents" not in said


def test_a_name_with_a_path_in_it_keeps_the_plot_in_the_folder(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    table = LocalTable(make_seats(2, ["../Ada"], ["easy"]), seed=1, save_dir=folder)
    while not table.is_over():
        table.run_bots()
        if not table.is_over():
            assert table.try_action(table.hint()[0]) is None
    table.save()
    result = CliRunner().invoke(app, ["history", "--dir", str(folder)])
    assert result.exit_code == 0, result.output
    assert (folder / "history-.._Ada.png").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games"]  # nothing beside it


def test_an_unknown_name_of_any_length_is_said_shortened(tmp_path: Path) -> None:
    """A 100,000-character name was echoed whole, and wrapping it took rich a minute."""
    _games(tmp_path)
    result = CliRunner().invoke(app, ["history", "--dir", str(tmp_path), "--name", "Z" * 100_000])
    assert result.exit_code == 1
    said = " ".join(result.output.split())
    assert "no finished games of ZZZZ" in said, said[:500]
    assert max(map(len, re.findall("Z+", said))) < 60 and len(said) < 600, said[:700]


def test_a_pipe_among_the_saved_games_is_skipped_unopened(tmp_path: Path) -> None:
    """A pipe named like a record, held open for writing by someone who never writes,
    would keep the scan of the folder waiting for ever."""
    _games(tmp_path)
    pipe = tmp_path / "pipe.json"
    os.mkfifo(pipe)
    writer = os.open(pipe, os.O_RDWR)  # a writer that never writes
    found: list[object] = []
    try:
        scan = threading.Thread(
            target=lambda: found.extend([load_history(tmp_path), newest_record(tmp_path)]),
            daemon=True)
        scan.start()
        scan.join(timeout=60)
        assert not scan.is_alive(), "the scan waited on the pipe"
    finally:
        os.close(writer)
    history = found[0]
    assert isinstance(history, History) and len(history.unfinished) == 1
    assert pipe not in history.skipped and found[1] == history.unfinished[0]
