"""The engine's public import path: ``Engine`` and the values its queries return.

The engine itself lives in ``perfline.server.scheduler`` (one loop thread consuming
typed events, ground state, result store, memo policy, outbox); this module only
names what the LSP, API and CLI layers use, so they need not know that layout.
"""

from __future__ import annotations

from perfline.server.scheduler.engine_facade import Engine
from perfline.server.scheduler.events import EngineEvent, EngineEventKind, Listener
from perfline.server.scheduler.results import GoodResult, JobError, JobInfo, JobState, RunTiming

__all__ = [
    "Engine",
    "EngineEvent",
    "EngineEventKind",
    "GoodResult",
    "JobError",
    "JobInfo",
    "JobState",
    "Listener",
    "RunTiming",
]
