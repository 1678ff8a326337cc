"""docs/server-protocol.md against the message models: one truth for what a client sends.

Every client message type the server reads (``messages.CLIENT_MODELS``) is documented,
every documented one has a model, each documented example is a message the models accept,
and each field a model reads appears in its documented example. A refusal keeps the words
the protocol has always used, never the validator's.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from noreturn.engine import RULE_CODES
from noreturn.server.errors import BadRequestError
from noreturn.server.messages import (
    CLIENT_MESSAGE,
    CLIENT_MODELS,
    ActionMessage,
    Hello,
    parse_message,
    read_message,
)

PROTOCOL = Path(__file__).resolve().parents[2] / "docs" / "server-protocol.md"
EXAMPLE = re.compile(r"`(\{\"type\": [^`]*\})`")
HELLO = re.compile(r"`(\{\"type\": \"hello\"[^`]*\})`")


def _client_examples() -> list[dict[str, object]]:
    """The client messages the protocol shows: the hellos (in the prose that opens the
    WebSocket section, beside the server's answers), then the client table's rows."""
    text = PROTOCOL.read_text(encoding="utf-8")
    hello = text[text.index("The first message a client sends"):text.index("Client → server")]
    table = text[text.index("Client → server"):text.index("Server → client:")]
    rows = [line for line in table.splitlines() if line.startswith("| `{")]
    found = HELLO.findall(hello) + [EXAMPLE.search(row).group(1)  # type: ignore[union-attr]
                                      for row in rows]
    return [json.loads(example) for example in found]


def test_every_client_message_type_is_documented_and_every_documented_one_has_a_model() -> None:
    documented = {str(example["type"]) for example in _client_examples()}
    assert documented == set(CLIENT_MODELS), documented ^ set(CLIENT_MODELS)


@pytest.mark.parametrize("example", _client_examples(), ids=lambda e: str(e["type"]))
def test_each_documented_example_is_read_by_its_model_and_shows_its_fields(
        example: dict[str, object]) -> None:
    message = CLIENT_MESSAGE.validate_python(example)
    model = CLIENT_MODELS[str(example["type"])]
    assert type(message) is model
    shown = {key for e in _client_examples() if e["type"] == example["type"] for key in e}
    assert set(model.model_fields) <= shown, set(model.model_fields) - shown


@pytest.mark.parametrize(("data", "message"), [
    ({"type": "action", "version": 3},
     '"action" needs "action": a string, e.g. "action": "place R5 R2"'),
    ({"type": "action", "action": "pass", "version": True},
     '"action" needs "version": a whole number, e.g. "version": 12'),
    ({"type": "action", "action": "pass", "version": 3.0},
     '"action" needs "version": a whole number, e.g. "version": 12'),
    ({"type": "check", "action": ["pass"]},
     '"check" needs "action": a string, e.g. "action": "place R5 R2"'),
    ({"type": "hello", "token": None}, '"hello" needs "token": a string, e.g. "token": ...'),
    ({"type": "hello", "lang": "xx"}, '"hello" needs "lang": "en" or "de"'),
    ({"type": "hello", "lang": 3}, '"hello" needs "lang": "en" or "de"'),
    ({"type": "dance"},
     "unknown message type 'dance': use action, check, hint, switch, chat, undo or ping"),
])
def test_a_refusal_names_what_is_needed_in_the_protocols_words(
        data: dict[str, object], message: str) -> None:
    with pytest.raises(BadRequestError) as refused:
        read_message(data)
    assert refused.value.message == message and refused.value.code == "malformed"


def test_text_is_read_as_sent_keys_the_protocol_does_not_use_are_ignored() -> None:
    data = parse_message('{"type": "action", "action": "\\ud800", "version": 10000000000000000'
                         '0000, "extra": {"a": 1}}')
    read = read_message(data)
    assert isinstance(read, ActionMessage)
    assert (read.action, read.version) == ("\ud800", 100000000000000000000)
    assert read_message({"type": "hello"}) == Hello(type="hello")


def test_the_rule_codes_listed_are_the_engines() -> None:
    text = PROTOCOL.read_text(encoding="utf-8")
    section = text[text.index("### Rule codes"):text.index("## When the database fails")]
    listed = re.findall(r"^\| `([a-z_0-9]+)` \|", section, flags=re.M)
    assert listed == list(RULE_CODES), set(listed) ^ set(RULE_CODES)
    row = next(line for line in text.splitlines() if line.startswith('| `{"type": "error"'))
    assert '"rule": ' in row and "(see [Rule codes](#rule-codes))" in row
