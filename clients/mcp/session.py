"""The connection the MCP tools ask: a daemon of the workspace, else an in-process analysis.

Opened on the first tool call (an agent's ``initialize`` and ``tools/list`` never wait for an
analysis), then kept; an in-process one is opened again before ``reanalyze`` (``refresh``:
it has no file watcher). Requests are serialized by a lock (the SDK runs each synchronous
tool on a worker thread, and the daemon client is one socket). A broken ``perfline.toml`` is
refused with its problems, never analysed with another configuration. Cost: one connection,
or one in-process engine per ``reanalyze``.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from perfline.clients.cli._connect import Session, endpoint_from_options
from perfline.clients.rpc import Client, LocalSession, RpcError


class SessionError(Exception):
    """Why no session could be opened (one line for the agent)."""


class WorkspaceSession:
    """``request(method, params)`` against the daemon serving ``root`` or an in-process
    engine on it; ``tcp``/``socket_path`` name a daemon explicitly."""

    def __init__(self, root: Path, *, tcp: str | None = None, socket_path: str | None = None):
        self.root = root
        self._tcp = tcp
        self._socket = socket_path
        self._lock = threading.Lock()
        self._session: Session | None = None
        self.how = "not connected yet"

    def request(self, method: str, params: Any = None) -> Any:
        """The API's answer; ``RpcError`` and ``SessionError`` as they come."""
        with self._lock:
            if self._session is None:
                self._session, self.how = self._open()
            return self._session.request(method, params)

    def refresh(self) -> None:
        """Before ``reanalyze``: an in-process analysis has no file watcher, so it would
        still hold the inputs' old hashes (and rerun a job whose bytes differ from them without
        end); the next request opens a new one, which reads the workspace as it is now. A
        daemon watches the files: nothing to do."""
        with self._lock:
            if isinstance(self._session, LocalSession):
                self._session.close()
                self._session = None

    def close(self) -> None:
        with self._lock:
            if self._session is not None:
                self._session.close()
                self._session = None

    def _open(self) -> tuple[Session, str]:
        endpoint = endpoint_from_options(self._tcp, self._socket, self.root)
        if endpoint is not None:
            try:
                return Client.connect(endpoint), f"the daemon on {endpoint}"
            except (OSError, RpcError) as error:
                if self._tcp or self._socket:
                    raise SessionError(f"cannot use the daemon on {endpoint}: {error}") from None
        problem = _config_problem(self.root)
        if problem is not None:
            raise SessionError(problem)
        return LocalSession(self.root), "an in-process analysis"


def _config_problem(root: Path) -> str | None:
    """Every problem of ``root``'s ``perfline.toml``, or None when it is valid."""
    from perfline.server.jobs.registry import default_registry
    from perfline.server.workspace import load_config

    error = load_config(root, known_backends=list(default_registry())).error
    if error is None:
        return None
    return error.with_source(str(root / "perfline.toml")).render()
