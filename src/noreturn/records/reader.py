"""Reading a game record (docs/record-format.md, version 1) and checking that it is one.

Reading stops at the header: the format, the rules, the seats, the start player and the
shape of the result. Whether the events make a legal game is the validator's question
(``validate.py``), because it needs the engine to replay them. Keeping the two apart gives
two kinds of answers: a file that is not a record at all (``RecordError``), and a record of
a game that breaks a rule (an invalid ``Verdict``, naming the event).
"""

from __future__ import annotations

import json
import os
import stat
import zlib
from pathlib import Path
from typing import Any

from noreturn.engine import Rules, RulesError, WordedError, shortened
from noreturn.records.writer import FORMAT, VERSION, Record
from noreturn.text.lang import N_

REQUIRED_KEYS = ("format", "version", "rules", "players", "start_player", "events")
OPTIONAL_KEYS = ("meta", "result")
PLAYER_KINDS = ("human", "bot")
GZIP_MAGIC = b"\x1f\x8b"
"""The first two bytes of a gzip file (RFC 1952): records are often kept packed."""
MAX_RECORD_BYTES = 16 * 2**20
"""The largest file read as a record. The longest game of the largest rules (18,414 tiles
leaving one a turn) makes a few megabytes; a larger file is no record, and reading it
whole (or ``/dev/zero``, which never ends) would take the memory."""


class RecordError(WordedError):
    """A file that cannot be read, is not JSON, or is not a game record; one line, with a fix.

    Its English ``template`` and ``params`` let a front end say it in the reader's language
    (``noreturn.text.refusals.error_text``); a value quoted from the file is cut short.
    """


def read_record(source: str | os.PathLike[str]) -> Record:
    """The record held by a file, or given as JSON text, with its header checked.

    ``source`` is a path (``Path`` or ``str``), or JSON text: a ``str`` whose first
    non-blank character is ``{`` or ``[``, or that spans several lines, is taken as text.

    Raises:
        RecordError: the file cannot be read, is not JSON, or is not a record.
    """
    if isinstance(source, str) and _looks_like_json(source):
        return parse_record(source)
    text = _read_text(Path(source))
    if not text.strip():
        raise RecordError("{path} is empty: a record is one JSON object (see "
                          "docs/record-format.md); was the game saved?", {"path": Path(source)})
    return parse_record(text)


def saved_files(folder: Path) -> list[Path]:
    """The ``*.json`` files in ``folder`` that are plain files: a scan of saved games skips a
    folder or a pipe named so (a pipe's writer could keep the scan waiting)."""
    return [path for path in folder.glob("*.json") if path.is_file()]


JSON_PROBLEMS = (N_("Expecting value"), N_("Expecting ':' delimiter"),
                 N_("Expecting ',' delimiter"),
                 N_("Expecting property name enclosed in double quotes"),
                 N_("Unterminated string starting"), N_("Invalid control character"),
                 N_("Invalid \\escape"), N_("Invalid \\uXXXX escape"), N_("Extra data"))
"""Python's words for what is wrong with a JSON text (``JSONDecodeError.msg``, a trailing
"at" cut), marked for the catalog: a player is told them in their language."""


def parse_record(text: str) -> Record:
    """The record written as JSON ``text``, with its header checked (see ``check_header``).

    Raises:
        RecordError: the text is not JSON or not a record.
    """
    try:
        data = json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_no_constant)
    except json.JSONDecodeError as error:
        raise RecordError(
            "not JSON: {problem} at line {line} column {column}; a record is one JSON object "
            "(see docs/record-format.md)",
            {"problem": error.msg.removesuffix(" at"),  # ("... character at at line 1")
             "line": error.lineno, "column": error.colno},
        ) from None
    except RecursionError:
        raise RecordError("not readable JSON: nested too deeply for a record") from None
    except RecordError:  # a key twice, or NaN (the hooks above): said as it is
        raise
    except ValueError:  # Python refuses integers of thousands of digits
        raise RecordError("not readable JSON: a number with too many digits for a record") \
            from None
    check_header(data)
    return data  # type: ignore[no-any-return]  # check_header proved it is a record object


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are all different: with a key twice, one reader keeps the
    first value and another the last, so the same file would be two different games."""
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data:
            raise RecordError("not a record: the key {key} appears twice in one object; "
                              "keep one", {"key": shortened(repr(key))})
        data[key] = value
    return data


def _no_constant(name: str) -> Any:
    """Refuse ``NaN`` and ``Infinity``, which Python's reader takes but JSON has not."""
    raise RecordError("not JSON: {name} is no JSON value; write a number",
                      {"name": name})


