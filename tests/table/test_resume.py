"""``noreturn play --resume``: an unfinished game goes on exactly where its record stopped."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from noreturn.cli import app
from noreturn.engine import NoReturnError
from noreturn.records import check_record
from noreturn.table import LocalTable, make_seats
from noreturn.table.resume import newest_record, resume_table


def _half_game(folder: Path, seed: int = 3, undo: bool = False) -> LocalTable:
    """A game against two bots, stopped and saved at the person's 8th turn."""
    table = LocalTable(make_seats(3, ["Ada"], ["easy", "medium"]), seed=seed, save_dir=folder)
    for turn in range(8):
        table.run_bots()
        assert table.try_action(table.hint()[0]) is None
        if undo and turn == 4:
            assert table.undo() is None  # the bag is reshuffled: the seed no longer tells
    table.run_bots()
    table.save()
    return table


def _same_game(a: LocalTable, b: LocalTable) -> None:
    sa, sb = a.state, b.state
    assert (sa.hands, sa.rows, sa.piles, sa.phases, sa.turns, sa.to_move) == (
        sb.hands, sb.rows, sb.piles, sb.phases, sb.turns, sb.to_move)
    assert sorted(sa.bag) == sorted(sb.bag)
    assert a.record()["events"] == b.record()["events"]


@pytest.mark.parametrize("undo", [False, True])
def test_a_resumed_game_is_the_saved_one_and_finishes_its_own_record(
        tmp_path: Path, undo: bool) -> None:
    before = _half_game(tmp_path, undo=undo)
    assert before.path is not None
    table = resume_table(before.path)
    _same_game(before, table)
    if not undo:  # the person reads on in the same log (an undo took lines back)
        assert table.log(0) == before.log(0)
    events = len(before.record()["events"])
    while not table.is_over():
        table.run_bots()
        if not table.is_over():
            assert table.try_action(table.hint()[0]) is None
    saved = table.save()
    assert saved == before.path and len(list(tmp_path.glob("*.json"))) == 1
    record = json.loads(saved.read_text())
    assert check_record(record).valid and "result" in record
    assert record["meta"]["reshuffled_at_events"][-1] == events
    assert "seed" not in record["meta"]  # the saved file had none: it told the draws to come


def test_a_game_in_progress_is_saved_without_its_seed(tmp_path: Path) -> None:
    """The file a person can open while playing must not tell the bag's order to come;
    the finished game's record carries the seed again (it replays the deal)."""
    table = _half_game(tmp_path, seed=918_273_645)
    assert table.path is not None
    saved = json.loads(table.path.read_text())
    assert "seed" not in saved["meta"] and "seed" not in table.record()["meta"]
    assert str(table.seed) not in table.path.read_text()
    assert check_record(saved).valid
    while not table.is_over():
        table.run_bots()
        if not table.is_over():
            assert table.try_action(table.hint()[0]) is None
    assert table.record()["meta"]["seed"] == table.seed
    assert json.loads(table.save().read_text())["meta"]["seed"] == table.seed


def test_an_unseeded_game_draws_its_seed_beyond_a_search_of_every_32_bit_one() -> None:
    """With at most 2**32 seeds, trying each against the draws a saved game shows would
    give the bag's order back, though the file leaves the seed out."""
    seeds = [int(LocalTable(make_seats(2, ["Ada"], ["easy"])).seed) for _ in range(5)]
    assert max(seeds) >= 2**32 and len(set(seeds)) == 5
    assert all(0 <= seed < 2**53 for seed in seeds)  # kept exactly by JSON readers


def test_finished_and_broken_records_are_not_resumed(tmp_path: Path) -> None:
    table = _half_game(tmp_path)
    while not table.is_over():
        table.run_bots()
        if not table.is_over():
            assert table.try_action(table.hint()[0]) is None
    path = table.save()
    with pytest.raises(NoReturnError, match="is over: see it with noreturn replay"):
        resume_table(path)
    broken = tmp_path / "broken.json"
    broken.write_text("{}")
    with pytest.raises(NoReturnError, match="not a record"):
        resume_table(broken)
    with pytest.raises(NoReturnError, match="no unfinished game in"):
        newest_record(tmp_path)


def test_a_broken_game_is_not_resumed_and_the_whole_reason_is_given(tmp_path: Path) -> None:
    """The validator's reason is the program's sentence: said whole, not cut as a value
    quoted from the file is."""
    path = _half_game(tmp_path).save()
    record = json.loads(path.read_text())
    at = next(i for i, e in enumerate(record["events"]) if e["type"] == "place")
    record["events"][at]["tiles"] = ["R11", "R11", "R11", "R10", "R10", "R10", "R9", "R9"]
    path.write_text(json.dumps(record))
    verdict = check_record(record)
    assert not verdict.valid and len(verdict.reason) > 60
    with pytest.raises(NoReturnError) as caught:
        resume_table(path)
    assert str(caught.value).endswith(f"event {at}: {verdict.reason}")


@pytest.mark.parametrize("shuffled", [5, None, "12", [1, "2"]])
def test_a_record_whose_reshuffle_notes_are_no_list_is_not_resumed(
        tmp_path: Path, shuffled: object) -> None:
    """``meta.reshuffled_at_events`` was spread into a list unread: 5 crashed the resume,
    "12" became events 1 and 2."""
    before = _half_game(tmp_path)
    assert before.path is not None
    record = json.loads(before.path.read_text())
    record["meta"]["reshuffled_at_events"] = shuffled
    before.path.write_text(json.dumps(record))
    with pytest.raises(NoReturnError, match="'reshuffled_at_events' in its meta must be a "
                                            "list of event numbers"):
        resume_table(before.path)


