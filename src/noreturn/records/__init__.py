"""Game records (RECORD.md version 1): write, read, validate, replay."""

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
    "FORMAT", "VERSION", "Record", "RecordWriter", "action_event", "default_meta",
    "default_players", "dumps", "write_record",
]
