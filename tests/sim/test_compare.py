"""``noreturn compare``: tournaments pooled over runs and bots paired game by game."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from noreturn.bots.base import split_specs
from noreturn.cli import app
from noreturn.engine import Rules
from noreturn.sim.compare import CompareError, load_run, outcomes, paired, pooled
from noreturn.sim.tournament import (
    Settings,
    bot_stats,
    results_json,
    run_tournament,
    write_results,
)

runner = CliRunner()
SMALL = "colors=3,max_value=6,hand_size=4"


def real_run(folder: Path, bots: str, seed: int, games: int = 12, players: int = 2) -> Path:
    """A small tournament's results.json, written as ``--out`` writes it."""
    setup = Settings(tuple(split_specs(bots)), Rules.parse(SMALL, players=players), games,
                     seed, workers=1)
    tournament = run_tournament(setup)
    folder.mkdir()
    write_results(results_json(tournament, bot_stats(tournament)), folder / "results.json")
    return folder


def game(deal: int, rotation: int, seats: list[str], scores: list[int]) -> dict[str, Any]:
    """One entry of ``per_game``, ranked by its scores."""
    ranks = [1 + sum(other > score for other in scores) for score in scores]
    return {"game": 2 * deal + rotation, "lineup": 0, "deal": deal, "rotation": rotation,
            "seats": seats, "scores": scores, "ranks": ranks, "turns": 30,
            "start_player": 0, "forfeits": []}


def hand_made(path: Path, games: list[dict[str, Any]], seed: int = 1,
              players: int = 2) -> Path:
    """A results.json with the fields a comparison reads, and these games."""
    bots = [{"name": "A", "spec": "search:time=3,name=A"}, {"name": "b", "spec": "b"}]
    data = {"format": "noreturn-tournament", "version": 1, "players": players, "seed": seed,
            "rules": {"players": players}, "bots": bots, "per_game": games}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


A = "search:time=3,name=A"
TWO_DEALS = [game(0, 0, [A, "b"], [100, 90]), game(0, 1, ["b", A], [80, 85]),
             game(1, 0, [A, "b"], [70, 75]), game(1, 1, ["b", A], [60, 60])]


def test_paired_means_and_the_error_of_deal_clusters(tmp_path: Path) -> None:
    """Differences of margin per game: +20, +10, -10, 0; per deal +30 and -10 around a mean
    of +5 a game, so the clustered SE is sqrt(2 * ((30-10)^2 + (-10-10)^2)) / 4 = 10."""
    run = load_run(hand_made(tmp_path / "r.json", TWO_DEALS))
    pair = paired(outcomes([run], "A"), outcomes([run], "b"))
    assert (pair.games, pair.deals) == (4, 2)
    assert pair.first.margin == pytest.approx(5 / 2) and pair.second.margin == -2.5
    assert pair.margin_se == pytest.approx(10.0)
    assert pair.first.win == 0.75 and pair.second.win == 0.5  # the tie is a win for both
    assert pair.first.score == pytest.approx(78.75) and pair.second.score == 76.25


def test_a_bot_is_named_by_its_name_or_its_spec(tmp_path: Path) -> None:
    run = load_run(hand_made(tmp_path / "r.json", TWO_DEALS))
    assert outcomes([run], "A") == outcomes([run], A)


def test_one_deal_has_no_error_to_give(tmp_path: Path) -> None:
    run = load_run(hand_made(tmp_path / "r.json", TWO_DEALS[:2]))
    assert math.isnan(paired(outcomes([run], "A"), outcomes([run], "b")).win_se)


def test_a_bot_with_two_seats_counts_their_mean(tmp_path: Path) -> None:
    four = [game(0, 0, ["b", A, "b", A], [50, 70, 60, 40])]
    run = load_run(hand_made(tmp_path / "r.json", four, players=4))
    mine = next(iter(outcomes([run], "A").values()))
    assert (mine.win, mine.margin, mine.score) == (0.5, (10 - 30) / 2, 55.0)


def test_pooled_over_seeds_adds_up_each_runs_table(tmp_path: Path) -> None:
    runs = [load_run(real_run(tmp_path / f"s{seed}", "random,greedy", seed))
            for seed in (1, 2)]
    tallies = {t.name: t for t in pooled(runs)}
    for name in ("random", "greedy"):
        tables = [json.loads(run.path.read_text())["bots"] for run in runs]
        rows = [next(b for b in table if b["name"] == name) for table in tables]
        assert tallies[name].games == sum(row["games"] for row in rows) == 24
        assert tallies[name].wins == sum(row["wins"] for row in rows)
        assert tallies[name].margin == pytest.approx(
            sum(row["mean_margin"] * row["games"] for row in rows))


