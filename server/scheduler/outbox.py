"""Delivering the engine's events to listeners, on a thread of its own.

The scheduler loop never calls a listener: it queues ``EngineEvent`` values here, and
the outbox thread calls every listener in order (a listener hands the event over to its
own loop; the LSP layer uses ``call_soon_threadsafe``). A listener that raises is logged
and the others still get the event. An item may carry a flag set once it has been
delivered (the loop ends the collector pause of a run only after its ``started`` event
is out, so a listener sees the run's conditions). Cost: one queue hop per event.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable

from perfline.server.scheduler.events import EngineEvent, Listener
from perfline.server.scheduler.idle_gate import IdleGate

log = logging.getLogger(__name__)


class Outbox:
    """Listeners and the thread that calls them."""

    def __init__(self, gate: IdleGate) -> None:
        self._gate = gate
        self._lock = threading.Lock()
        self._listeners: list[Listener] = []
        self._queue: queue.SimpleQueue[tuple[EngineEvent, threading.Event | None] | None] = (
            queue.SimpleQueue()
        )
        self._thread = threading.Thread(target=self._deliver, name="perfline-outbox", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._queue.put(None)
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout=5)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def publish(self, event: EngineEvent, delivered: threading.Event | None = None) -> None:
        self._gate.queued()
        self._queue.put((event, delivered))

    def _deliver(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            event, delivered = item
            try:
                with self._lock:
                    listeners = list(self._listeners)
                for listener in listeners:
                    try:
                        listener(event)
                    except Exception:  # a listener must never break the engine
                        log.exception("engine listener failed on %s", event)
            finally:
                if delivered is not None:
                    delivered.set()
                self._gate.delivered()
