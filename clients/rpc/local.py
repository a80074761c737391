"""The JSON-RPC methods answered in-process, without a daemon (one-shot CLI use).

Creates an engine on the workspace, analyses it once and answers requests
through the same ``perfline.server.api`` functions the daemon uses, so the
answers are identical.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from perfline.clients.rpc.client import RpcError


class LocalSession:
    """An engine on ``workspace``; ``request`` mirrors ``Client.request``."""

    def __init__(
        self, workspace: Path, *, timeout: float = 300.0, metric: str | None = None
    ) -> None:
        from perfline.server.engine import Engine

        self.engine = Engine(workspace, debounce=0.0, settle=0.0, metric=metric)
        self.engine.start()
        if not self.engine.wait_idle(timeout):
            raise RpcError(-32099, f"the analysis of {workspace} did not finish in {timeout} s")

    def request(self, method: str, params: Any = None) -> Any:
        from perfline.server import api

        handler = api.METHODS.get(method)
        if handler is None:
            raise RpcError(-32601, f"unknown method {method!r}; known: {', '.join(api.METHODS)}")
        try:
            return handler(self.engine, params)
        except api.ApiError as error:
            raise RpcError(error.code, error.message, error.data) from None

    def close(self) -> None:
        self.engine.close()

    def __enter__(self) -> LocalSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
