"""The scheduler's bookkeeping of each job's runs (loop thread only): the plan, the
content hashes the ground state last showed for its inputs, those of its last finished
run, the run in flight and what it expects, and whether another run is wanted.
Cost: plain records.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from perfline.server.workspace import PlannedJob


@dataclass(frozen=True)
class InFlight:
    """A run on a worker: its generation, the plan and input hashes it was started for,
    and its cancellation flag."""

    generation: int
    plan: PlannedJob
    expected: tuple[str, ...]
    cancel: threading.Event


@dataclass
class JobRecord:
    plan: PlannedJob
    #: The input hashes as the ground state last showed them.
    current: tuple[str, ...] | None = None
    #: The input hashes of the last finished (installed or failed) run.
    last_digests: tuple[str, ...] | None = None
    run: InFlight | None = None
    rerun: bool = False
    force: bool = False
    #: (first file event, flush) of the batch that scheduled the next run.
    trigger: tuple[float | None, float | None] = (None, None)
    vanished_at: float | None = None

    def outdated(self, current: tuple[str, ...]) -> bool:
        """Whether a run is needed for inputs that hash to ``current``."""
        if self.run is not None:
            return self.run.plan != self.plan or self.run.expected != current
        return self.last_digests is None or self.last_digests != current
