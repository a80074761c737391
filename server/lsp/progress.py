"""``$/progress`` for analysis runs longer than ``PROGRESS_DELAY`` seconds.

A run's start arms a timer; if the run is still going when it fires, a token is created
(``window/workDoneProgress/create``) and the progress begins; the run's end ends it. Only
for clients that declare ``window.workDoneProgress``.
"""

from __future__ import annotations

import asyncio
import itertools
import os
from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from perfline.server.lsp.connection import PerflineServer

#: Runs shorter than this (seconds) get no ``$/progress``; tests may lower it.
PROGRESS_DELAY = float(os.environ.get("PERFLINE_PROGRESS_DELAY", "0.5"))
_TOKENS = itertools.count(1)


def run_started(ls: PerflineServer, job: str) -> None:
    window = ls.client_capabilities.window if ls.initialized else None
    if ls.loop is None or window is None or not window.work_done_progress:
        return
    _cancel_timer(ls, job)
    ls.progress_timers[job] = ls.loop.call_later(
        PROGRESS_DELAY, lambda: asyncio.ensure_future(_begin(ls, job))
    )


def run_finished(ls: PerflineServer, job: str) -> None:
    _cancel_timer(ls, job)
    token = ls.progress_tokens.pop(job, None)
    if token is not None and token in ls.work_done_progress.tokens:
        ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message="done"))


def _cancel_timer(ls: PerflineServer, job: str) -> None:
    timer = ls.progress_timers.pop(job, None)
    if timer is not None:
        timer.cancel()


async def _begin(ls: PerflineServer, job: str) -> None:
    ls.progress_timers.pop(job, None)
    if ls.host.engine().running_since(job) is None or job in ls.progress_tokens:
        return
    token = f"perfline/{job}/{next(_TOKENS)}"
    ls.progress_tokens[job] = token
    try:
        await ls.work_done_progress.create_async(token)
    except Exception:
        ls.progress_tokens.pop(job, None)
        return
    ls.work_done_progress.begin(
        token, types.WorkDoneProgressBegin(title=f"perfline: analysing {job}", cancellable=False)
    )
    if ls.progress_tokens.get(job) != token:
        # The run ended while the client created the token.
        ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message="done"))
