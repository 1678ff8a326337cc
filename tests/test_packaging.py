"""The package's promises about itself: a pure engine and a working console script."""

from __future__ import annotations

import ast
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest

import noreturn
import noreturn.engine
from noreturn.engine import compiled

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


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, at its top or inside a function (mypy reads both),
    relative imports resolved within ``noreturn``."""
    package = ["noreturn", *path.relative_to(ENGINE.parent).parent.parts]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found.add(module)
            found |= {f"{module}.{alias.name}" for alias in node.names}  # (submodules)
    return found


def test_the_modules_mypyc_compiles_reach_no_dependency() -> None:
    """``pip install .`` compiles setup.py's modules in an isolated build that has mypy
    and setuptools but none of noreturn's dependencies, and mypy reads every module they
    import, all the way down: a lazy ``import babel`` in ``noreturn.text.lang`` (imported
    by the search) failed the quick start's install while every test passed."""
    setup = (ENGINE.parents[2] / "setup.py").read_text(encoding="utf-8")
    hot = ast.literal_eval(setup.split("HOT_MODULES = ", 1)[1].split("]", 1)[0] + "]")
    src = ENGINE.parents[1]
    todo = [src / name.removeprefix("src/") for name in hot]
    seen: set[Path] = set()
    outside: set[str] = set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for module in _imports(path):
            top = module.split(".")[0]
            if top != "noreturn":
                if top not in sys.stdlib_module_names and top != "mypy_extensions":
                    outside.add(f"{path.relative_to(src)}: {module}")
                continue
            parts = module.split(".")
            for candidate in (src.joinpath(*parts).with_suffix(".py"),
                              src.joinpath(*parts, "__init__.py")):
                if candidate.exists():
                    todo.append(candidate)
    assert len(seen) > len(hot), "the scan followed no import"
    assert not outside, sorted(outside)


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


ROOT = Path(__file__).resolve().parents[1]
FINGERPRINT = (
    "import sys; from noreturn.engine import compiled; sys.path.insert(0, {benchmarks!r}); "
    "from fingerprint import fingerprint; print(compiled(), fingerprint(2, [2, 3, 4]))"
)
"""A child's lines: whether it runs compiled modules, and the hash of 6 games' records."""


def _wheel(tmp_path: Path, env: dict[str, str]) -> Path:
    """Build a wheel the way ``pip install .`` does, from a copy of the project (a fresh
    checkout has no ``build/`` folder to reuse), and install it into a folder of its own."""
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(ROOT / name, source / name)
    skip = shutil.ignore_patterns("__pycache__", "*.so", "*.egg-info")
    for name in ("src", "tools"):
        shutil.copytree(ROOT / name, source / name, ignore=skip)
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(tmp_path / "wheel"),
         str(source)], capture_output=True, text=True, check=False,
        env={**os.environ, **env})
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    (wheel,) = (tmp_path / "wheel").glob("noreturn-*.whl")
    target = tmp_path / "installed"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--target",
                    str(target), str(wheel)], capture_output=True, check=True)
    return target


def _decisions(path: Path | None) -> tuple[str, str]:
    """(compiled?, fingerprint) in a child whose ``noreturn`` comes from ``path`` (ahead of
    the editable install), or from this test's own install."""
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = str(path)
    code = FINGERPRINT.format(benchmarks=str(ROOT / "benchmarks"))
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=False, env=env, cwd=path or ROOT)
    assert child.returncode == 0, child.stderr[-2000:]
    is_compiled, digest = child.stdout.split()
    return is_compiled, digest


def test_a_wheel_compiles_the_search_and_it_decides_as_the_sources_do(tmp_path: Path) -> None:
    """``pip install .`` compiles the plan, the search's candidates and the engine's hot
    modules with mypyc (setup.py); the compiled bots make exactly the moves of the pure
    ones."""
    if shutil.which(sysconfig.get_config_var("CC").split()[0]) is None:
        pytest.skip("no C compiler (the CC Python was built with): wheels are pure Python")
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        pytest.skip("no Python headers (Debian: python3-dev): wheels are pure Python")
    target = _wheel(tmp_path, {})
    modules = sorted(p.relative_to(target).as_posix().split(".")[0]
                     for p in (target / "noreturn").rglob("*.so"))
    assert modules == ["noreturn/bots/candidates", "noreturn/bots/plan", "noreturn/engine/legal",
                        "noreturn/engine/rollout", "noreturn/engine/state",
                        "noreturn/engine/tiles"]
    assert _decisions(target) == ("True", _decisions(None)[1])


@pytest.mark.parametrize("env", [{"CC": "/nonexistent/cc"}, {"NORETURN_COMPILE": "0"}],
                         ids=["no-compiler", "opted-out"])
def test_a_wheel_without_compiling_installs_the_pure_package(
        tmp_path: Path, env: dict[str, str]) -> None:
    """A failed compilation (no compiler) or ``NORETURN_COMPILE=0`` still installs: the
    pure Python, with no half of the compiled modules left behind."""
    target = _wheel(tmp_path, env)
    assert not list(target.rglob("*.so"))
    assert _decisions(target)[0] == "False"


def test_an_editable_install_runs_the_sources() -> None:
    """An editable install (the test command's) compiles nothing: the modules a developer
    edits are the ones that run (tools/build_backend.py asks for no mypy, setup.py skips)."""
    direct_url = importlib.metadata.distribution("noreturn").read_text("direct_url.json")
    if not direct_url or not json.loads(direct_url).get("dir_info", {}).get("editable"):
        pytest.skip("noreturn is not installed editable here (pip install -e .)")
    assert not compiled()
    assert not list((ROOT / "src").rglob("*.so"))


def test_version_says_whether_the_search_runs_compiled() -> None:
    result = subprocess.run([sys.executable, "-m", "noreturn", "--version"],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    build = "the search compiled by mypyc" if compiled() else "pure Python: `pip"
    assert result.stdout.startswith(f"noreturn {noreturn.__version__}, {build}")


def test_the_server_image_copies_everything_the_build_reads() -> None:
    """deploy/Dockerfile builds the package from copied files (no daemon here to build it):
    the build backend's folder, setup.py, the readme and the sources must all be among
    them, or the image's ``pip wheel`` fails."""
    build = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    needed = {*build["build-system"]["backend-path"], "setup.py", "src",
              build["project"]["readme"], "pyproject.toml"}
    copied: set[str] = set()
    for line in (ROOT / "deploy" / "Dockerfile").read_text(encoding="utf-8").splitlines():
        if line.startswith("COPY ") and "--from" not in line:
            copied.update(line.split()[1:-1])
    assert needed <= copied, f"deploy/Dockerfile does not copy {sorted(needed - copied)}"
    assert all((ROOT / name).exists() for name in needed)