def test_one_two_player_runs_ratings_are_the_tournaments_own(tmp_path: Path) -> None:
    run = load_run(real_run(tmp_path / "r", "random,greedy", 3))
    rows = {b["name"]: b for b in json.loads(run.path.read_text())["bots"]}
    for tally in pooled([run]):
        assert tally.rating == pytest.approx(rows[tally.name]["rating"])


def test_a_table_of_three_rates_every_pair_of_seats(tmp_path: Path) -> None:
    """A first, b second, c third in every game: A beats b and c, b beats c, in pairs."""
    games = [game(d, 0, ["A", "b", "c"], [90, 60, 30]) for d in range(6)]
    run = load_run(hand_made(tmp_path / "r.json", games, players=3))
    rating = {t.name: t.rating for t in pooled([run])}
    assert rating["A"] - rating["b"] == pytest.approx(rating["b"] - rating["c"], abs=1)
    assert rating["A"] > rating["b"] + 100


def test_a_ratings_interval_holds_it_and_narrows_with_more_deals(tmp_path: Path) -> None:
    """Deals where A mostly wins (3 in 4): the bootstrap's interval holds the fitted
    rating, repeats exactly, and is narrower over four times the deals."""
    def widths(deals: int) -> tuple[float, list[tuple[float, float, float]]]:
        games = [game(d, 0, ["A", "b"], [90, 60] if d % 4 else [60, 90]) for d in range(deals)]
        run = load_run(hand_made(tmp_path / f"r{deals}.json", games))
        tallies = pooled([run])
        found = [(t.rating_low, t.rating, t.rating_high) for t in tallies]
        assert found == [(t.rating_low, t.rating, t.rating_high) for t in pooled([run])]
        return tallies[0].rating_high - tallies[0].rating_low, found

    few, found = widths(20)
    many, _ = widths(80)
    assert all(low <= rating <= high for low, rating, high in found)
    assert 0 < many < 0.7 * few


def test_runs_that_share_a_bot_rate_every_bot_on_one_scale(tmp_path: Path) -> None:
    """A beats b in one run, b beats c in another: A, b and c in that order, with b in the
    middle though it played both, and A far above c though they never met."""
    def bots(path: Path, first: str, second: str) -> None:
        data = json.loads(path.read_text())
        data["bots"] = [{"name": first, "spec": first}, {"name": second, "spec": second}]
        path.write_text(json.dumps(data), encoding="utf-8")

    upper = [game(d, r, ["A", "b"][::1 - 2 * r], [90, 60][::1 - 2 * r])
             for d in range(4) for r in (0, 1)]
    lower = [game(d, r, ["b", "c"][::1 - 2 * r], [80, 50][::1 - 2 * r])
             for d in range(4) for r in (0, 1)]
    paths = [hand_made(tmp_path / "up.json", upper), hand_made(tmp_path / "low.json", lower)]
    bots(paths[0], "A", "b")
    bots(paths[1], "b", "c")
    rating = {t.name: t.rating for t in pooled([load_run(path) for path in paths])}
    assert rating["A"] > rating["b"] + 200 > rating["c"] + 400
    assert (rating["A"] + rating["b"] + rating["c"]) / 3 == pytest.approx(1500)


def test_two_runs_on_the_same_deals_pair_game_by_game(tmp_path: Path) -> None:
    """greedy in one run and random in the other, each against medium on the same deals."""
    one = load_run(real_run(tmp_path / "greedy", "greedy,medium", seed=4))
    two = load_run(real_run(tmp_path / "random", "random,medium", seed=4))
    pair = paired(outcomes([one, two], "greedy"), outcomes([one, two], "random"))
    assert (pair.games, pair.deals) == (12, 6)
    greedy = next(b for b in json.loads(one.path.read_text())["bots"] if b["name"] == "greedy")
    assert pair.first.margin == pytest.approx(greedy["mean_margin"])
    other = load_run(real_run(tmp_path / "other", "random,medium", seed=5))
    with pytest.raises(CompareError, match="share no game"):
        paired(outcomes([one, other], "greedy"), outcomes([one, other], "random"))


