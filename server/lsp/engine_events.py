"""Engine and comparison events -> notifications: progress, ``perfline/resultChanged``,
refreshes, diagnostics and configuration-error messages.

Events arrive on the connection's loop (the engine's and the comparison service's
listeners hand them over). A new good result first tells the view (its files' figures
are no longer stale from edits), then every change is announced, and an initialized
client is asked to refresh hints and lenses and gets the diagnostics again; a
configuration error not yet shown on this connection is also shown as a message
(``messages``). A comparison with a baseline that became ready (or a baseline problem
that appeared or went away) is announced as ``perfline/resultChanged`` of kind
``compare`` and refreshes the same way. The refresh time of a result is logged (logger
``perfline.server.timing``) for ``benchmarks/daemon.py``.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from perfline.server import api
from perfline.server.lsp import messages, progress
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
    if event.kind == "config":
        messages.show_config_error(ls)
    if event.kind == "result" and timing_log.isEnabledFor(logging.INFO):
        sent = time.monotonic()
        timing_log.info("job=%s generation=%d refresh=%.6f", event.job, event.generation, sent)
    ls.publish_diagnostics()


def on_compared(ls: PerflineServer, jobs: tuple[str, ...]) -> None:
    """The comparison service installed new comparisons or problems for ``jobs``."""
    try:
        service = ls.comparisons()
        engine = ls.engine()
        for job in jobs:
            state, _, problem = service.describe(job) if service is not None else ("", None, None)
            good = engine.result(job)
            ls.protocol.notify(
                api.RESULT_CHANGED,
                {
                    "kind": "compare",
                    "job": job,
                    "generation": good.generation if good is not None else 0,
                    "stale": False,
                    "error": problem.message if problem is not None else None,
                    "state": state,
                },
            )
        if ls.initialized:
            ls.refresh()
            ls.publish_diagnostics()
    except Exception:
        log.exception("handling comparisons of %s", jobs)


def _change(event: EngineEventView) -> dict[str, object]:
    return {
        "kind": event.kind,
        "job": event.job,
        "generation": event.generation,
        "stale": event.stale,
        "error": event.error,
    }
