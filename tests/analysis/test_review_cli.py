"""``noreturn review`` as a user runs it: the table, --json (docs/review.md), the errors."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from noreturn.analysis import DEFAULT_PLAYOUTS, Budget, review_record
from noreturn.analysis.points import MAX_EVENTS
from noreturn.analysis.report import review_json, turns_text
from noreturn.analysis.review import LABEL_NAMES, accuracy_of, label_of
from noreturn.bots import Deck, make_bot, play_game
from noreturn.cli import app
from noreturn.engine import Rules
from noreturn.records import Record, write_record
from noreturn.text.lang import speaking

RULES = Rules(players=2, colors=4, max_value=7)
"""A small game (9 or 10 decisions a seat) so that the command runs in a moment."""
BROKEN = Path(__file__).parent.parent / "records" / "broken" / "b01_wrong_player.json"
FAST = ("--iterations", "12", "--workers", "1")
DECISION_KEYS = {"index", "seat", "turn", "kind", "played", "best", "played_margin",
                 "best_margin", "loss", "loss_se", "label", "declare_gain", "worlds",
                 "candidates"}
SEAT_KEYS = {"seat", "name", "decisions", "mean_loss", "accuracy", "luck", "luck_se",
             "declared_turn", "best_declare_turns", "labels"}

ROW = re.compile(r" *\d+ +(mull\.|\d+) +(mulligan|declare|place|exchange|score)")
"""A decision's row in the table: event, turn, the move played."""

runner = CliRunner(env={"COLUMNS": "80"})  # the table's width, whatever the terminal's


@pytest.fixture(scope="module")
def game() -> Record:
    result = play_game(RULES, [make_bot("plan"), make_bot("plan")], Deck(RULES, 1), seed=1,
                       keep_record=True)
    assert result.record is not None
    return result.record


