"""What bot authors asked of tournaments (issue 15, item 6): short names (``name=``, or the
one a program gives in ``ready``) instead of command lines, start-up counted apart from
deciding, decision counts in results.json, and a ``--help`` that says how seats are filled."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from noreturn.bots import BotError, make_bot, register
from noreturn.bots.base import display_name, split_name, split_specs
from noreturn.cli import app
from noreturn.engine import Rules
from noreturn.sim.tournament import Settings, bot_stats, results_json, run_tournament

SMALL = Rules.parse("colors=3,max_value=6,hand_size=4", players=2)

BOT = '''
import json, sys, time
log = open(sys.argv[1], "a")
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        log.write(json.dumps(message["names"]) + "\\n")
        log.flush()
        time.sleep(float(sys.argv[2]))
        print(json.dumps({"type": "ready", "name": sys.argv[3]}), flush=True)
    elif message["type"] == "decide":
        print(json.dumps({"type": "action", "id": message["id"],
                          "action": message["legal"][0]}), flush=True)
    elif message["type"] == "game_over":
        break
'''


def _results(bots: str, games: int = 2, players: int = 2) -> dict[str, Any]:
    rules = Rules(**{**SMALL.to_dict(), "players": players})
    tournament = run_tournament(Settings(tuple(split_specs(bots)), rules, games, 1, workers=1))
    return results_json(tournament, bot_stats(tournament))


def _program(tmp_path: Path, name: str) -> tuple[Path, str]:
    """A bot program under ``tmp_path`` and the file its hellos are written to."""
    folder = tmp_path / "deep" / "folder"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.py").write_text(BOT, encoding="utf-8")
    return folder / f"{name}.py", str(tmp_path / f"{name}.hellos")


# ----------------------------------------------------------------------------- name=
@pytest.mark.parametrize(("spec", "rest", "name"), [
    ("greedy:name=Gus", "greedy", "Gus"),
    ("ismcts:time=1,name=Deep Blue", "ismcts:time=1", "Deep Blue"),
    ("hard:name=H", "hard", "H"),
    ("external:time=2 python bot.py,name=Rex", "external:time=2 python bot.py", "Rex"),
    ("heuristic", "heuristic", None),
])
def test_name_is_an_option_of_every_spec(spec: str, rest: str, name: str | None) -> None:
    assert split_name(spec) == (rest, name)
    if not spec.startswith("external"):
        assert make_bot(spec).name == (name or make_bot(rest).name)


@pytest.mark.parametrize("spec", ["greedy:name=", "greedy:name=a,name=b",
                                  "greedy:name=" + "x" * 25, "greedy:name=/usr/bin/x"])
def test_a_bad_name_is_refused_with_what_a_name_may_be(spec: str) -> None:
    with pytest.raises(BotError, match="name="):
        make_bot(spec)


def test_an_external_bot_is_named_after_its_program_never_its_command() -> None:
    spec = f"external:time=2 log=/tmp/x.log {sys.executable} /a/b/rex.py --fast"
    assert display_name(spec) == make_bot(spec).name == "external:rex.py"
    assert display_name(spec + ",name=Rex") == "Rex"
    assert display_name("ismcts:time=1") == "ismcts:time=1"


def test_named_specs_show_their_names_and_a_bot_may_meet_itself() -> None:
    data = _results("greedy:name=A,greedy:name=B")
    assert [(b["name"], b["spec"]) for b in data["bots"]] == [
        ("A", "greedy:name=A"), ("B", "greedy:name=B")]


# ------------------------------------------------------------ external programs' names
def test_hellos_tables_and_timings_of_external_bots(tmp_path: Path) -> None:
    """No hello names another bot by its command line; the table uses the ready name;
    a slow start-up counts as start-up, not as time per decision."""
    slow, slow_log = _program(tmp_path, "slow")
    quick, quick_log = _program(tmp_path, "quick")
    specs = (f"external:{sys.executable} {slow} {slow_log} 0.6 Sleepy,"
             f"external:{sys.executable} {quick} {quick_log} 0 Quick,greedy:name=Gus")
    data = _results(specs, games=3, players=3)
    hellos = [json.loads(line) for log in (slow_log, quick_log)
              for line in Path(log).read_text().splitlines()]
    assert hellos and all(sorted(names) == ["Gus", "external:quick.py", "external:slow.py"]
                          for names in hellos)
    named = {b["name"]: b for b in data["bots"]}
    assert set(named) == {"Sleepy", "Quick", "Gus"}
    assert named["Sleepy"]["startup_ms_per_game"] >= 500
    assert named["Sleepy"]["ms_per_move"] < 50  # the 600 ms start-up is not in it
    assert all("/" not in b["name"] for b in data["bots"])


# ---------------------------------------------------------------- decisions, --help
class Counting:
    """Counts the decisions it is asked for, over every game of a run in this process."""

    name = "test-counting"
    asked = 0

    def act(self, view: Any, legal: Any, rng: Any) -> Any:
        Counting.asked += 1
        return legal[0]


def test_results_count_each_bots_decisions_so_runs_pool_exactly() -> None:
    register("test-counting", "counts its decisions (tests only)")(lambda _: Counting())
    Counting.asked = 0
    data = _results("test-counting,greedy", games=4)
    counting, greedy = data["bots"]
    assert counting["decisions"] == Counting.asked > 0
    assert greedy["decisions"] > 0


def test_tournament_help_says_how_seats_are_filled_and_why_a_spec_only_once() -> None:
    result = CliRunner().invoke(app, ["tournament", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    text = " ".join(re.sub(r"[│╭╮╰╯─]", " ", result.output).split())
    assert "cycles over the seats" in text
    assert "the first named gets two seats" in text
    assert "The same spec twice is refused, since results are counted per spec" in text
    assert "name=NAME" in text


def test_help_paragraphs_flow_at_80_columns() -> None:
    """A docstring paragraph is one paragraph on screen: its source line breaks would cut
    lines short and leave a word alone on a line (``--bots`` did) at 80 columns."""
    result = CliRunner().invoke(app, ["tournament", "--help"], env={"COLUMNS": "80"})
    assert result.exit_code == 0
    lines = [line.strip() for line in result.output.splitlines()]
    assert "--bots" not in lines
    assert any(line.startswith("--bots cycles over the seats") for line in lines)
    assert max(len(line) for line in result.output.splitlines()) <= 80
