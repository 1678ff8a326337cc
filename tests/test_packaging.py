"""The package's promises about itself: a pure engine and a working console script."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import noreturn.engine

ENGINE = Path(noreturn.engine.__file__).parent


def test_engine_imports_only_the_standard_library() -> None:
    allowed = set(sys.stdlib_module_names) | {"noreturn"}
    imported = set()
    for path in ENGINE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                imported.add(node.module.split(".")[0])
    assert imported, "the scan found no imports at all"
    assert imported <= allowed, f"engine imports non-standard modules: {imported - allowed}"


def test_engine_does_not_import_front_end_layers() -> None:
    for path in ENGINE.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        for layer in ("noreturn.records", "noreturn.cli", "noreturn.simulate", "noreturn.bots"):
            assert layer not in text, f"{path.name} imports {layer}: the engine depends on nothing"


def test_console_script_runs() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "noreturn", "--help"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    for command in ("play", "validate", "replay", "simulate", "bench"):
        assert command in result.stdout