@pytest.fixture
def record_file(game: Record, tmp_path: Path) -> Path:
    return write_record(game, tmp_path / "game.json")


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["review", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result.exit_code, result.stdout, result.stderr


def review_of(path: Path, *args: str) -> dict[str, Any]:
    code, out, err = run(str(path), "--json", *FAST, *args)
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


TALLY = {"best": ("best move", "best moves"), "good": ("good move", "good moves"),
         "inaccuracy": ("inaccuracy", "inaccuracies"), "mistake": ("mistake", "mistakes"),
         "blunder": ("blunder", "blunders")}
"""How a tally counts each label, one and more (a label's word alone took no number in
German: "15 bester")."""


def test_the_table_fits_80_columns_and_lists_every_decision(record_file: Path) -> None:
    code, out, _ = run(str(record_file), *FAST)
    assert code == 0
    lines = out.splitlines()
    assert all(len(line) <= 80 for line in lines), max(lines, key=len)
    heading = "".join("".join(lines[:4]).split())  # a long path may wrap anywhere
    assert heading.startswith("".join(f"review of {record_file} game over, scores plan".split()))
    data = review_of(record_file)
    for seat in data["seats"]:
        summary = next(i for i, line in enumerate(lines) if line.startswith(
            f"seat {seat['seat']} · {seat['name']}: accuracy {seat['accuracy']:.0f}"))
        assert "declaring was best at own turns" in lines[summary + 1]
        tally = [f"{count} {TALLY[name][count > 1]}" for name, count in seat["labels"].items()
                 if count]
        assert lines[summary + 2].strip() == ", ".join(tally)  # no "0 blunders"
    rows = [line for line in lines if ROW.match(line)]
    assert [int(row.split()[0]) for row in rows] == [d["index"] for d in data["decisions"]]
    header = next(line for line in lines if line.lstrip().startswith("event"))
    assert header.split() == ["event", "turn", "played", "margin", "better", "move", "loss",
                              "label"]


def test_the_json_holds_what_docs_review_md_promises(record_file: Path, game: Record) -> None:
    data = review_of(record_file)
    assert data["format"] == "noreturn-review" and data["version"] == 1
    assert data["game"]["over"] is True and data["game"]["scores"] == game["result"]["scores"]
    assert data["budget"] == {"playouts": 12} and data["seed"] == 0
    assert [s["seat"] for s in data["seats"]] == [0, 1]
    for seat in data["seats"]:
        assert set(seat) == SEAT_KEYS
        assert 0 <= seat["accuracy"] <= 100
        assert sum(seat["labels"].values()) == seat["decisions"]
        mine = [d for d in data["decisions"] if d["seat"] == seat["seat"]]
        assert len(mine) == seat["decisions"]
        declared = [d["turn"] for d in mine if d["played"] == "declare"]
        assert seat["declared_turn"] == (declared[0] if declared else None)
        gains = [d["turn"] for d in mine if d["declare_gain"] is not None
                 and d["declare_gain"] >= 0]
        assert seat["best_declare_turns"] == gains
        # a declaration judged best is in the window (it said "declaring was best at
        # turns: none" beside a declaration labelled best)
        assert all(d["turn"] in gains for d in mine if d["played"] == "declare"
                   and d["label"] == "best")
    for decision in data["decisions"]:
        assert set(decision) == DECISION_KEYS
        event = game["events"][decision["index"]]
        assert event["player"] == decision["seat"]
        assert event["type"] in ("mulligan", "declare", "place", "exchange", "score")
        assert decision["loss"] >= 0 and decision["label"] in LABEL_NAMES
        assert (decision["loss"] == 0) == (decision["best"] == decision["played"])
        moves = [c["move"] for c in decision["candidates"]]
        assert decision["played"] in moves and decision["best"] in moves
    for draw in data["draws"]:
        event = game["events"][draw["index"]]
        assert event["type"] in ("deal", "draw") and event["tiles"] == draw["tiles"]


def test_the_same_seed_and_iterations_give_the_same_review_on_any_number_of_cores(
        record_file: Path) -> None:
    one = review_of(record_file, "--seed", "4")
    assert review_of(record_file, "--seed", "4") == one
    code, out, _ = run(str(record_file), "--json", "--iterations", "12", "--workers", "2",
                       "--seed", "4")
    assert code == 0 and json.loads(out) == one
    assert review_of(record_file, "--seed", "5") != one


def test_a_review_written_to_a_log_says_how_far_it_is(record_file: Path) -> None:
    """A review of some minutes showed nothing where its output was no terminal (the bar
    is off there): a line at every tenth of its jobs, on standard error."""
    code, out, err = run(str(record_file), "--json", "--iterations", "4", "--workers", "1")
    lines = err.splitlines()
    assert code == 0 and json.loads(out)["format"] == "noreturn-review"
    assert 5 <= len(lines) <= 10 and all(re.fullmatch(r"reviewed \d+/\d+ jobs in \d+ s", line)
                                          for line in lines), lines
    done = [int(line.split()[1].split("/")[0]) for line in lines]
    assert done == sorted(done) and lines[-1].startswith(f"reviewed {done[-1]}/{done[-1]} ")


def test_one_seat(record_file: Path) -> None:
    data = review_of(record_file, "--seat", "1")
    assert [s["seat"] for s in data["seats"]] == [1]
    assert {d["seat"] for d in data["decisions"]} == {1}


def test_a_budget_in_seconds(record_file: Path) -> None:
    code, out, _ = run(str(record_file), "--json", "--seat", "0", "--budget", "0.01",
                       "--workers", "1")
    data = json.loads(out)
    assert code == 0 and data["budget"] == {"seconds": 0.01}
    assert all(d["worlds"] >= 2 for d in data["decisions"])


def unfinished(game: Record, tmp_path: Path) -> tuple[Path, int]:
    """The game cut right after its first placement (its draw still to come), saved; and
    the number of events kept."""
    cut = next(i for i, e in enumerate(game["events"]) if e["type"] == "place") + 1
    record = {k: v for k, v in game.items() if k != "result"}
    record["events"] = game["events"][:cut]
    return write_record(record, tmp_path / "unfinished.json"), cut


def test_an_unfinished_game_is_reviewed_up_to_its_last_event(game: Record,
                                                              tmp_path: Path) -> None:
    path, cut = unfinished(game, tmp_path)
    code, out, _ = run(str(path), *FAST)
    assert code == 0
    assert f"in progress: player {game['events'][cut - 1]['player']} to draw" in out
    assert f"reviewed up to its last event ({cut - 1})" in out
    data = review_of(path)
    assert data["game"]["over"] is False
    assert data["decisions"][-1]["index"] == cut - 1  # the place, its draw still to come
    assert all(d["index"] < cut for d in data["draws"])


@pytest.mark.parametrize(("args", "message"), [
    (("--seat", "5"), "seat 5 is not a seat of this game: it has seats 0 to 1"),
    (("--seat", "two"), "'two' is not a seat"),
    (("--budget", "1", "--iterations", "5"), "not both"),
    (("--budget", "1e308"), "Invalid value for '--budget'"),  # an endless review
    (("--iterations", "100000000"), "Invalid value for '--iterations'"),
])
def test_bad_options_are_refused(record_file: Path, args: tuple[str, ...],
                                 message: str) -> None:
    code, out, err = run(str(record_file), "--workers", "1", *args)
    assert code == 2 and out == ""
    assert message in " ".join(err.split())


def test_a_record_that_cannot_be_reviewed_is_one_line_on_stderr(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json", encoding="utf-8")
    for path, message in ((garbage, "not JSON"),
                          (tmp_path / "missing.json", "no such file"),
                          (BROKEN, "the record breaks the rules at event 6: ")):
        code, out, err = run(str(path), *FAST)
        assert code == 2 and out == ""
        assert err.startswith(f"noreturn review: {path}: ") and message in err
        assert len(err.splitlines()) == 1


def test_a_record_too_long_to_review_is_refused_before_it_is_replayed(
        game: Record, tmp_path: Path) -> None:
    """Each decision's view is kept, so memory grows with the square of the length: a
    legal game of 36,828 events took gigabytes before its first playout."""
    long = {**game, "events": game["events"] * (MAX_EVENTS // len(game["events"]) + 1)}
    path = write_record(long, tmp_path / "long.json")  # (illegal too: never replayed)
    code, out, err = run(str(path), *FAST)
    assert code == 2 and out == ""
    assert f"the record has {len(long['events'])} events; the review weighs games of at " \
           f"most {MAX_EVENTS}" in err


def test_labels_accuracy_and_turn_ranges() -> None:
    assert [label_of(x) for x in (0.0, 0.5, 2.0, 2.1, 5.0, 9.9, 10.0, 10.1)] == [
        "best", "good", "good", "inaccuracy", "inaccuracy", "mistake", "mistake", "blunder"]
    assert accuracy_of(0.0) == 100.0 and 36 < accuracy_of(4.0) < 37
    assert accuracy_of(1.0) > accuracy_of(2.0) > accuracy_of(20.0) > 0
    assert turns_text((10, 14, 15, 16, 3)) == "3, 10, 14-16" and turns_text(()) == ""


def test_the_json_of_a_review_is_plain_json(game: Record) -> None:
    review = review_record(game, [0], budget=Budget(playouts=8), workers=1)
    assert json.loads(json.dumps(review_json(review))) == review_json(review)


def test_the_help_names_the_default_budget() -> None:
    result = runner.invoke(app, ["review", "--help"])
    words = " ".join(result.output.replace("│", " ").split())  # the help is boxed
    assert f"playouts per decision (default {DEFAULT_PLAYOUTS})" in words


def test_the_table_speaks_the_readers_language_and_the_json_stays_english(
        record_file: Path) -> None:
    """Under ``--lang de`` every word of the table is German (the moves keep their notation,
    which records and bots read); ``--json`` is a format for programs and does not change."""
    result = runner.invoke(app, ["--lang", "de", "review", str(record_file), *FAST])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines), max(lines, key=len)
    heading = "".join("".join(lines[:4]).split())
    assert heading.startswith("".join(f"Analyse von {record_file} Spielende, Endstand".split()))
    assert "12 Durchspielungen je Entscheidung, Startwert 0" in " ".join(lines[:8])
    header = next(line for line in lines if line.lstrip().startswith("Ereignis"))
    assert header.split() == ["Ereignis", "Zug", "gespielt", "Vorsprung", "besserer", "Zug",
                              "Verlust", "Urteil"]
    assert any(line.startswith("Platz 0 · plan: Genauigkeit ") for line in lines)
    # numbers as German writes them ("7.5" read as English in a German sentence)
    assert any(re.search(r"mittlerer Verlust \d+,\d ", line) for line in lines), lines[:12]
    assert not any(re.search(r"\d\.\d", line) for line in lines if ROW.match(line))
    assert any("bester Wechsel in eigenen Zügen: " in line for line in lines)
    words = {"review", "accuracy", "declaring", "better", "loss", "label", "best", "good",
             "inaccuracy", "mistake", "blunder", "mull"}
    said = {word for line in lines for word in re.findall(r"[A-Za-z]+", line)}
    assert not words & said, words & said
    german = runner.invoke(app, ["--lang", "de", "review", str(record_file), "--json", *FAST])
    assert json.loads(german.stdout) == review_of(record_file)


def test_errors_are_said_in_the_readers_language(record_file: Path, tmp_path: Path) -> None:
    """Every refusal of a record, a seat or a broken game is German under ``--lang de``;
    the validator's own reason inside it stays English (docs/translating.md)."""
    for args, message in [
        ([str(tmp_path / "nix.json")],
         "lässt sich nicht lesen: diese Datei gibt es nicht; prüfe den Pfad"),
        ([str(record_file), "--seat", "5"],
         "Platz 5 gibt es in diesem Spiel nicht: es hat die Plätze 0 bis 1"),
        ([str(BROKEN)], "die Aufzeichnung bricht die Regeln bei Ereignis 6: "),
    ]:
        result = runner.invoke(app, ["--lang", "de", "review", *args, *FAST])
        assert result.exit_code == 2 and message in " ".join(result.stderr.split()), args
    result = runner.invoke(app, ["--lang", "de", "review", str(record_file), "--seat", "x"])
    assert result.exit_code == 2 and "ist kein Platz" in result.output


def test_an_unfinished_game_is_said_in_the_readers_language(game: Record,
                                                            tmp_path: Path) -> None:
    path, cut = unfinished(game, tmp_path)
    result = runner.invoke(app, ["--lang", "de", "review", str(path), *FAST])
    said = " ".join(result.stdout.split())
    seat = game["events"][cut - 1]["player"]
    assert (f"Das Spiel läuft noch: Spieler {seat} zieht als Nächstes" in said
            and f"analysiert bis zum letzten Ereignis der Aufzeichnung ({cut - 1})" in said)
    assert "in progress" not in said


def test_the_budget_is_said_in_the_readers_language() -> None:
    """The end screen's review says its budget inside a German sentence too."""
    assert Budget(playouts=200).text() == "200 playouts"
    assert Budget(playouts=1).text() == "1 playout"
    with speaking("de"):
        assert Budget(playouts=200).text() == "200 Durchspielungen"
        assert Budget(seconds=1.5).text() == "1.5 s"
