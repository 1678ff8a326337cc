"""The WebSocket messages a client sends, as typed models, and how their text is read.

A client message is one JSON object with a ``type`` (docs/server-protocol.md). Its text is
checked before it is parsed: its length (``too_large``) and its nesting (a parser recurses
per level), then parsed, then validated by ``CLIENT_MESSAGE``: pydantic models
discriminated by ``type``, so a handler gets a typed message whose fields are there and of
their type. A message that fails gets the same ``malformed`` error it always got, naming
the field it needs (``needs``), never pydantic's wording. Keys the protocol does not use
are ignored, as they always were.

The protocol table in docs/server-protocol.md is checked against ``CLIENT_MODELS`` by a
test: every type accepted here is documented there, and every documented one is here.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, ClassVar, Literal, get_args, get_origin

import orjson
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from noreturn.server.errors import BadRequestError
from noreturn.server.limits import check_depth, check_size
from noreturn.text.lang import LanguageCode

KINDS = {str: "a string", int: "a whole number"}
"""How a field's type is named in an error (a bool is not a whole number here)."""


class ClientMessage(BaseModel):
    """A message from a client; ``seat_only``: refused to a spectator by its type alone,
    before its fields are read (a spectator's check or hint never costs a lookup)."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    seat_only: ClassVar[bool] = False


class Hello(ClientMessage):
    """The first message: a seat's token, or none to watch."""

    type: Literal["hello"]
    token: str | None = Field(default=None, strict=True,
                              description="the seat token of the seat link; left out: watch")
    lang: LanguageCode = Field(
        default="en", description="the language of the log, the result and the reasons "
                                  "sent to this connection")

    @field_validator("token", mode="before")
    @classmethod
    def _given_is_text(cls, value: Any) -> Any:
        """A token given is text: ``null`` is a client's bug (leave the key out to watch)."""
        if value is None:
            raise ValueError("a token given must be text")
        return value


class ActionMessage(ClientMessage):
    """Play an action against the state version the client saw."""

    type: Literal["action"]
    action: str = Field(strict=True, examples=["place R5 R2"],
                        description="the action's text form, as in records")
    version: int = Field(strict=True, examples=[12],
                         description="the version of the state the action was chosen on")


class CheckMessage(ClientMessage):
    """Whether an action is legal now (off turn: never judged)."""

    seat_only: ClassVar[bool] = True
    type: Literal["check"]
    action: str = Field(strict=True, examples=["place R5 R2"],
                        description="the action's text form, as in records")


class HintMessage(ClientMessage):
    """A suggested action for this seat on its turn."""

    seat_only: ClassVar[bool] = True
    type: Literal["hint"]


class SwitchMessage(ClientMessage):
    """The switch advisor on this seat's phase-1 turn: declare now, or wait."""

    seat_only: ClassVar[bool] = True
    type: Literal["switch"]


class ChatMessage(ClientMessage):
    """A line in the table's chat (plain text; spectators read it, only seats write)."""

    seat_only: ClassVar[bool] = True
    type: Literal["chat"]
    text: str = Field(strict=True, examples=["good luck!"],
                      description="the message, at most 300 characters of plain text")


class UndoMessage(ClientMessage):
    """Take back this seat's last turn (every other seat a bot)."""

    seat_only: ClassVar[bool] = True
    type: Literal["undo"]
    version: int = Field(strict=True, examples=[12],
                         description="the version of the state the take-back was asked on")


class PingMessage(ClientMessage):
    """Keep the connection alive: answered with ``pong``."""

    type: Literal["ping"]


AnyClientMessage = Annotated[
    Hello | ActionMessage | CheckMessage | HintMessage | SwitchMessage | ChatMessage
    | UndoMessage | PingMessage,
    Field(discriminator="type")]
