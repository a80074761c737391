"""The ``perfline/*`` requests (``docs/api.md``): answered by the connection's view, which
maps analysis lines to the lines the client has now; API errors become JSON-RPC errors.

The slow ones and those that may wait (``api.THREADED_METHODS``: the report page; with
``wait`` a comparison, by default a baseline write, to finish) are answered on a worker
thread, so the connection keeps serving hints and hovers meanwhile."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcException

from perfline.server import api
from perfline.server.lsp.features import Feature

if TYPE_CHECKING:
    from perfline.server.lsp.connection import PerflineServer


def answer(ls: PerflineServer, method: str, params: Any) -> Any:
    try:
        return ls.view.request(method, params)
    except api.ApiError as error:
        raise JsonRpcException(error.message, code=error.code, data=error.data) from None


def _handler(method: str) -> Any:
    def handle(ls: PerflineServer, params: Any) -> Any:
        return answer(ls, method, params)

    async def handle_in_thread(ls: PerflineServer, params: Any) -> Any:
        return await asyncio.to_thread(answer, ls, method, params)

    return handle_in_thread if method in api.THREADED_METHODS else handle


FEATURES = tuple(Feature(method, _handler(method)) for method in api.METHODS)
