"""Languages: choosing one, the German catalog complete and compiled, refusals and record
errors translated."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator, Mapping
from io import BytesIO
from pathlib import Path
from typing import Any, get_args

import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from typer.testing import CliRunner

import noreturn
from noreturn.cli import Lang, app
from noreturn.engine import RULE_CODES, NoReturnError, Refusal, WordedError
from noreturn.records.reader import JSON_PROBLEMS, JSON_TYPE_NAMES, RecordError, parse_record
from noreturn.text.lang import (
    DEFAULT,
    LANGUAGES,
    LOCALE_DIR,
    LanguageCode,
    _,
    from_accept_language,
    from_command_line,
    from_environment,
    language,
    ngettext,
    set_language,
    speaking,
    translations,
)
from noreturn.text.refusals import JSON_TYPE_WORDS, error_text, refusal_text

PACKAGE = Path(noreturn.__file__).resolve().parent
ROOT = Path(__file__).resolve().parents[2]
"""The checkout (babel.cfg), found from this file: the package may be installed elsewhere."""
PO = LOCALE_DIR / "de" / "LC_MESSAGES" / "noreturn.po"
MO = LOCALE_DIR / "de" / "LC_MESSAGES" / "noreturn.mo"
BLANK = re.compile(r"\{(\w*)\}")


WORDED_KEYWORDS = ("NotationError", "RulesError", "RecordError", "ReviewError",
                   "BotSpecError", "SeatsError")
"""The worded errors a player may meet: text that does not parse, rules that make no game
(``--rules colors=9``), a record that is no record or cannot be resumed, a review that
cannot be made, seats or a bot spec that make no game (``play --bots foo``)."""


def extract(keywords: Mapping[str, Any]) -> Iterator[tuple[str, str | tuple[str, ...], str | None]]:
    """Each message of the sources as ``pybabel extract`` finds it with ``keywords``: its
    file, its id and its context."""
    with (ROOT / "babel.cfg").open() as cfg:
        # (babel's command-line front end carries no type annotations)
        method_map, options_map = parse_mapping_cfg(cfg)  # type: ignore[no-untyped-call]
    for file, _line, message, _comments, context in extract_from_dir(
            str(PACKAGE), method_map, options_map, keywords=keywords):
        yield file, message, context


def extracted() -> set[object]:
    """Every message the sources hold now, found as ``pybabel extract`` finds them."""
    keywords = {**DEFAULT_KEYWORDS, "Refusal": (2,), **dict.fromkeys(WORDED_KEYWORDS)}
    return {catalog_key(message, context) for _file, message, context in extract(keywords)}


def catalog_key(message_id: str | tuple[str, ...] | list[str], context: str | None) -> object:
    """A message as the catalog keys it: its id (plural forms as a tuple), with its
    context where it has one."""
    key = message_id if isinstance(message_id, str) else tuple(message_id)
    return (context, key) if context else key


def test_every_word_in_the_sources_has_its_german_translation() -> None:
    """A sentence added without a translation fails here: run the commands of
    docs/translating.md (extract, update, translate, compile)."""
    catalog = read_po(PO.open("rb"))
    translated = {catalog_key(m.id, m.context): m for m in catalog if m.id}
    missing = [m for m in extracted() if m not in translated]
    assert not missing, f"not in the German catalog: {missing[:5]}"
    untranslated = [m.id for m in translated.values() if not m.string or "fuzzy" in m.flags
                    or (isinstance(m.string, tuple) and not all(m.string))]
    assert not untranslated, f"untranslated or fuzzy: {untranslated[:5]}"


def test_translations_keep_every_blank_of_their_english() -> None:
    """``{name}`` renamed or lost in a translation would raise or mislead at run time."""
    for message in read_po(PO.open("rb")):
        if not message.id:
            continue
        ids = (message.id,) if isinstance(message.id, str) else tuple(message.id)
        strings = ((message.string,) if isinstance(message.string, str)
                   else tuple(message.string or ()))
        wanted = set(BLANK.findall(ids[-1]))
        for string in strings:
            assert set(BLANK.findall(string)) == wanted, (message.id, string)


def test_the_compiled_catalog_is_the_current_one() -> None:
    """The .mo file that ships must say what the .po says: compile after every change
    (``pybabel compile -d src/noreturn/locale -D noreturn``)."""
    fresh = BytesIO()
    write_mo(fresh, read_po(PO.open("rb")))
    assert fresh.getvalue() == MO.read_bytes()


def test_the_terminal_language_comes_from_the_locale_variables() -> None:
    assert from_environment({"LANG": "de_DE.UTF-8"}) == "de"
    assert from_environment({"LANG": "de_AT"}) == "de"
    assert from_environment({"LANG": "fr_FR.UTF-8"}) == "en"
    assert from_environment({}) == "en"
    assert from_environment({"LC_ALL": "en_US.UTF-8", "LANG": "de_DE.UTF-8"}) == "en"
    assert from_environment({"LANGUAGE": "fr:de", "LANG": "en_US"}) == "de"


def test_the_browser_language_comes_from_accept_language() -> None:
    assert from_accept_language("de-DE,de;q=0.9,en;q=0.8") == "de"
    assert from_accept_language("en-GB,en;q=0.9,de;q=0.5") == "en"
    assert from_accept_language("fr-FR,fr;q=0.9,de;q=0.7") == "de"
    assert from_accept_language("fr") == "en"
    assert from_accept_language(None) == "en"
    assert from_accept_language("de;q=nonsense,en") == "en"
    assert from_accept_language("fr, de;q=0") == "en"  # q=0: not German
    assert from_accept_language("x" * 100_000) == "en"  # a hostile header costs little


def test_a_reader_language_holds_only_inside_its_block() -> None:
    assert language() == "en"
    with speaking("de"):
        assert _("the game is over") == "das Spiel ist vorbei"
        assert ngettext("{n} tile", "{n} tiles", 3).format(n=3) == "3 Steine"
    assert _("the game is over") == "the game is over"
    with pytest.raises(ValueError, match="choose one of en, de"):
        set_language("fr")


SAMPLE_PARAMS = {"action": "Place()", "tile": "R11", "colours": "ROYGBP", "max_value": 11,
                 "seat": 1, "count": 2, "have": 1, "wanted": 2, "limit": 4, "lowest": "R9",
                 "colour": "red", "rows": "R, O", "size": 3, "pay": "B3", "paid": 3, "due": 5,
                 "name": "Bea"}


def test_every_refusal_reads_in_english_as_the_engine_says_and_in_german_translated() -> None:
    """Each rule code's templates (as the catalog found them in the engine), filled: in
    English exactly ``Refusal.reason``; in German another sentence, colour names too."""
    catalog = read_po(PO.open("rb"))
    engine_templates = [m for m in catalog
                        if m.id and any("engine/legal.py" in path for path, _l in m.locations)]
    assert len(engine_templates) >= len(RULE_CODES) - 4  # the table's own and bad_id aside
    for message in engine_templates:
        assert isinstance(message.id, str), message.id  # the engine's have no plural forms
        refused = Refusal("some_code", message.id, SAMPLE_PARAMS)
        assert refusal_text(refused) == refused.reason
        with speaking("de"):
            german = refusal_text(refused)
        assert german != refused.reason
        assert "red" not in german


def worded_templates() -> set[str]:
    """The templates the sources raise worded errors with (the first argument of each
    ``WORDED_KEYWORDS`` call; a page's marked words are no such call)."""
    return {message for file, message, _context in extract(dict.fromkeys(WORDED_KEYWORDS))
            if file.endswith(".py") and isinstance(message, str)}


def test_every_worded_error_reads_in_english_as_raised_and_in_german_translated() -> None:
    """A file that is no record (``RecordError``), rules that make no game
    (``RulesError``): the same template in English, another sentence in German, the JSON
    type named in German too, and the words for every JSON type are there."""
    assert set(JSON_TYPE_WORDS) == set(JSON_TYPE_NAMES.values())
    templates = [template for template in worded_templates()
                 if "{text}" not in template]  # (notation errors: test_actions_text.py)
    assert len(templates) >= 65
    for template in templates:
        assert isinstance(template, str)
        error = WordedError(template, WORDED_PARAMS)
        assert error_text(error) == str(error) == template.format_map(WORDED_PARAMS)
        with speaking("de"):
            german = error_text(error)
        if template not in ("'rules': {problem}", "{problem}"):  # (English words given)
            assert german != str(error)
        assert "a list" not in german
    with speaking("de"):
        assert error_text(NoReturnError("plain")) == "plain"  # not worded: as it is


WORDED_PARAMS = {"path": Path("games/x.json"), "folder": Path("games"), "found": "a list",
                 "wanted": "'no-return-record'", "problem": "broken", "line": 1, "column": 2,
                 "size": 16, "key": "'format'", "keys": "format, version", "seats": 2,
                 "seat": 1, "field": "'start_player'", "last": 1, "form": "{}", "count": 2,
                 "event": 7, "name": "'Bea'", "low": 1, "high": 6, "tiles": 12, "dealt": 16,
                 "part": "'colours'", "length": "5,000", "asked": "sample_draw",
                 "who": "seat 0 is to act", "left": 3, "bag": 4, "weight": 0.0, "value": 3,
                 "other": 4, "spec": "'search:x=1'", "meaning":
                 "standard errors", "names": "Ada, Ada", "players": 3, "code": "E1",
                 "events": 9000, "most": 5000}


def test_rules_that_make_no_game_are_refused_in_the_players_language() -> None:
    """``--rules`` said its refusal in English under ``--lang de``; the known keys, a list
    the program makes, are named whole (a quoted value is cut at 60 characters)."""
    runner = CliRunner()
    said = {lang: " ".join(runner.invoke(app, ["--lang", lang, "play", "--rules",
                                               "colours=3"]).output.split())
            for lang in ("en", "de")}
    assert "unknown key 'colours'" in said["en"] and "unbekannter Schlüssel" in said["de"]
    for words in said.values():
        assert "hand_size, max_value, players" in words


@pytest.mark.parametrize(("args", "english", "german"), [
    (["--bots", "foo"], "no bot named 'foo'", "kein Bot namens 'foo'"),
    (["--bots", "easy,medium"], "2 bots for one bot seat", "2 Bots für einen Bot-Platz"),
    (["--bots", "search:time=0"], "give seconds of CPU a decision from 0.001",
     "gib CPU-Sekunden je Entscheidung von 0.001"),
    (["--seat-name", "Ada,Bo"], "2 names for one person", "2 Namen für eine Person"),
    (["--seat-name", "A" * 41], "at most 40 characters", "höchstens 40 Zeichen")])
def test_seats_and_bot_specs_are_refused_in_the_players_language(
        args: list[str], english: str, german: str) -> None:
    """``play --lang de --bots foo`` said "Fehler:" and then English words: the seats' and
    the bot specs' refusals are worded errors now, said in the player's language."""
    runner = CliRunner()
    said = {lang: " ".join(runner.invoke(app, ["--lang", lang, "play", *args])
                           .output.replace("│", " ").split())
            for lang in ("en", "de")}
    assert english in said["en"], said["en"]
    assert german in said["de"] and english not in said["de"], said["de"]


@pytest.mark.parametrize("text", ["", '{"a" 1}', '[1 2]', "{a: 1}", '"abc', '"a\x01"',
                                  '"\\q"', '"\\u12"', "{} x", "[1,]"])
def test_a_text_that_is_no_json_is_said_in_the_readers_language(text: str) -> None:
    """Python's own words for what is wrong with JSON were spliced into the German sentence
    (and "Invalid control character at" read "at at line 1"): each is in the catalog."""
    with pytest.raises(RecordError) as caught:
        parse_record(text)
    problem = str(caught.value.params["problem"])
    assert problem in JSON_PROBLEMS and " at at " not in str(caught.value)
    with speaking("de"):
        german = error_text(caught.value)
    assert german.startswith("kein JSON: ") and problem not in german, german


def test_a_refusal_names_the_colour_in_german() -> None:
    refused = Refusal("empty_row", "you have no {colour} row to score", {"colour": "green"})
    with speaking("de"):
        assert refusal_text(refused) == "du hast keine Reihe Grün zum Werten"


SHOWN = re.compile(r'''(?:\btext|"aria-label"|\btitle|\bplaceholder|\blabel)\s*:\s*'''
                   r'''(?:[^,{}]*\?\s*)?(["`])([^"`]*)\1''')
"""A literal a browser page shows (an element's text, an aria-label, a title, a
placeholder, a move's label), possibly after a ``cond ?``: it must go through ``_()``."""


def untranslated_literals(source: str) -> list[str]:
    """The sentences ``source`` shows as bare literals (two words or more: a class name or
    an action code such as ``"pass"`` is one word)."""
    return [m.group(2) for m in SHOWN.finditer(source)
            if re.search(r"[A-Za-z]{2,}\s+[A-Za-z]{2,}", m.group(2))]


def test_the_untranslated_literal_finder_finds_them() -> None:
    assert untranslated_literals('h("li", { text: "No tables yet: create one." })') == [
        "No tables yet: create one."]
    assert untranslated_literals('{ text: turn ? "Tap tiles to select." : "" }') == [
        "Tap tiles to select."]
    assert untranslated_literals('h("b", { "aria-label": "Dismiss this" })') == ["Dismiss this"]
    assert untranslated_literals('{ text: _("Seat {n}", { n }), kind: "pass" }') == []
    assert untranslated_literals('h("span", { class: "badge st-lobby" })') == []


def test_every_sentence_the_pages_show_is_translated() -> None:
    """A sentence written as a bare literal in a page's script would read in English on a
    German page, and the catalog test above cannot see it (it is not extracted)."""
    found = {path.name: untranslated_literals(path.read_text(encoding="utf-8"))
             for path in sorted((PACKAGE / "server" / "static").glob("*.js"))}
    assert {name: words for name, words in found.items() if words} == {}


def test_the_languages_on_offer_are_one_list_everywhere() -> None:
    """The type the server checks requests against, the names a language switch shows, the
    command line's ``--lang`` choices and the catalogs shipped all name the same languages:
    a language added in one place only would be offered and then fail (or never offered)."""
    codes = set(get_args(LanguageCode))
    assert codes == set(LANGUAGES) == {lang.value for lang in Lang}
    shipped = {path.parent.parent.name for path in LOCALE_DIR.glob("*/LC_MESSAGES/*.mo")}
    assert shipped | {DEFAULT} == codes


@pytest.mark.parametrize(("argv", "expected"), [
    (["play", "--lang", "de"], "de"), (["--lang=de", "tournament"], "de"),
    (["play", "--lang", "xx"], "en"), (["play", "--lang"], "en"), (["play"], "en"), ([], "en"),
])
def test_the_command_line_language_is_read_before_any_help(argv: list[str],
                                                           expected: str) -> None:
    """``--lang`` anywhere, else the terminal's: here an English LANG."""
    assert from_command_line(argv, {"LANG": "en_GB.UTF-8"}) == expected


def test_without_lang_on_the_command_line_the_terminal_decides() -> None:
    assert from_command_line(["play"], {"LANG": "de_DE.UTF-8"}) == "de"
    assert from_command_line(["play", "--language", "de"], {"LANG": "en_GB.UTF-8"}) == "en"


PLAYERS_COMMANDS = {
    "play": "Play against bots (or friends, --hotseat) full screen, or with plain prompts; "
            "--resume [RECORD] goes on with a saved game.",
    "tutorial": "A guided first game: each move explained when it comes, against the easy bot.",
    "replay": "Tell a recorded game turn by turn, with the table after each turn.",
    "history": "Your local games: results by the bots you faced, and a plot over time.",
    "review": "Judge every decision of a recorded game from what its seat knew: the best move "
              "found, the points lost, a label; per seat accuracy, luck and the switch window.",
}


@pytest.mark.parametrize("command", sorted(PLAYERS_COMMANDS))
def test_the_help_of_a_players_command_is_in_the_chosen_language(command: str) -> None:
    """The help is written when the command line is read, before any callback: the language
    comes from the command line itself (a real process, as a player starts it)."""
    german = translations("de").gettext(PLAYERS_COMMANDS[command])
    assert german != PLAYERS_COMMANDS[command]
    env = {**os.environ, "COLUMNS": "300", "LANG": "en_GB.UTF-8"}
    env.pop("LANGUAGE", None)
    env.pop("LC_ALL", None)
    env.pop("LC_MESSAGES", None)
    shown = subprocess.run([sys.executable, "-m", "noreturn", "--lang", "de", command, "--help"],
                           capture_output=True, text=True, check=True, env=env).stdout
    assert german in shown
    shown = subprocess.run([sys.executable, "-m", "noreturn", command, "--help"],
                           capture_output=True, text=True, check=True, env=env).stdout
    assert PLAYERS_COMMANDS[command] in shown


def test_the_top_help_groups_the_commands_for_players_first() -> None:
    """``noreturn --help`` lists the commands in three panels, a player's first, each
    panel's title in the chosen language."""
    env = {**os.environ, "COLUMNS": "100", "LANG": "en_GB.UTF-8"}
    for lang, titles in (("en", ("Play", "Records", "Research")),
                         ("de", ("Spielen", "Aufzeichnungen", "Forschung"))):
        shown = subprocess.run([sys.executable, "-m", "noreturn", "--lang", lang, "--help"],
                               capture_output=True, text=True, check=True, env=env).stdout
        panels: dict[str, list[str]] = {}
        for line in shown.splitlines():
            if match := re.match(r"╭─ (\w+) ─", line):
                current = panels.setdefault(match.group(1), [])
            elif match := re.match(r"│ (\w+) ", line):
                current.append(match.group(1))
        assert list(panels) == ["Options", *titles]
        assert [panels[title] for title in titles] == [
            ["play", "tutorial", "history", "serve"], ["validate", "replay", "review"],
            ["simulate", "bench", "tournament", "compare", "study"]]


COMMANDS = [["play"], ["tutorial"], ["history"], ["serve"], ["validate"], ["replay"],
            ["review"], ["simulate"], ["bench"], ["tournament"], ["compare"],
            ["study", "switch"]]


@pytest.mark.parametrize("lang", ["en", "de"])
def test_every_commands_help_fits_80_columns_uncut(lang: str) -> None:
    """A word longer than its column was cut: ``heuristic,ismcts:tim…`` in tournament's
    help, ``postgresql://USER@HOST/…`` in serve's."""
    runner = CliRunner()
    for command in COMMANDS:
        result = runner.invoke(app, ["--lang", lang, *command, "--help"],
                               env={"COLUMNS": "80"})
        assert result.exit_code == 0, result.output
        lines = result.output.splitlines()
        assert "…" not in result.output and max(map(len, lines)) <= 80, (command, lang)
