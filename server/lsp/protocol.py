"""The protocol class of a connection: message types, the shared daemon's ``exit``, and
the wire fast path (``wire.FastWire``).

``perfline/*`` requests keep their params a plain JSON object (``RawRequest``; unknown
``perfline/*`` methods get "method not found" from pygls). In a shared daemon (TCP or a
Unix socket) ``exit`` ends the connection only, never the process. No per-message cost
beyond pygls' own.
"""

from __future__ import annotations

from typing import Any

import attrs
from lsprotocol import types as t
from pygls.protocol import LanguageServerProtocol, lsp_method

from perfline.server import api
from perfline.server.lsp.wire import FastWire


@attrs.define
class RawRequest:
    """A ``perfline/*`` request whose params stay a plain JSON object."""

    id: Any
    method: str
    jsonrpc: str
    params: Any = None


class PerflineProtocol(FastWire, LanguageServerProtocol):
    """pygls' LSP protocol with perfline's message types and a connection-scoped exit."""

    #: Set by the connection: a shared daemon outlives each client's ``exit``.
    shared = False

    def get_message_type(self, method: str) -> Any:  # type: ignore[override]
        if method.startswith("perfline/") and method != api.RESULT_CHANGED:
            return RawRequest
        return super().get_message_type(method)

    @lsp_method(t.EXIT)
    def lsp_exit(self, *args: Any) -> Any:
        if not self.shared:
            yield from super().lsp_exit(*args)
            return
        disconnect = getattr(self._server, "disconnect", None)
        if callable(disconnect):
            disconnect()
        yield from ()