def test_the_same_game_twice_for_one_bot_is_refused(tmp_path: Path) -> None:
    runs = [load_run(hand_made(tmp_path / f"{i}.json", TWO_DEALS)) for i in (1, 2)]
    with pytest.raises(CompareError, match="plays the same game"):
        outcomes(runs, "b")


@pytest.mark.parametrize(("content", "message"), [
    (None, "no such file"),
    ("{not json", "not a readable JSON file"),
    ("[" * 100_000, "nested too deeply"),  # the parser recursed until it crashed
    ('{"format": 1' + "0" * 5000 + "}", "a number too long"),
    ('{"format": "noreturn-record"}', "not a tournament's results"),
    ('{"format": "noreturn-tournament", "players": 2}', "missing or malformed field"),
    ('{"format": "noreturn-tournament", "players": 2, "seed": 0, "rules": {}, "bots": [], '
     '"per_game": [{"lineup": 0}]}', "missing or malformed field"),
    ('{"format": "noreturn-tournament", "players": 2, "seed": 0, "rules": {}, "bots": [], '
     '"per_game": [{"lineup": 0, "deal": 0, "rotation": 0, "seats": ["a"], "scores": [1, 2],'
     ' "ranks": [1, 2]}]}', "do not match"),
    ('{"format": "noreturn-tournament", "players": 2, "seed": 0, "rules": {}, "bots": [], '
     '"per_game": [{"lineup": 0, "deal": 0, "rotation": 0, "seats": ["a", "b"], '
     '"scores": [1, "2"], "ranks": [2, 1]}]}', "the rest whole numbers"),
    ('{"format": "noreturn-tournament", "players": 2, "seed": 0, "rules": {}, "bots": [], '
     '"per_game": [{"lineup": 0, "deal": true, "rotation": 0, "seats": ["a", "b"], '
     '"scores": [1, 2], "ranks": [2, 1]}]}', "the rest whole numbers"),
    ('{"format": "noreturn-tournament", "players": 2, "seed": 0, "rules": {}, "bots": [1], '
     '"per_game": []}', "missing or malformed field"),
    ('{"format": "noreturn-tournament", "players": 2, "seed": 0, "rules": {}, "bots": '
     '[{"spec": "a", "name": "\\u001b[2Ja"}], "per_game": []}', "holds control characters"),
    ('{"format": "noreturn-tournament", "players": 2, "seed": 0, "rules": {}, "bots": [], '
     '"per_game": [{"lineup": 0, "deal": 0, "rotation": 0, "seats": ["a", "\\u0007b"], '
     '"scores": [1, 2], "ranks": [2, 1]}]}', "no control characters"),
])
def test_a_bad_file_is_refused_with_what_is_wrong(tmp_path: Path, content: str | None,
                                                  message: str) -> None:
    path = tmp_path / "results.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(CompareError, match=message):
        load_run(path)


def test_runs_of_other_tables_are_not_pooled(tmp_path: Path) -> None:
    runs = [load_run(hand_made(tmp_path / "2.json", TWO_DEALS)),
            load_run(hand_made(tmp_path / "4.json", TWO_DEALS, seed=2, players=4))]
    with pytest.raises(CompareError, match="differ in players or rules"):
        pooled(runs)


def test_the_command_prints_both_tables_and_json(tmp_path: Path) -> None:
    path = hand_made(tmp_path / "r.json", TWO_DEALS)
    shown = runner.invoke(app, ["compare", str(path), "--bot", "A", "--against", "b"],
                          env={"COLUMNS": "80"})
    assert shown.exit_code == 0, shown.output
    assert "1 run pooled (seed 1)" in shown.output
    assert "A against b, game by game: 4 games on 2 deals" in shown.output
    assert "+25.0" in shown.output  # the win rates' difference, in points
    data = json.loads(runner.invoke(app, ["compare", str(path), "--bot", "A", "--against",
                                          "b", "--json"]).output)
    assert data["paired"]["margin_se"] == pytest.approx(10.0)
    assert [row["name"] for row in data["pooled"]] == ["A", "b"]
    assert data["pooled"][1]["win_rate"] == 0.5
    assert data["pooled"][0]["rating"] > data["pooled"][1]["rating"]  # A: won 2, lost 1
    assert data["rating_method"].startswith("Bradley-Terry")
    assert "rating: Bradley-Terry (MM)" in shown.output


