"""One frame's body to a handled message, or to the JSON-RPC error it deserves.

``decode`` reads the body as strict JSON (UTF-8; no ``NaN``/``Infinity``; nesting and
integer sizes bounded, see ``core.json_codec.read_json_input``) and checks the envelope:
one JSON object (a batch array or a scalar is -32600), ``"jsonrpc": "2.0"``, a string
``method``, an integer or string ``id``, structured ``params``. ``dispatch`` then hands it
to the protocol: a request for a method nobody handles gets -32601 (with or without
params, ``perfline/`` or not), params that do not fit the method's type -32602, a request
after ``shutdown`` -32600; unknown notifications are dropped (logged at DEBUG). Every
client mistake is one INFO line, never a traceback. Cost: one JSON decode of the body
and one cattrs structuring, as pygls would do; nothing else per message.
"""

from __future__ import annotations

import logging
from typing import Any, Final

from perfline.core.errors import InputError
from perfline.core.json_codec import read_json_input
from perfline.server.lsp.protocol import MessageShapeError, PerflineProtocol, short

log = logging.getLogger(__name__)

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602

#: Notifications pygls handles outside its feature table.
_SPECIAL_NOTIFICATIONS: Final = frozenset({"$/cancelRequest"})


class Refusal:
    """The error a message gets instead of being handled (``msg_id``: ``None`` when it
    has no usable id)."""

    __slots__ = ("code", "message", "msg_id")

    def __init__(self, msg_id: Any, code: int, message: str) -> None:
        self.msg_id = msg_id
        self.code = code
        self.message = message


def decode(body: bytes) -> dict[str, Any] | Refusal:
    """The checked JSON-RPC object of a body, or the refusal it deserves."""
    try:
        message = read_json_input(body, "the message")
    except InputError as error:
        return Refusal(None, PARSE_ERROR, f"parse error: {error.problems[0]}")
    if isinstance(message, list):
        return Refusal(
            None, INVALID_REQUEST, "batch requests are not supported: send one JSON object a frame"
        )
    if not isinstance(message, dict):
        return Refusal(
            None, INVALID_REQUEST, f"a JSON-RPC message is a JSON object, not {_kind(message)}"
        )
    return _checked(message)


def _checked(message: dict[str, Any]) -> dict[str, Any] | Refusal:
    msg_id = message.get("id")
    usable_id = msg_id if _valid_id(msg_id) else None
    if "id" in message and not _valid_id(msg_id):
        return Refusal(None, INVALID_REQUEST, "'id' must be an integer or a string")
    if message.get("jsonrpc") != "2.0":
        return Refusal(usable_id, INVALID_REQUEST, "'jsonrpc' must be \"2.0\"")
    if "method" in message:
        if not isinstance(message["method"], str) or not message["method"]:
            return Refusal(usable_id, INVALID_REQUEST, "'method' must be a non-empty string")
        params = message.get("params")
        if params is not None and not isinstance(params, dict | list):
            return Refusal(usable_id, INVALID_PARAMS, "params must be a JSON object or array")
        return message
    if "id" not in message or ("result" in message) == ("error" in message):
        return Refusal(
            usable_id,
            INVALID_REQUEST,
            "a message needs a 'method' (request, notification) or an 'id' with one of "
            "'result' and 'error' (response)",
        )
    return message


def dispatch(protocol: PerflineProtocol, message: dict[str, Any]) -> Refusal | None:
    """Hand a checked message to the protocol; the refusal to send if it cannot be."""
    method = message.get("method")
    request = method is not None and "id" in message
    if method is not None and not protocol.knows(method):
        if method in _SPECIAL_NOTIFICATIONS and not request:
            pass
        elif request:
            log.info("unknown method %r (request %s)", short(method), message["id"])
            return Refusal(message["id"], METHOD_NOT_FOUND, f"Method Not Found: {short(method)}")
        else:
            log.debug("ignoring the notification %r (no handler)", short(method))
            return None
    if request and protocol._shutdown and method != "exit":
        return Refusal(message["id"], INVALID_REQUEST, "the server is shutting down")
    try:
        structured = protocol.structure_message(message)
    except MessageShapeError as error:
        where = f"for {short(method)}" if method else "in the response"
        log.info("invalid params %s: %s", where, error)
        if not request:
            return None  # notifications and responses get no answer
        return Refusal(message["id"], INVALID_PARAMS, f"invalid params {where}: {error}")
    protocol.handle_message(structured)
    return None


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, str):
        return "a string"
    return "a number"
