"""The engine's API is sealed: everything outside ``src/noreturn/engine/`` imports from
``noreturn.engine``, never from one of its modules (the engine may rearrange its inside
freely, and a name used outside is a name it promises to keep); the stage is one ``Stage``
for states and views, whose text is the word the JSON always had.

The scan reads every Python file of ``src``, ``tests``, ``benchmarks``, ``examples`` and
``docs`` as an AST, so an import in a function body or under ``TYPE_CHECKING`` is found too.
"""

from __future__ import annotations

import ast
import json
import pkgutil
from collections.abc import Iterator
from pathlib import Path
from random import Random

import pytest

import noreturn.engine
from noreturn.bots.viewjson import view_to_json
from noreturn.engine import (
    Mulligan,
    Rules,
    RulesError,
    Stage,
    new_game,
    resolve_chance,
    rollout_action,
    view,
)

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "src" / "noreturn" / "engine"
SCANNED = ("src", "tests", "benchmarks", "examples", "docs")
SUBMODULES = frozenset(m.name for m in pkgutil.iter_modules(noreturn.engine.__path__))


def _outside_files() -> Iterator[Path]:
    """Every Python file of the scanned folders that is not part of the engine."""
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if ENGINE not in path.parents:
                yield path


def _module_of(path: Path, node: ast.ImportFrom) -> str:
    """The absolute module an ``ImportFrom`` names; a relative one is resolved from the
    package of ``path`` (files under ``src`` only: elsewhere there is no package)."""
    if not node.level:
        return node.module or ""
    if ROOT / "src" not in path.parents:
        return ""
    package = path.relative_to(ROOT / "src").parent.parts
    base = package[: len(package) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


def _engine_submodule_imports(path: Path) -> Iterator[str]:
    """Each import in ``path`` that reaches into an engine module, as written."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names
                        if alias.name.startswith("noreturn.engine."))
        elif isinstance(node, ast.ImportFrom):
            module = _module_of(path, node)
            if module.startswith("noreturn.engine."):
                yield f"from {module} import ..."
            elif module == "noreturn.engine":
                yield from (f"from noreturn.engine import {alias.name}" for alias in node.names
                            if alias.name in SUBMODULES
                            and alias.name not in noreturn.engine.__all__)


def test_nothing_outside_the_engine_imports_an_engine_module() -> None:
    found = [f"{path.relative_to(ROOT)}: {text}" for path in _outside_files()
             for text in _engine_submodule_imports(path)]
    assert not found, "import these from noreturn.engine instead:\n" + "\n".join(found)


def test_the_scan_finds_an_import_of_an_engine_module(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text("from noreturn.engine.state import GameState\n"
                       "import noreturn.engine.tiles\n"
                       "from noreturn.engine import state, view\n", encoding="utf-8")
    assert list(_engine_submodule_imports(planted)) == [
        "from noreturn.engine.state import ...", "noreturn.engine.tiles",
        "from noreturn.engine import state"]


def test_every_exported_name_exists() -> None:
    missing = [name for name in noreturn.engine.__all__ if not hasattr(noreturn.engine, name)]
    assert not missing


def test_a_state_and_its_views_share_one_stage_enum() -> None:
    rng = Random(3)
    state = new_game(Rules(players=3), rng)
    seen: set[Stage] = set()
    while True:
        assert type(state.stage) is Stage
        for seat in (None, 0, 1, 2):
            assert view(state, seat).stage is state.stage
        seen.add(state.stage)
        if state.is_over():
            break
        state.apply(state.sample_draw(rng) if state.is_chance() else rollout_action(state, rng))
    assert seen == set(Stage)


def test_the_stage_reads_as_the_word_json_records_and_the_browser_use() -> None:
    assert [stage.text for stage in Stage] == ["deal", "mulligan", "play", "over"]
    assert [f"{stage}" for stage in Stage] == [str(stage) for stage in Stage] == [
        "deal", "mulligan", "play", "over"]
    state = new_game(Rules(), start_player=0)
    resolve_chance(state, Random(1))
    state.apply(Mulligan(()))
    state.apply(Mulligan(()))
    assert state.stage is Stage.PLAY and Stage.PLAY.value == 2
    data = view_to_json(view(state, 0))
    assert type(data["stage"]) is str and data["stage"] == "play"
    assert '"stage": "play"' in json.dumps(data)


def test_a_new_game_is_never_silently_unseeded() -> None:
    with pytest.raises(TypeError, match=r"new_game needs rng .* or start_player"):
        new_game(Rules())
    assert new_game(Rules(players=3), start_player=2).start == 2
    assert new_game(Rules(players=4), Random(5)).start == Random(5).randrange(4)


def test_chance_questions_on_a_node_that_is_not_a_chance_node_raise() -> None:
    state = new_game(Rules(), start_player=0)
    assert state.chance_outcomes() and state.sample_draw(Random(1))
    resolve_chance(state, Random(1))
    assert not state.is_chance()
    with pytest.raises(RulesError, match=r"chance_outcomes: no draw is due \(seat 0 is to act\)"):
        state.chance_outcomes()
    with pytest.raises(RulesError, match=r"sample_draw: no draw is due .* not a chance node"):
        state.sample_draw(Random(1))
    rng = Random(2)
    while not state.is_over():
        state.apply(state.sample_draw(rng) if state.is_chance() else rollout_action(state, rng))
    with pytest.raises(RulesError, match=r"no draw is due \(the game is over\)"):
        state.chance_outcomes()