def test_same_counts_several_names_as_one_bot(tmp_path: Path) -> None:
    three = [game(d, 0, ["A", "H1", "H2"], [90, 60, 30]) for d in range(3)]
    path = hand_made(tmp_path / "r.json", three, players=3)
    data = json.loads(path.read_text())
    data["bots"] = [{"name": n, "spec": n} for n in ("A", "H1", "H2")]
    path.write_text(json.dumps(data), encoding="utf-8")
    shown = runner.invoke(app, ["compare", str(path), "--same", "H1=hard", "--same", "H2=hard",
                                "--json"])
    assert shown.exit_code == 0, shown.output
    rows = {row["name"]: row for row in json.loads(shown.output)["pooled"]}
    assert sorted(rows) == ["A", "hard"] and rows["hard"]["games"] == 6
    assert rows["A"]["rating"] > rows["hard"]["rating"]
    refused = runner.invoke(app, ["compare", str(path), "--same", "H1"])
    assert refused.exit_code == 2
    assert "--same H1: give NAME=BOT, such as --same H1=hard" in refused.output


@pytest.mark.parametrize(("arguments", "message"), [
    (["--against", "b"], "--bot and --against go together"),
    (["--bot", "nobody"], "--bot and --against go together"),  # was ignored without a word
    (["--bot", "nobody", "--against", "b"], "no bot 'nobody' in these runs; they hold A, b"),
    (["--bot", "b", "--against", "b"], "--bot and --against name the same bot, 'b'"),
    (["--bot", "x" * 5000, "--against", "b"], "no bot 'xxxxxxxxxx"),  # cut: see below
    (["--same", "B=A"], "--same B=...: no bot 'B' in these runs; they hold A, b"),  # a typo
])
def test_the_command_says_what_is_wrong(tmp_path: Path, arguments: list[str],
                                        message: str) -> None:
    path = hand_made(tmp_path / "r.json", TWO_DEALS)
    result = runner.invoke(app, ["compare", str(path), *arguments])
    assert result.exit_code == 2
    assert message in result.output and len(result.output) < 300


def test_the_plot_is_drawn_and_the_json_stays_one_object(tmp_path: Path) -> None:
    path = hand_made(tmp_path / "r.json", TWO_DEALS)
    picture = tmp_path / "compare.png"
    result = runner.invoke(app, ["compare", str(path), "--bot", "A", "--against", "b",
                                 "--json", "--plot", str(picture)])
    assert result.exit_code == 0, result.output
    assert picture.read_bytes().startswith(b"\x89PNG")
    assert json.loads(result.stdout)["paired"]["games"] == 4
    pooled_only = tmp_path / "pooled.png"
    assert runner.invoke(app, ["compare", str(path), "--plot", str(pooled_only)]).exit_code == 0
    assert pooled_only.read_bytes().startswith(b"\x89PNG")


def test_a_plot_that_cannot_be_written_says_so_after_the_tables(tmp_path: Path) -> None:
    path = hand_made(tmp_path / "r.json", TWO_DEALS)
    result = runner.invoke(app, ["compare", str(path), "--plot", "/proc/noreturn-plot.png"])
    assert result.exit_code == 1
    assert "1 run pooled" in result.output
    assert "the plot could not be written" in result.output


@pytest.mark.parametrize(("plot", "said"), [
    ("missing/x.png", "the folder {tmp}/missing does not exist: create it, or name a file in "
                      "a folder that exists"),
    ("x.svg", "the plot is a PNG image: name a file ending in .png, such as x.png"),
    ("x", "the plot is a PNG image: name a file ending in .png, such as x.png"),
    ("", "{tmp} is a folder: name a .png file, such as {tmp}/plot.png"),
])
def test_a_plot_file_that_would_not_be_the_png_named_is_refused_first(
        tmp_path: Path, plot: str, said: str) -> None:
    """matplotlib wrote PNG bytes into x.svg, and x.png for x: not the file named."""
    path = hand_made(tmp_path / "r.json", TWO_DEALS)
    result = runner.invoke(app, ["compare", str(path), "--plot", str(tmp_path / plot)],
                           env={"COLUMNS": "300"})
    assert result.exit_code == 2 and "run pooled" not in result.output
    assert said.format(tmp=tmp_path) in " ".join(result.output.split())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


def test_a_run_named_twice_is_refused_not_pooled_twice(tmp_path: Path) -> None:
    path = hand_made(tmp_path / "results.json", TWO_DEALS)
    result = runner.invoke(app, ["compare", str(tmp_path), str(path)], env={"COLUMNS": "300"})
    assert result.exit_code == 2
    assert f"{path} names the run of {tmp_path} again: name each run once" in result.output
    assert "run pooled" not in result.output
