"""The engine host: one engine per workspace, the file watcher, shared by connections.

In stdio mode the workspace is the one the editor names in ``initialize``
(else the current directory) and the engine is created then; a shared daemon
(``--tcp`` / ``--socket``) creates it up front. File events come either from
watchdog or from the client's ``workspace/didChangeWatchedFiles`` - the host
makes sure only one of the two feeds the engine (``use_client_events``
stops watchdog; a shared daemon always uses watchdog, since several clients
could otherwise report the same event). The user settings that bound what the engine
reads (size limits per input kind, extra allowed roots) come in here, from the command
line or the client's settings, never from the workspace.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from pathlib import Path

from perfline.server.scheduler.bounded_reads import InputLimits
from perfline.server.scheduler.engine_facade import Engine
from perfline.server.watcher import Watcher

log = logging.getLogger(__name__)


class EngineHost:
    """Owns the engine and its watcher for the life of the process."""

    def __init__(
        self,
        root: Path | None = None,
        *,
        shared: bool = False,
        debounce: float = 0.05,
        settle: float = 0.3,
        metric: str | None = None,
        limits: InputLimits | None = None,
        allowed_roots: Sequence[Path] = (),
    ) -> None:
        self.shared = shared
        self._root = root
        self._engine: Engine | None = None
        self._watcher: Watcher | None = None
        self._lock = threading.Lock()
        self._debounce = debounce
        self._settle = settle
        self._metric = metric
        self._limits = limits
        self._allowed_roots = tuple(allowed_roots)
        self.client_events = False

    def engine(self, root: Path | None = None) -> Engine:
        """The engine, created (and started) on first use for ``root`` or the default root."""
        with self._lock:
            if self._engine is None:
                chosen = (self._root or root or Path.cwd()).resolve()
                self._engine = Engine(
                    chosen,
                    debounce=self._debounce,
                    settle=self._settle,
                    metric=self._metric,
                    limits=self._limits,
                    allowed_roots=self._allowed_roots,
                )
                self._engine.start()
            return self._engine

    @property
    def started(self) -> bool:
        return self._engine is not None

    def start_watchdog(self) -> None:
        engine = self.engine()
        with self._lock:
            if self._watcher is None and not self.client_events:
                self._watcher = Watcher(engine)
                self._watcher.start()

    def use_client_events(self) -> bool:
        """Switch to the client's file events (stdio only); False for a shared daemon."""
        if self.shared:
            return False
        with self._lock:
            self.client_events = True
            if self._watcher is not None:
                self._watcher.stop()
                self._watcher = None
        return True

    def close(self) -> None:
        with self._lock:
            if self._watcher is not None:
                self._watcher.stop()
                self._watcher = None
            if self._engine is not None:
                self._engine.close()
