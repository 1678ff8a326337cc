"""The layers of docs/architecture.md hold: each package of ``src/noreturn`` imports only
the layers below it, and no module outside a layer package but the thin CLI.

The scan reads every Python file of the package as an AST, so an import inside a function
(the CLI's lazy ones, Textual's) or under ``TYPE_CHECKING`` counts too, and relative imports
are resolved. A new package must be given its place in ``MAY_IMPORT`` (and in the drawing
of docs/architecture.md) before this test passes; a planted package shows the scan fails
on every kind of violation.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import noreturn

SRC = Path(noreturn.__file__).resolve().parent
ROOT_MODULES = {"__init__", "__main__", "cli"}
"""The only modules outside a layer package: the package itself, ``python -m noreturn``
and the thin command line (a package of its own, ``cli/``, one module per help panel)."""

_BASE = frozenset({"engine", "text", "files", "records", "bots"})
MAY_IMPORT: dict[str, frozenset[str]] = {
    "engine": frozenset(),
    "text": frozenset({"engine"}),
    "files": frozenset({"engine"}),
    "records": frozenset({"engine", "text"}),
    "bots": frozenset({"engine", "text", "records"}),
    "sim": _BASE,
    "analysis": _BASE | {"sim"},
    "table": _BASE,
    "tui": _BASE | {"table", "analysis", "sim"},
    "server": _BASE | {"table", "analysis", "sim"},
    "rl": frozenset({"engine", "text", "records", "bots"}),
}
"""Which layers each layer may import (besides itself). Everything depends on the engine;
the engine depends on nothing of ours; front ends never import one another."""

UNIT_MAY_IMPORT = {
    "cli": frozenset(MAY_IMPORT),
    "__main__": frozenset({"cli"}),
    "__init__": frozenset(),
}
"""The top-level modules: the CLI may call into any layer, ``python -m noreturn`` only the
CLI, and the package's ``__init__`` (its version) nothing."""


def unit_of(path: Path, src: Path) -> str:
    """The layer (package name) or top-level module that ``path`` belongs to."""
    parts = path.relative_to(src).with_suffix("").parts
    return parts[0]


def _imported(path: Path, src: Path) -> Iterator[tuple[int, str]]:
    """Each module of ours that ``path`` imports, absolute, with its line."""
    package = ["noreturn", *path.relative_to(src).parent.parts]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            if module == "noreturn":  # from noreturn import engine, __version__
                yield from ((node.lineno, f"noreturn.{alias.name}") for alias in node.names)
            else:
                yield node.lineno, module


def target_of(module: str) -> str | None:
    """The layer or top-level module an import reaches: None when it is not ours, and
    ``__init__`` for the package itself (``from noreturn import __version__``)."""
    parts = module.split(".")
    if parts[0] != "noreturn":
        return None
    if len(parts) == 1 or (parts[1].startswith("__") and parts[1] != "__main__"):
        return "__init__"
    return parts[1]


def violations(src: Path) -> list[str]:
    """Every breach of the layer rule under ``src`` (a ``noreturn`` package folder)."""
    found = []
    for path in sorted(src.glob("*.py")):
        if path.stem not in ROOT_MODULES:
            found.append(f"{path.name}: a loose module; put it in a layer package")
    for folder in sorted(p for p in src.iterdir() if p.is_dir() and p.name != "__pycache__"):
        if folder.name not in MAY_IMPORT and folder.name not in UNIT_MAY_IMPORT:
            found.append(f"{folder.name}/: a package without a place in the layer map")
    for path in sorted(src.rglob("*.py")):
        unit = unit_of(path, src)
        allowed = MAY_IMPORT.get(unit, UNIT_MAY_IMPORT.get(unit))
        if allowed is None:
            continue  # reported above
        for line, module in _imported(path, src):
            target = target_of(module)
            if target is None or target == unit:
                continue
            if target == "__init__" and unit != "engine":
                continue  # the version, for everyone but the engine
            if target not in allowed:
                where = path.relative_to(src).as_posix()
                found.append(f"{where}:{line}: {unit} imports {module} ({target})")
    return found


def test_every_module_sits_in_a_layer_and_imports_only_the_layers_below() -> None:
    found = violations(SRC)
    assert not found, ("the layer rule of docs/architecture.md is broken:\n"
                       + "\n".join(found))


def test_the_scan_reads_the_real_imports() -> None:
    units = {unit_of(path, SRC) for path in SRC.rglob("*.py")}
    assert {"engine", "records", "bots", "table", "tui", "server", "cli"} <= units
    edges = {(unit_of(path, SRC), target_of(module))
             for path in SRC.rglob("*.py") for _, module in _imported(path, SRC)}
    assert {("records", "engine"), ("tui", "table"), ("server", "table"), ("cli", "sim"),
            ("__main__", "cli"), ("records", "text"), ("bots", "engine")} <= edges


def test_no_module_of_the_package_imports_the_cli() -> None:
    importers = {unit for unit, allowed in (MAY_IMPORT | UNIT_MAY_IMPORT).items()
                 if "cli" in allowed}
    assert importers == {"__main__"}


def test_the_scan_finds_every_kind_of_breach(tmp_path: Path) -> None:
    src = tmp_path / "noreturn"
    planted = {
        "__init__.py": "",
        "cli.py": "from noreturn.server import app\n",
        "helpers.py": "",
        "engine/__init__.py": "from noreturn.bots import make_bot\n",
        "engine/state.py": "from noreturn import __version__\nimport noreturn.engine.tiles\n",
        "records/writer.py": "import noreturn.sim.stats\nfrom noreturn.text import narrate\n",
        "bots/plan.py": "def f():\n    from ..table import LocalTable\n",
        "text/narrate.py": "from typing import TYPE_CHECKING\n"
                           "if TYPE_CHECKING:\n    from noreturn.tui.app import NoReturnApp\n",
        "tui/play.py": "from noreturn import server\nfrom . import app\n",
        "server/app.py": "from noreturn import cli, __version__\n",
        "newthing/__init__.py": "",
    }
    for name, text in planted.items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(text, encoding="utf-8")
    assert violations(src) == [
        "helpers.py: a loose module; put it in a layer package",
        "newthing/: a package without a place in the layer map",
        "bots/plan.py:2: bots imports noreturn.table (table)",
        "engine/__init__.py:1: engine imports noreturn.bots (bots)",
        "engine/state.py:1: engine imports noreturn.__version__ (__init__)",
        "records/writer.py:1: records imports noreturn.sim.stats (sim)",
        "server/app.py:1: server imports noreturn.cli (cli)",
        "text/narrate.py:3: text imports noreturn.tui.app (tui)",
        "tui/play.py:1: tui imports noreturn.server (server)",
    ]
