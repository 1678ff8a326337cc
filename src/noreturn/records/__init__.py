"""Game records (docs/record-format.md, version 1): write, read, validate, replay."""

from noreturn.records.reader import (
    RecordError,
    check_header,
    parse_record,
    read_record,
    saved_files,
)
from noreturn.records.validate import (
    EventError,
    Move,
    Step,
    Verdict,
    check_record,
    event_move,
    replay_record,
    replay_states,
)
from noreturn.records.writer import (
    FORMAT,
    VERSION,
    Record,
    RecordWriter,
    action_event,
    default_meta,
    default_players,
    dumps,
    write_record,
)

__all__ = [
    "FORMAT", "VERSION", "EventError", "Move", "Record", "RecordError", "RecordWriter",
    "Step", "Verdict", "action_event", "check_header", "check_record", "default_meta",
    "default_players", "dumps", "event_move", "parse_record", "read_record", "replay_record",
    "replay_states", "saved_files", "write_record",
]