@pytest.mark.parametrize("policy", [
    "external:sh -c 'touch PWNED'", "declare-at:bag=40,bot=external:sh -c 'touch PWNED'"])
def test_a_record_never_starts_a_program(tmp_path: Path, policy: str) -> None:
    """A record is data from anyone: a bot's policy naming an external program would run
    that program (it did: a shared record's ``touch`` ran on resuming it)."""
    path = _half_game(tmp_path).save()
    record = json.loads(path.read_text())
    record["players"][1]["policy"] = policy.replace("PWNED", str(tmp_path / "pwned"))
    path.write_text(json.dumps(record))
    assert check_record(record).valid  # the format allows any policy text
    with pytest.raises(NoReturnError, match=r"seat 1 .* is played by an external program"):
        resume_table(path)
    result = CliRunner().invoke(app, ["play", "--plain", "--resume", str(path)], input="quit\n")
    assert result.exit_code != 0 and "never starts one" in " ".join(result.output.split())
    assert not (tmp_path / "pwned").exists()


def test_a_record_with_a_name_of_escape_sequences_is_not_resumed(tmp_path: Path) -> None:
    path = _half_game(tmp_path).save()
    record = json.loads(path.read_text())
    record["players"][0]["name"] = "\x1b[2JAda"
    path.write_text(json.dumps(record))
    with pytest.raises(NoReturnError, match=r"seat 0's name .* holds control characters"):
        resume_table(path)


@pytest.mark.parametrize(("change", "says"), [
    ({"policy": None}, "seat 1 (Bea) is a bot, and the record does not say which"),
    ({"policy": ""}, "seat 1 (Bea) is a bot, and the record does not say which"),
    ({"policy": 7}, "seat 1 (Bea) is a bot, and the record does not say which"),
])
def test_a_bot_seat_that_does_not_say_which_bot_is_not_resumed(
        tmp_path: Path, change: dict[str, object], says: str) -> None:
    """A bot seat without a policy was resumed as the bot named 'None' ("no bot named
    'None'"); other programs' records may leave the policy out."""
    path = _half_game(tmp_path).save()
    record = json.loads(path.read_text())
    record["players"][1].update(change)
    if change["policy"] is None:
        del record["players"][1]["policy"]
    path.write_text(json.dumps(record))
    with pytest.raises(NoReturnError, match=re.escape(says)):
        resume_table(path)


def test_a_game_of_bots_alone_is_not_resumed_but_its_record_says_its_bots(
        tmp_path: Path) -> None:
    """A tournament's record (every seat a bot) resumed into a table nobody plays at; its
    players now carry their specs as ``policy``, as a table's records do."""
    folder = tmp_path / "run"
    result = CliRunner().invoke(app, ["tournament", "--bots", "random,easy", "--games", "2",
                                      "--workers", "1", "--out", str(folder), "--records"])
    assert result.exit_code == 0, result.output
    path = sorted((folder / "records").glob("*.json"))[0]
    record = json.loads(path.read_text())
    assert sorted(p["policy"] for p in record["players"]) == ["easy", "random"]
    del record["result"]
    record["events"] = record["events"][:12]
    path.write_text(json.dumps(record))
    with pytest.raises(NoReturnError, match="every seat is a bot, so nobody plays"):
        resume_table(path)


def test_play_resume_takes_the_newest_unfinished_game(tmp_path: Path) -> None:
    older = _half_game(tmp_path, seed=3)
    newer = _half_game(tmp_path, seed=4)
    assert newest_record(tmp_path) == newer.path != older.path
    result = CliRunner().invoke(app, ["play", "--resume", "--save-dir", str(tmp_path)],
                                input="quit\n")
    assert result.exit_code == 0, result.output
    assert f"resuming {newer.path}" in " ".join(result.output.split())


@pytest.mark.parametrize("content", [None, "{}", "[1]", '{"format": "' + "x" * 100_000 + '"}'])
def test_a_record_that_cannot_be_resumed_is_named_in_the_players_language(
        tmp_path: Path, content: str | None) -> None:
    """A German player resuming a file that is no record read "Fehler: cannot read ...":
    the reason was English. It is said in German now, and a value quoted from a hostile
    file is cut short rather than echoed whole."""
    path = tmp_path / "game.json"
    if content is not None:
        path.write_text(content)
    said = {}
    for lang in ("en", "de"):
        result = CliRunner().invoke(app, ["--lang", lang, "play", "--plain", "--resume",
                                          str(path)])
        assert result.exit_code == 2
        said[lang] = " ".join(result.output.split())
        assert len(said[lang]) < 400 + len(str(path))
    assert said["en"].startswith("error: ")
    assert said["de"].startswith("Fehler: ")
    english = said["en"].removeprefix("error: ").replace(str(path), "")
    assert english.split(":")[0] not in said["de"]  # "cannot read", "not a record"


def test_play_says_how_to_resume_and_when_there_is_nothing(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["play", "--resume", "--save-dir", str(tmp_path)])
    assert result.exit_code == 2 and "no unfinished game in" in " ".join(result.output.split())
    result = runner.invoke(app, ["play", str(tmp_path / "game.json")])
    assert result.exit_code == 2 and "--resume" in " ".join(result.output.split())