CLIENT_MESSAGE: TypeAdapter[AnyClientMessage] = TypeAdapter(AnyClientMessage)
"""Validates a parsed client message into its model, chosen by its ``type``."""
CLIENT_MODELS: dict[str, type[ClientMessage]] = {
    model.model_fields["type"].annotation.__args__[0]: model  # type: ignore[union-attr]
    for model in (Hello, ActionMessage, CheckMessage, HintMessage, SwitchMessage, ChatMessage,
                  UndoMessage, PingMessage)}
"""Each client message type and its model."""
PLAY_TYPES = tuple(kind for kind in CLIENT_MODELS if kind != "hello")
"""The types a client may send after its hello."""


def encode(message: dict[str, Any]) -> str:
    """A server message as JSON text.

    orjson writes a state message (some 6 KB: the mover's legal actions, the view, the log)
    in a tenth of the time of the standard library (measured: 5 against 57 µs), and the
    server writes one for every connection at every move. What orjson refuses (a lone
    surrogate from a client's text, echoed in an error or a check answer) the standard
    library writes escaped, as before.
    """
    try:
        return orjson.dumps(message).decode()
    except TypeError:
        return json.dumps(message)


def error_message(code: str, message: str, rule: str | None = None) -> dict[str, Any]:
    """A server ``error`` message; ``rule``: an illegal action's rule code (the key is left
    out otherwise, so every other error reads as it always did)."""
    error: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if rule is not None:
        error["rule"] = rule
    return error


def parse_message(text: str) -> dict[str, Any]:
    """A client message as a dict with a string ``type`` (its fields not read yet).

    Raises:
        BadRequestError: not JSON, not an object or without a string ``type``;
            ``TooLargeError`` (code ``too_large``) over MAX_MESSAGE characters; nested
            deeper than MAX_DEPTH (checked before parsing: a parser recurses per level).
    """
    check_size(text)
    check_depth(text)
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise BadRequestError(f"not JSON ({exc.args[0] if exc.args else exc}): send an object "
                              'such as {"type": "ping"}') from exc
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise BadRequestError('a message is a JSON object with a "type": hello, action, check, '
                              "hint, switch, chat, undo or ping")
    return data


def unknown_type(kind: str) -> BadRequestError:
    """The refusal of a message type the protocol does not have (after the hello)."""
    return BadRequestError(f"unknown message type {kind[:40]!r}: use {', '.join(PLAY_TYPES[:-1])}"
                           f" or {PLAY_TYPES[-1]}")


def needs(kind: str, key: str) -> BadRequestError:
    """The refusal of a ``kind`` message whose ``key`` is missing or of another type: what
    it needs, with an example (the field's own, from its model)."""
    field = CLIENT_MODELS[kind].model_fields[key]
    if get_origin(field.annotation) is Literal:  # a choice: name every value
        values = [json.dumps(value) for value in get_args(field.annotation)]
        return BadRequestError(f'"{kind}" needs "{key}": {", ".join(values[:-1])} or '
                               f'{values[-1]}')
    name = next((text for t, text in KINDS.items() if t is field.annotation
                 or t in getattr(field.annotation, "__args__", ())), "a value")
    example = json.dumps(field.examples[0]) if field.examples else "..."
    return BadRequestError(f'"{kind}" needs "{key}": {name}, e.g. "{key}": {example}')


def read_message(data: dict[str, Any]) -> ClientMessage:
    """The typed message of a parsed one (``parse_message``).

    Raises:
        BadRequestError: an unknown type, or a field missing or of another type (the
            first in the model's order is named).
    """
    try:
        message: ClientMessage = CLIENT_MESSAGE.validate_python(data)
    except ValidationError as exc:
        first = exc.errors()[0]["loc"]
        if len(first) < 2:
            raise unknown_type(str(data["type"])) from None
        raise needs(str(data["type"]), str(first[1])) from None
    return message


__all__ = [
    "CLIENT_MESSAGE", "CLIENT_MODELS", "PLAY_TYPES", "ActionMessage", "ChatMessage",
    "CheckMessage", "ClientMessage", "Hello", "HintMessage", "PingMessage", "SwitchMessage",
    "UndoMessage", "encode",
    "needs", "parse_message", "read_message", "unknown_type",
]
