"""Engine events -> notifications: progress, ``perfline/resultChanged``, refreshes and
diagnostics.

Events arrive on the connection's loop (the engine's listener hands them over). A new
good result first tells the view (its files' figures are no longer stale from edits),
then every change is announced, and an initialized client is asked to refresh hints and
lenses and gets the diagnostics again. The refresh time of a result is logged (logger
``perfline.server.timing``) for ``benchmarks/daemon.py``.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from perfline.server import api
from perfline.server.lsp import progress
from perfline.server.view.engine_surface import EngineEventView

if TYPE_CHECKING:
    from perfline.server.lsp.connection import PerflineServer

log = logging.getLogger(__name__)
timing_log = logging.getLogger("perfline.server.timing")


def on_engine_event(ls: PerflineServer, event: EngineEventView) -> None:
    try:
        _handle(ls, event)
    except Exception:
        log.exception("handling engine event %s", event)


def _handle(ls: PerflineServer, event: EngineEventView) -> None:
    if event.kind == "started" and event.job:
        progress.run_started(ls, event.job)
        return
    if event.kind == "finished" and event.job:
        progress.run_finished(ls, event.job)
        return
    if event.kind == "result" and event.job and not event.stale:
        ls.view.result_changed(event.job)
    ls.protocol.notify(api.RESULT_CHANGED, _change(event))
    if not ls.initialized:
        return
    ls.refresh()
    if event.kind == "result" and timing_log.isEnabledFor(logging.INFO):
        sent = time.monotonic()
        timing_log.info("job=%s generation=%d refresh=%.6f", event.job, event.generation, sent)
    ls.publish_diagnostics()


def _change(event: EngineEventView) -> dict[str, object]:
    return {
        "kind": event.kind,
        "job": event.job,
        "generation": event.generation,
        "stale": event.stale,
        "error": event.error,
    }
