"""``noreturn play --plain``: a whole game fed on standard input."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from noreturn.table import LocalTable, make_seats
from noreturn.table.resume import resume_table
from noreturn.text.lang import _, speaking
from noreturn.tui.plain import HELP, RULES_BRIEF, PlainGame, QuitError, run_plain


def play_fed(lines: str, tmp_path: Path, seed: int = 5) -> tuple[str, dict[str, Any]]:
    out: list[str] = []
    code = run_plain(players=2, name="Ada", seed=seed, stdin=io.StringIO(lines),
                     save_dir=tmp_path, write=out.append)
    assert code == 0
    saved = list(tmp_path.glob("*.json"))
    assert len(saved) == 1
    return "\n".join(out), json.loads(saved[0].read_text())


def test_whole_game_on_standard_input_ends_with_scores_and_a_saved_record(
    tmp_path: Path,
) -> None:
    # "1" is always legal for the human: at the mulligan it sets aside the lowest tile,
    # in phase 1 (0 is declare) it exchanges the lowest tile.
    text, record = play_fed("1\n" * 400, tmp_path)
    assert "final scores:" in text
    assert "result" in record
    assert record["players"][0] == {"name": "Ada", "kind": "human"}
    assert f"record saved: {tmp_path}" in text


def test_illegal_and_garbled_moves_are_explained_and_change_nothing(tmp_path: Path) -> None:
    text, record = play_fed("\nplace Q3\nscore R x1 pay R1\nquit\n", tmp_path)
    assert "is not a tile" in text
    assert "not allowed: you are in phase 1" in text
    assert "game stopped." in text
    mine = [e["type"] for e in record["events"] if e["player"] == 0]
    assert mine == ["deal", "mulligan"]
    assert "result" not in record


@pytest.mark.parametrize("stop", ["q", "quit", "EXIT"])
def test_q_quits_as_in_the_full_screen_game_at_the_mulligan_too(tmp_path: Path,
                                                                 stop: str) -> None:
    """At the mulligan "q" was read as a tile to set aside ("'q' is not a tile")."""
    text, record = play_fed(f"{stop}\n", tmp_path)
    assert "game stopped." in text and "is not a tile" not in text
    assert [e["type"] for e in record["events"] if e["player"] == 0] == ["deal"]


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_help_and_the_rules_fit_80_columns(lang: str) -> None:
    """They ran to 84-103 columns, and a terminal of 80 broke every line in two."""
    with speaking(lang):
        lines = [line for text in (HELP, RULES_BRIEF) for line in _(text).splitlines()]
    assert len(lines) > 15 and max(map(len, lines)) <= 80


def test_a_word_at_the_mulligan_that_is_no_tile_says_what_the_prompt_takes(
    tmp_path: Path,
) -> None:
    text, record = play_fed("foo\nq\n", tmp_path)
    assert "'foo' is not a tile: type tiles to set aside (R3 B5), Enter to keep, or help" in text
    assert [e["type"] for e in record["events"] if e["player"] == 0] == ["deal"]


def test_german_players_may_ask_in_german_at_the_mulligan_too(tmp_path: Path) -> None:
    """ "hilfe" at the mulligan was read as a tile to set aside ("'hilfe' ist kein Stein");
    the question words have German names, the moves keep the shared English notation."""
    with speaking("de"):
        text, record = play_fed("hilfe\nregeln\nbehalten\ntipp\nsteine\nende\n", tmp_path)
    assert "ist kein Stein" not in text
    assert "Gib einen Zug ein" in text  # the help
    assert "No Return in Kürze" in text  # the rules
    assert "Tipp:" in text  # the hint, after "behalten" kept the hand
    assert "Spiel angehalten." in text
    mine = [e for e in record["events"] if e["player"] == 0]
    assert [e["type"] for e in mine] == ["deal", "mulligan"]
    assert mine[1]["tiles"] == []


def test_a_move_number_of_any_length_or_script_is_refused_without_a_crash(
    tmp_path: Path,
) -> None:
    # 5,000 digits made int() raise (Python's limit on long decimal strings), and "²" is a
    # digit to str.isdigit() that int() refuses: both crashed the game.
    text, record = play_fed("\n" + "9" * 5000 + "\n12345678\n\u00b2\n\u0663\nquit\n", tmp_path)
    assert "there is no move 999999...: type ? to list them" in text
    assert "9" * 7 not in text
    assert "there is no move 12345678" not in text and "there is no move 123456..." in text
    assert "'\u00b2' is not an action" in text and "'\u0663' is not an action" in text
    assert "game stopped." in text
    mine = [e["type"] for e in record["events"] if e["player"] == 0]
    assert mine == ["deal", "mulligan"]


def test_each_turn_is_saved_so_a_killed_game_resumes_where_it_was(tmp_path: Path) -> None:
    # A closed terminal or a killed process runs no handler: the record must already be
    # on disk. SystemExit stands for it here (play_plain catches neither).
    lines = iter(["", "1", "1"])

    def read(_prompt: str) -> str:
        line = next(lines, None)
        if line is None:
            raise SystemExit("the terminal was closed")
        return line

    table = LocalTable(make_seats(2, ["Ada"], ["greedy"]), seed=5, save_dir=tmp_path)
    with pytest.raises(SystemExit):
        PlainGame(table, read, lambda _: None).run()
    (saved,) = tmp_path.glob("*.json")
    mine = [e["type"] for e in json.loads(saved.read_text())["events"] if e["player"] == 0]
    assert mine.count("exchange") == 2 and mine[:2] == ["deal", "mulligan"]
    resumed = resume_table(saved, tmp_path)
    assert resumed.state.turns == table.state.turns and resumed.human_to_move()


def test_a_fault_in_the_game_still_saves_the_game_so_far(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = PlainGame._turn
    turns: list[int] = []

    def faulty(self: PlainGame, seat: int) -> None:
        turns.append(seat)
        if len(turns) > 1:
            raise RuntimeError("a fault of the program's own")
        real(self, seat)

    monkeypatch.setattr(PlainGame, "_turn", faulty)
    out: list[str] = []
    with pytest.raises(RuntimeError, match="a fault of the program's own"):
        run_plain(players=2, seed=5, stdin=io.StringIO("\n1\n"), save_dir=tmp_path,
                  write=out.append)
    saved = list(tmp_path.glob("*.json"))
    assert len(saved) == 1 and f"record saved: {saved[0]}" in "\n".join(out)
    events = json.loads(saved[0].read_text())["events"]
    assert [e["type"] for e in events if e["player"] == 0] == ["deal", "mulligan"]


@pytest.mark.parametrize("typed", ["declare", "0"])
def test_declare_asks_for_confirmation(tmp_path: Path, typed: str) -> None:
    """By its word or by its number in the list (0 in phase 1: a number remembered from
    the mulligan's list, where 0 kept the hand, declared at once and for good)."""
    text, record = play_fed(f"\n{typed}\nn\nquit\n", tmp_path)
    assert "declare phase 2? You can never place again." in text
    assert not any(e["type"] == "declare" and e["player"] == 0 for e in record["events"])


def test_the_list_says_how_to_narrow_it_in_words_of_the_moment(tmp_path: Path) -> None:
    text, _record = play_fed("?\n\n?\nquit\n", tmp_path)
    assert "narrow the list, e.g. ? mulligan R" in text  # at the mulligan
    assert "narrow the list, e.g. ? place R" in text  # in phase 1


def test_the_play_command_falls_back_to_plain_prompts_without_a_terminal(
    tmp_path: Path,
) -> None:
    from typer.testing import CliRunner  # noqa: PLC0415 - only these tests need it

    from noreturn.cli import app  # noqa: PLC0415
    from noreturn.records import check_record  # noqa: PLC0415

    result = CliRunner().invoke(app, ["play", "--seed", "3", "--bots", "easy",
                                      "--save-dir", str(tmp_path)], input="1\n" * 400)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("(not a terminal: playing with plain prompts")
    assert "final scores:" in result.output
    (saved,) = tmp_path.glob("*.json")
    record = json.loads(saved.read_text())
    assert check_record(record).valid and "result" in record
    assert record["players"][1]["policy"] == "easy"


def test_play_takes_a_bot_spec_of_several_options_and_its_name(tmp_path: Path) -> None:
    """--bots split at every comma: "search:iterations=2,trust=0" was two bots, and the
    seat of "greedy:name=Gus" was called Bea."""
    from typer.testing import CliRunner  # noqa: PLC0415 - only these tests need it

    from noreturn.cli import app  # noqa: PLC0415

    result = CliRunner().invoke(app, [
        "play", "--players", "3", "--seed", "3", "--save-dir", str(tmp_path), "--rules",
        "colors=3,max_value=5,hand_size=4", "--bots",
        "search:iterations=2,trust=0,greedy:name=Gus"], input="q\n")
    assert result.exit_code == 0, result.output
    (saved,) = tmp_path.glob("*.json")
    players = json.loads(saved.read_text())["players"]
    assert [(p["name"], p.get("policy")) for p in players] == [
        ("Ada", None), ("Bea", "search:iterations=2,trust=0"), ("Gus", "greedy:name=Gus")]


@pytest.mark.parametrize(("args", "said"), [
    (["--bots", "easy:name=Ada"], "name=Ada would name two seats"),
    (["--players", "3", "--bots", "easy:name=Bob"], "name=Bob would name two seats"),
    (["--hotseat", "--bots", "hard"], "at a hot seat every seat is a person at this "
                                      "keyboard: leave out --bots"),
    (["--resume", "--players", "4", "--seat-name", "Zed"],
     "a resumed game goes on as it was saved, with its own players and rules: leave out "
     "--players, --seat-name"),
    (["--players", "4", "--rules", "players=3"],
     "rules: players=3 disagrees with --players 4: give the players with --players alone"),
    (["--rules", "colors=3,colors=4"], "rules: colors is given twice; give it once"),
])
def test_options_the_game_would_not_use_are_refused_not_dropped(
        tmp_path: Path, args: list[str], said: str) -> None:
    """Each was dropped without a word: the bot still called Bea, a hot seat without the
    bot asked for, a resumed game with other players than asked, 3 players for 4."""
    from typer.testing import CliRunner  # noqa: PLC0415 - only these tests need it

    from noreturn.cli import app  # noqa: PLC0415

    result = CliRunner().invoke(app, ["play", "--plain", "--save-dir", str(tmp_path), *args],
                                input="q\n", env={"COLUMNS": "300"})
    assert result.exit_code == 2 and said in " ".join(result.output.split())
    assert not list(tmp_path.iterdir())


def test_on_off_options_show_no_value_and_a_value_given_is_named(tmp_path: Path) -> None:
    """typer showed "--plain <bool>", and "--plain true" then met the record argument:
    "to go on with true, say --resume true"."""
    from typer.testing import CliRunner  # noqa: PLC0415 - only these tests need it

    from noreturn.cli import app  # noqa: PLC0415

    runner = CliRunner(env={"COLUMNS": "100"})
    shown = runner.invoke(app, ["play", "--help"]).output
    for flag in ("--plain", "--hotseat", "--no-color", "--resume"):
        (line,) = [line for line in shown.splitlines() if line.startswith(f"│ {flag} ")]
        assert "<bool>" not in line, line
    result = runner.invoke(app, ["play", "--plain", "true", "--save-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert "an option such as --plain takes no value; leave true out" in " ".join(
        result.output.replace("│", " ").split())


def test_the_play_command_refuses_names_it_would_drop(tmp_path: Path) -> None:
    from typer.testing import CliRunner  # noqa: PLC0415 - only these tests need it

    from noreturn.cli import app  # noqa: PLC0415

    result = CliRunner().invoke(app, ["play", "--hotseat", "--seat-name", "Ada,Bob,Cyd",
                                      "--save-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert "3 names for 2 players: give at most 2" in " ".join(result.output.split())
    assert not list(tmp_path.glob("*.json"))


@pytest.mark.parametrize("command", ["play", "tutorial", "serve"])
@pytest.mark.parametrize("delay", ["61", "1e308", "inf", "nan", "-1"])
def test_a_bot_delay_that_would_stall_the_game_is_refused(command: str, delay: str) -> None:
    from typer.testing import CliRunner  # noqa: PLC0415 - only these tests need it

    from noreturn.cli import app  # noqa: PLC0415

    result = CliRunner().invoke(app, [command, "--bot-delay", delay])
    assert result.exit_code == 2
    assert "Invalid value for '--bot-delay'" in " ".join(result.output.split())


def test_the_tutorial_outside_a_terminal_says_where_to_run_it(tmp_path: Path) -> None:
    """It wrote its full screen's escape codes into the pipe and ended at once."""
    from typer.testing import CliRunner  # noqa: PLC0415 - only these tests need it

    from noreturn.cli import app  # noqa: PLC0415

    result = CliRunner().invoke(app, ["tutorial", "--save-dir", str(tmp_path)])
    assert result.exit_code == 2
    said = " ".join(result.output.split())
    assert "run `noreturn tutorial` in a terminal" in said and "\x1b[" not in result.output
    assert not list(tmp_path.iterdir())


def test_plain_hint_undo_and_tile_tracker(tmp_path: Path) -> None:
    text, record = play_fed("hint\ntiles\nundo\n\nundo\nquit\n", tmp_path, seed=7)
    assert "  hint: mulligan" in text
    assert "unseen tiles (" in text and "R11:" in text
    assert "nothing to undo yet" in text
    assert "undone: your move again" in text
    mine = [e["type"] for e in record["events"] if e["player"] == 0]
    assert mine == ["deal"]  # the mulligan was taken back


def test_plain_hotseat_hands_the_keyboard_over(tmp_path: Path) -> None:
    out: list[str] = []
    code = run_plain(players=2, names=["Ada", "Bob"], hotseat=True, seed=2,
                     stdin=io.StringIO("\n1\n\n1\n\nquit\n"), save_dir=tmp_path,
                     write=out.append)
    text = "\n".join(out)
    assert code == 0
    assert "pass the keyboard to Ada" in text and "pass the keyboard to Bob" in text
    assert "Ada, mulligan> " in text and "Bob, mulligan> " in text
    bobs = text[text.index("pass the keyboard to Bob"):text.index("Bob, mulligan> ")]
    assert "Ada was dealt 8 tiles" in bobs and "Ada set aside 1 tile and drew 1" in bobs


def test_plain_hotseat_wipes_the_last_hand_before_the_next_person_comes(tmp_path: Path) -> None:
    """In a terminal the last person's hand stood just above the hand-over prompt."""
    table = LocalTable(make_seats(2, ["Ada", "Bob"], hotseat=True), seed=2, save_dir=tmp_path)
    events: list[str] = []
    answers = iter(["", "1", "", "1", "", "quit"])

    def read(prompt: str) -> str:
        events.append(prompt)
        return next(answers)

    def write(line: str) -> None:
        events.append(line)

    with pytest.raises(QuitError):
        PlainGame(table, read, write, clear=lambda: events.append("CLEAR")).run()
    handovers = [i for i, e in enumerate(events) if e.startswith("-- pass the keyboard")]
    assert len(handovers) == 3
    assert events[handovers[0] - 1] != "CLEAR"  # nobody's hand was shown yet
    assert all(events[i - 1] == "CLEAR" for i in handovers[1:])
    solo = LocalTable(make_seats(2, ["Ada"], ["greedy"]), seed=2, save_dir=tmp_path)
    cleared: list[int] = []
    lines = iter(["", "1", "quit"])
    with pytest.raises(QuitError):
        PlainGame(solo, lambda _prompt: next(lines), lambda _line: None,
                  clear=lambda: cleared.append(1)).run()
    assert not cleared  # one person: nothing to hide from anyone


def test_plain_switch_weighs_declaring_against_waiting_in_phase_1_only(tmp_path: Path) -> None:
    lines = iter(["switch", "", "switch", "declare", "y", "switch", "quit"])
    out: list[str] = []
    table = LocalTable(make_seats(2, ["Ada"], ["greedy"]), seed=5, save_dir=tmp_path)
    game = PlainGame(table, lambda _: next(lines), out.append, advice_worlds=8)
    with pytest.raises(QuitError):
        game.run()
    said = [line for line in out if "weigh" in line or "switch:" in line]
    assert said[0] == "  nothing to weigh: the mulligan comes first"
    assert said[1].startswith("  switch: declare now: margin ")
    assert said[1].endswith("(8 samples)")
    assert "nothing to weigh: you have declared phase 2 already" in said[2]
    assert "switch " in HELP


def test_declining_the_declaration_says_so_and_other_words_are_asked_again(
        tmp_path: Path) -> None:
    """"n" went back to the move prompt without a word, and "undo" typed at the question
    was taken for a no."""
    lines = iter(["", "declare", "undo", "n", "quit"])
    out: list[str] = []
    table = LocalTable(make_seats(2, ["Ada"], ["greedy"]), seed=5, save_dir=tmp_path)
    with pytest.raises(QuitError):
        PlainGame(table, lambda _: next(lines), out.append).run()
    assert "'undo': answer y to declare, or n (or Enter) to stay in phase 1" in out
    assert "not declared: you are still in phase 1" in out
    assert table.state.phases[0] == 1


def test_plain_prompts_do_not_load_textual() -> None:
    """The plain prompts live in noreturn.tui beside the Textual app, yet never load it:
    they start fast and work where Textual cannot; the app still loads on demand."""
    probe = ("import sys, noreturn.cli, noreturn.tui, noreturn.tui.play, noreturn.tui.plain\n"
             "print('textual' in sys.modules)\n"
             "from noreturn.tui import run_tui\n"
             "print('textual' in sys.modules, run_tui.__module__)\n")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            check=True)
    assert result.stdout.split() == ["False", "True", "noreturn.tui.app"]


class Answering:
    """Standard input that keeps playing move 1 and answers the play-again question with
    ``again`` in turn (a plain game writes each prompt before it reads)."""

    def __init__(self, out: list[str], again: list[str]) -> None:
        self.out, self.again = out, again

    def readline(self) -> str:
        if self.out and self.out[-1].startswith("play again") and self.again:
            return self.again.pop(0) + "\n"
        return "1\n"

    def isatty(self) -> bool:
        return False


def test_plain_play_again_deals_a_new_game_for_the_same_players(tmp_path: Path) -> None:
    from noreturn.engine import Rules  # noqa: PLC0415
    from noreturn.tui.play import play_command  # noqa: PLC0415

    out: list[str] = []
    stdin = Answering(out, ["y", "n"])
    code = play_command(Rules(players=2), ["Ada"], ["easy"], seed=4, plain=True,
                        save_dir=tmp_path, stdin=stdin, stdout=stdin,  # type: ignore[arg-type]
                        write=out.append)
    assert code == 0
    assert sum(line.startswith("play again with the same players?") for line in out) == 2
    records = [json.loads(path.read_text()) for path in sorted(tmp_path.glob("*.json"))]
    assert len(records) == 2
    assert all("result" in r for r in records)
    assert records[0]["players"] == records[1]["players"]
    assert records[0]["events"][:3] != records[1]["events"][:3]  # a new deal