def check_header(data: Any) -> Rules:
    """Check everything of a record but its events; return its rules.

    Raises:
        RecordError: what is wrong, and how to put it right.
    """
    if not isinstance(data, dict):
        raise RecordError("not a record: a record is a JSON object, not {found}",
                          {"found": _json_type(data)})
    _check_keys(data)
    if data["format"] != FORMAT:
        raise RecordError("not a record: 'format' is {found}; it must be {wanted}",
                          {"found": repr(data["format"]), "wanted": repr(FORMAT)})
    if not _is_int(data["version"]) or data["version"] != VERSION:
        raise RecordError("unsupported record version {found}: this program reads version "
                          "{wanted}", {"found": repr(data["version"]), "wanted": VERSION})
    rules = _rules(data["rules"])
    _check_players(data["players"], rules)
    _check_seat_field(data["start_player"], "'start_player'", rules)
    if not isinstance(data["events"], list):
        raise RecordError("'events' must be a list of events, not {found}",
                          {"found": _json_type(data["events"])})
    if "meta" in data and not isinstance(data["meta"], dict):
        raise RecordError("'meta' must be a JSON object, not {found}",
                          {"found": _json_type(data["meta"])})
    if "result" in data:
        _check_result_shape(data["result"], rules)
    return rules


def _read_text(path: Path) -> str:
    """The file's text, read at most ``MAX_RECORD_BYTES`` far (``RecordError`` beyond); a
    pipe (``replay <(zcat game.json.gz)``) is read as it comes, a gzip file unpacked."""
    try:
        # Opened without waiting: a named pipe would block the open (and the reader) until
        # someone writes into it, which may be never. Once open, a pipe is read as it comes:
        # with no writer left it reads as empty at once.
        with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as file:
            pipe = stat.S_ISFIFO(os.fstat(file.fileno()).st_mode)
            os.set_blocking(file.fileno(), True)
            data = file.read(MAX_RECORD_BYTES + 1)
        if pipe and not data:
            raise RecordError("cannot read {path}: it is a pipe and nothing was written into "
                              "it; start its writer first, or name a record file",
                              {"path": path})
        if data[:2] == GZIP_MAGIC:
            data = _unpacked(data, path)
        if len(data) > MAX_RECORD_BYTES:
            raise RecordError("cannot read {path}: it is larger than {size} MB, and no "
                              "game record is; name a record file",
                              {"path": path, "size": MAX_RECORD_BYTES // 2**20})
        return data.decode("utf-8-sig")  # a byte order mark, as some editors write, is no text
    except FileNotFoundError:
        raise RecordError("cannot read {path}: no such file; check the path",
                          {"path": path}) from None
    except IsADirectoryError:
        raise RecordError("cannot read {path}: it is a folder; name a record file",
                          {"path": path}) from None
    except UnicodeDecodeError:
        raise RecordError("cannot read {path}: not UTF-8 text; a record is JSON text",
                          {"path": path}) from None
    except OSError as error:
        raise RecordError("cannot read {path}: {problem}",
                          {"path": path, "problem": error.strerror or str(error)}) from None


def _unpacked(data: bytes, path: Path) -> bytes:
    """A gzip file's content, unpacked no further than one byte past ``MAX_RECORD_BYTES``:
    a few kilobytes can unpack to gigabytes."""
    unpacker = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        unpacked = unpacker.decompress(data, MAX_RECORD_BYTES + 1)
    except zlib.error:  # damaged on the way
        unpacked = b""
        broken = True
    else:  # or cut short: the stream ends before its end, with nothing held back
        broken = not unpacker.eof and not unpacker.unconsumed_tail
    if broken:
        raise RecordError("cannot read {path}: it starts as a gzip file but does not unpack; "
                          "is it whole?", {"path": path})
    return unpacked  # (cut at the limit, if it was beyond: the caller says so)


def _looks_like_json(text: str) -> bool:
    stripped = text.lstrip()
    return stripped[:1] in ("{", "[") or "\n" in stripped


def _check_keys(data: dict[str, Any]) -> None:
    missing = [key for key in REQUIRED_KEYS if key not in data]
    if missing:
        raise RecordError("not a record: the key {key} is missing; a record needs {keys}",
                          {"key": repr(missing[0]), "keys": ", ".join(REQUIRED_KEYS)})
    allowed = REQUIRED_KEYS + OPTIONAL_KEYS
    unknown = sorted(key for key in data if key not in allowed)
    if unknown:
        raise RecordError("unknown top-level key {key}: a record holds only {keys}; move "
                          "other data into 'meta'",
                          {"key": repr(unknown[0]), "keys": ", ".join(allowed)})


def _rules(data: Any) -> Rules:
    if not isinstance(data, dict):
        raise RecordError("'rules' must be an object such as {{\"players\": 2}}, not {found}",
                          {"found": _json_type(data)})
    try:
        return Rules.from_dict(data)
    except RulesError as error:  # "rules: ...", said in the reader's language too
        raise RecordError(error.template, error.params) from None
    except TypeError as error:
        raise RecordError("'rules': {problem}", {"problem": str(error)}) from None


def _check_players(players: Any, rules: Rules) -> None:
    if not isinstance(players, list) or len(players) != rules.players:
        count = len(players) if isinstance(players, list) else _json_type(players)
        raise RecordError("'players' must list one object per seat ({seats}, as "
                          "rules.players says), not {found}",
                          {"seats": rules.players, "found": count})
    for seat, player in enumerate(players):
        if not isinstance(player, dict):
            raise RecordError("players[{seat}] must be an object such as "
                              "{{\"name\": \"Ada\", \"kind\": \"human\"}}", {"seat": seat})
        if not isinstance(player.get("name"), str):
            raise RecordError("players[{seat}] needs a 'name' that is text", {"seat": seat})
        if player.get("kind") not in PLAYER_KINDS:
            raise RecordError("players[{seat}]: 'kind' must be \"human\" or \"bot\", not "
                              "{found}", {"seat": seat, "found": repr(player.get("kind"))})


def _check_seat_field(value: Any, what: str, rules: Rules) -> None:
    if not _is_int(value) or not 0 <= value < rules.players:
        raise RecordError("{field} must be a seat number from 0 to {last}, not {found}",
                          {"field": what, "last": rules.players - 1, "found": repr(value)})


def _check_result_shape(result: Any, rules: Rules) -> None:
    form = '{"scores": [...], "ranks": [...]}'
    if not isinstance(result, dict) or sorted(result) != ["ranks", "scores"]:
        raise RecordError("'result' must be an object {form} and nothing else",
                          {"form": form})
    for key in ("scores", "ranks"):
        values = result[key]
        if not isinstance(values, list) or len(values) != rules.players or not all(
            _is_int(v) for v in values
        ):
            raise RecordError("result.{key} must list {count} whole numbers, one per seat",
                              {"key": key, "count": rules.players})


def _is_int(value: Any) -> bool:
    """Whether ``value`` is a JSON whole number (``True`` is not one, though Python says so)."""
    return type(value) is int


JSON_TYPE_NAMES = {dict: "an object", list: "a list", str: "text", bool: "true/false",
                   int: "a number", float: "a number", type(None): "null"}
"""What each JSON type is called in an error (a front end translates these words)."""


def _json_type(value: Any) -> str:
    return JSON_TYPE_NAMES.get(type(value), type(value).__name__)
