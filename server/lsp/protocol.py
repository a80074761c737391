"""The protocol class of a connection: message types, the shared daemon's ``exit``, the
wire fast path (``wire.FastWire``) and what is logged about failed requests.

``perfline/*`` requests keep their params a plain JSON object (``RawRequest``). In a
shared daemon (TCP or a Unix socket) ``exit`` ends the connection only, never the
process. Messages reach it already decoded and checked (``inbound``); a message whose
params do not fit its method's type raises ``MessageShapeError`` (the sender gets
-32602), never a logged traceback.

Logs: a request that fails because of the client (unknown job or entity, bad params, a
path outside the workspace: the JSON-RPC error codes of ``CLIENT_MISTAKES``) is one INFO
line without a traceback; anything else a handler raises is one ERROR line with its
traceback, and the client gets -32603 with a message that names no Python internals.
Overrides private methods of pygls' ``JsonRPCProtocol`` (``_handle_request``,
``_send_handler_result``, ``_check_handler_result``), pinned to ``wire.PYGLS_VERSION``
like the fast path (``tests/server/lsp/test_wire_pins.py``). No per-message cost beyond
pygls' own.
"""

from __future__ import annotations

import logging
from concurrent.futures import Future
from typing import Any

import attrs
from lsprotocol import types
from lsprotocol.types import ResponseErrorMessage
from pygls.exceptions import JsonRpcException, JsonRpcRequestCancelled
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.protocol.json_rpc import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
)

from perfline.server import api
from perfline.server.lsp.wire import FastWire

log = logging.getLogger(__name__)

INTERNAL_ERROR = -32603

#: JSON-RPC error codes that mean the request was wrong, not the daemon.
CLIENT_MISTAKES = frozenset(
    {-32700, -32600, -32601, -32602, -32800, -32001, -32002, -32003, -32004, -32005, -32006}
)


class MessageShapeError(ValueError):
    """A message whose fields do not fit the type of its method; the text says where."""


@attrs.define
class RawRequest:
    """A ``perfline/*`` request whose params stay a plain JSON object."""

    id: Any
    method: str
    jsonrpc: str
    params: Any = None


def short(text: str, limit: int = 120) -> str:
    """``text`` cut to ``limit`` characters (method names and ids echoed in logs and errors)."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


class PerflineProtocol(FastWire, LanguageServerProtocol):
    """pygls' LSP protocol with perfline's message types, a connection-scoped exit and
    quiet logs for client mistakes."""

    #: Set by the connection: a shared daemon outlives each client's ``exit``.
    shared = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._methods: dict[Any, str] = {}

    def get_message_type(self, method: str) -> Any:  # type: ignore[override]
        if method.startswith("perfline/") and method != api.RESULT_CHANGED:
            return RawRequest
        return super().get_message_type(method)

    def knows(self, method: str) -> bool:
        """Whether a request or notification ``method`` has a handler here."""
        return method in self.fm.builtin_features or method in self.fm.features

    def structure_message(self, data: dict[str, Any]) -> Any:
        """The typed message of a checked JSON-RPC object (``MessageShapeError`` if its
        params do not fit the method's type)."""
        if "method" in data:
            fallback = JsonRPCRequestMessage if "id" in data else JsonRPCNotification
            kind = self.get_message_type(data["method"]) or fallback
        elif "error" in data:
            kind = ResponseErrorMessage
        else:
            kind = self._result_types.pop(data["id"], None) or JsonRPCResponseMessage
        try:
            return self._converter.structure(data, kind)
        except Exception as error:
            raise MessageShapeError(_shape_problem(error)) from None

    @lsp_method(types.EXIT)
    def lsp_exit(self, *args: Any) -> Any:
        if not self.shared:
            yield from super().lsp_exit(*args)
            return
        disconnect = getattr(self._server, "disconnect", None)
        if callable(disconnect):
            disconnect()
        yield from ()

    # ------------------------------------------------------------------ logging

    def _handle_request(self, msg_id: Any, method_name: str, params: Any) -> None:
        self._methods[msg_id] = method_name
        super()._handle_request(msg_id, method_name, params)

    def _send_handler_result(self, future: Future[Any], *, msg_id: Any) -> None:
        self._request_futures.pop(msg_id, None)
        method = self._methods.pop(msg_id, "?")
        if future.cancelled():
            error = JsonRpcRequestCancelled(f'Request with id "{msg_id}" is canceled')
            self._send_response(msg_id, error=error.to_response_error())
            return
        failure = future.exception()
        if failure is None:
            self._send_response(msg_id, result=future.result())
            return
        if isinstance(failure, JsonRpcException) and failure.code in CLIENT_MISTAKES:
            log.info("%s (request %s): %s (%d)", short(method), msg_id, failure, failure.code)
            self._send_response(msg_id, error=failure.to_response_error())
            return
        log.error("%s (request %s) failed", short(method), msg_id, exc_info=failure)
        internal = JsonRpcException(
            f"internal error while handling {short(method)}; the daemon's log has the details",
            code=INTERNAL_ERROR,
        )
        self._send_response(msg_id, error=internal.to_response_error())

    def _check_handler_result(self, future: Future[Any]) -> None:
        if not future.cancelled() and (failure := future.exception()) is not None:
            log.error("a notification handler failed", exc_info=failure)


def _shape_problem(error: Exception) -> str:
    """Where a message did not fit its type, in cattrs' words (``$.params.position``...)."""
    try:
        from cattrs import transform_error

        found = transform_error(error, path="$")
    except Exception:
        found = []
    text = "; ".join(found[:3]) if found else str(error) or type(error).__name__
    return short(text, 300)
