"""watchdog observer feeding file events into an engine.

Recursive on the workspace root. Events inside ignored folders (``.git``,
virtual environments, caches, perfline's output) are dropped here already;
a move reports both its source and its destination, so temp-file-then-rename
saves are seen as a change of the destination. The engine debounces; events
that end a write (a close after writing, a rename, a deletion, and folder
events) are reported as ``finished``, so a completed save is picked up after
the engine's short ``quick`` delay instead of the full debounce. A handler that
fails on an event logs it and keeps the observer thread alive.
"""

from __future__ import annotations

import logging
from typing import Any

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from perfline.server.scheduler.engine_facade import Engine
from perfline.server.workspace import is_ignored

log = logging.getLogger(__name__)

#: Event types after which the file's content is complete.
FINISHING_EVENTS = frozenset({"closed", "moved", "deleted"})


class _Handler(FileSystemEventHandler):
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def on_any_event(self, event: FileSystemEvent) -> None:
        try:
            self._forward(event)
        except Exception:  # no path may kill the observer thread
            log.exception("file event %r not handled", event)

    def _forward(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return
        paths = [event.src_path]
        dest = getattr(event, "dest_path", "")
        if dest:
            paths.append(dest)
        relevant = []
        for raw in paths:
            path = raw.decode() if isinstance(raw, bytes) else str(raw)
            rel = self.engine.relative(path)
            if rel is None or is_ignored(rel, self.engine.config.ignore):
                continue
            relevant.append(path)
        if relevant:
            finished = event.is_directory or event.event_type in FINISHING_EVENTS
            self.engine.notify_changed(relevant, finished=finished)


class Watcher:
    """Starts/stops one recursive watchdog observer on the engine's root."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._observer: Any = None

    def start(self) -> None:
        observer = Observer()
        observer.schedule(_Handler(self.engine), str(self.engine.root), recursive=True)
        observer.daemon = True
        observer.start()
        self._observer = observer
        log.info("watching %s", self.engine.root)

    def stop(self) -> None:
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=2)
            self._observer = None
