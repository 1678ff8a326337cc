"""The project stands alone: what a user reads points inside it, and the docs match the code.

A clone holds only this repository. The game's rules and the record format live in
docs/rules.md and docs/record-format.md; a pointer to a folder beside the project, or to a
rules or record file by a bare name, leaves the reader with nowhere to go. Other programs
follow docs/record-format.md, so it is checked against the tables the validator itself
uses (event types, keys, codes) and its example must be a record the validator accepts.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from noreturn.engine import Rules
from noreturn.records import reader, validate, writer
from noreturn.records.validate import EVENT_KEYS, check_record

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
RULES_DOC = DOCS / "rules.md"
RECORD_DOC = DOCS / "record-format.md"
MARKDOWN = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]

OUTSIDE = re.compile(r"\.\./shared|/work/|(?<![\w/.-])(?:RULES|RECORD)\.md")
"""A path out of the project, or a bare rules or record file name (no ``docs/`` before it)."""

TEXT_SUFFIXES = {".py", ".md", ".html", ".js", ".css", ".toml", ".yaml", ".yml", ".conf"}
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
SECTION_REFERENCE = re.compile(
    r"docs/(rules|record-format)\.md((?:,?\s*(?:and\s+)?\"[^\"]{1,80}\")+)"
)


def _read_by_users() -> list[Path]:
    """README, docs, the package (with its static front end), tests, examples, scripts."""
    files = [ROOT / "README.md", ROOT / "pyproject.toml"]
    for folder in ("docs", "src", "tests", "examples", "benchmarks", "deploy"):
        files += [
            path for path in sorted((ROOT / folder).rglob("*"))
            if path.is_file() and "__pycache__" not in path.parts
            and (path.suffix in TEXT_SUFFIXES or path.parent.name == "static")
        ]
    return [path for path in files if path != Path(__file__).resolve()]


def test_the_scan_covers_what_users_read() -> None:
    scanned = {path.relative_to(ROOT).as_posix() for path in _read_by_users()}
    for expected in ("README.md", "docs/rules.md", "docs/record-format.md",
                     "src/noreturn/records/reader.py", "src/noreturn/cli/playing.py",
                     "src/noreturn/server/static/index.html", "tests/records/broken/README.md"):
        assert expected in scanned


@pytest.mark.parametrize("path", _read_by_users(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_nothing_points_outside_the_project(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    found = [
        f"line {text.count(chr(10), 0, match.start()) + 1}: {match.group()!r}"
        for match in OUTSIDE.finditer(text)
    ]
    assert not found, (f"{path.relative_to(ROOT)} points outside the project ({found}); "
                       f"point at docs/rules.md or docs/record-format.md instead")


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _headings(path: Path) -> list[str]:
    """The text of every Markdown heading of ``path`` (code blocks skipped)."""
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
    return [m.group(1).strip() for m in re.finditer(r"^#{1,6}\s+(.+)$", text, re.MULTILINE)]


@pytest.mark.parametrize("page", MARKDOWN, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_reaches_a_file_and_heading(page: Path) -> None:
    targets = [t for t in LINK.findall(page.read_text(encoding="utf-8"))
               if not re.match(r"[a-z]+:", t)]
    broken = []
    for target in targets:
        file_part, _, anchor = target.partition("#")
        file = (page.parent / file_part).resolve() if file_part else page
        if not file.exists():
            broken.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in map(_slug, _headings(file)):
            broken.append(f"{target}: no such heading in {file.name}")
    assert not broken, f"{page.relative_to(ROOT)} has broken links: {broken}"


def test_the_readme_links_the_rules_and_the_record_format() -> None:
    links = LINK.findall((ROOT / "README.md").read_text(encoding="utf-8"))
    assert "docs/rules.md" in links and "docs/record-format.md" in links


def test_section_references_name_real_headings() -> None:
    """``docs/rules.md, "Scoring"`` in a docstring or message names a heading of that page."""
    pages = {"rules": RULES_DOC, "record-format": RECORD_DOC}
    headings = {name: set(_headings(path)) for name, path in pages.items()}
    wrong, seen = [], 0
    for path in _read_by_users():
        for match in SECTION_REFERENCE.finditer(path.read_text(encoding="utf-8")):
            for section in re.findall(r"\"([^\"]+)\"", match.group(2)):
                seen += 1
                name = " ".join(section.split())
                if name not in headings[match.group(1)]:
                    wrong.append(f"{path.relative_to(ROOT)}: {match.group(1)} {name!r}")
    assert seen >= 10, "the scan found too few section references to be working"
    assert not wrong, f"no such heading: {wrong}"


def _code_names(text: str) -> set[str]:
    """Everything written as inline code (between backticks) in Markdown ``text``."""
    return set(re.findall(r"`([^`\n]+)`", text))


def _validator_codes() -> set[str]:
    """The rejection codes in validate.py: its string constants shaped like ``bad-tile``."""
    tree = ast.parse(Path(validate.__file__).read_text(encoding="utf-8"))
    return {
        node.value for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        and re.fullmatch(r"[a-z]+(?:-[a-z]+)+", node.value)
    }


def test_the_record_format_names_everything_the_validator_knows() -> None:
    named = _code_names(RECORD_DOC.read_text(encoding="utf-8"))
    keys = {key for event_keys in EVENT_KEYS.values() for key in event_keys}
    known = (set(EVENT_KEYS) | keys | {"type"} | set(reader.REQUIRED_KEYS)
             | set(reader.OPTIONAL_KEYS) | {f'"{kind}"' for kind in reader.PLAYER_KINDS}
             | {"name", "kind", "scores", "ranks", f'"{writer.FORMAT}"'}
             | set(Rules(players=2).to_dict()))
    codes = _validator_codes()
    assert len(codes) >= 12, f"the scan of validate.py found only {codes}"
    missing = sorted((known | codes) - named)
    assert not missing, f"docs/record-format.md does not name {missing} (write each in `...`)"


def test_the_record_format_gives_the_defaults_of_the_rules() -> None:
    text = " ".join(RECORD_DOC.read_text(encoding="utf-8").split())
    for key, value in Rules(players=2).to_dict().items():
        if key != "players":
            assert f"`{key}` | {value} |" in text or f"`{key}` (default {value})" in text, key


def test_the_record_format_example_is_a_valid_finished_game() -> None:
    blocks = re.findall(r"```json\n(.*?)```", RECORD_DOC.read_text(encoding="utf-8"), re.DOTALL)
    assert blocks, "docs/record-format.md has no json example"
    record = json.loads(blocks[0])
    verdict = check_record(record)
    assert verdict.valid and verdict.over, verdict.reason
    assert {event["type"] for event in record["events"]} >= set(EVENT_KEYS) - {"pass"}
