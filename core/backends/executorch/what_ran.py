"""What executed the recorded method, from the data alone (never from file names).

* Delegates: the instructions of the ETRecord's delegate map (``XnnpackBackend``,
  ``VgfBackend``, ...) that have a ``DELEGATE_CALL`` or delegate-internal event in the ETDump
  belonging to the program.
* CPU kernels: operator events (``OPERATOR_CALL`` / ``native_call_*``) of the program: the
  operators ExecuTorch ran with its linked kernel library. Which library (portable or
  optimized) and which ExecuTorch release ran are recorded in none of the files, so neither is
  named.
* NX neural statistics: a decoded ``VGF_NEURAL_STATISTICS`` payload (with its device).

The document's target and backend say this: ``ExecuTorch XNNPACK delegate, measured, 10
runs``; a run of the VGF delegate is a ``neural-technology`` target, anything else an
``executorch`` one. Cost: O(observations).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from perfline.core.backends.executorch.etrecord import ETRecord
from perfline.core.backends.executorch.events import (
    ROLE_DELEGATE,
    ROLE_DELEGATE_INTERNAL,
    ROLE_OPERATOR,
    EventKey,
    Timeline,
)

VGF_BACKEND = "VgfBackend"
#: Delegate backend names as people write them (others: the name without ``Backend``).
_DISPLAY = {"XnnpackBackend": "XNNPACK", VGF_BACKEND: "VGF"}
CPU_KERNELS = "CPU kernels"


@dataclass(frozen=True)
class WhatRan:
    """The executors of the recorded executions (see the module docstring)."""

    delegates: tuple[str, ...]
    """Backend names of the delegate calls that ran, as the ETRecord records them."""
    cpu_kernels: bool
    executions: int
    nx_device: str | None = None
    """The profiling device of decoded VGF neural statistics (``Mali-G2``), if any."""

    @property
    def label(self) -> str:
        """``XNNPACK delegate``, ``CPU kernels (no delegate)``, ``VGF delegate and CPU kernels``."""
        parts = [f"{display_backend(name)} delegate" for name in self.delegates]
        if self.cpu_kernels:
            parts.append(CPU_KERNELS if parts else f"{CPU_KERNELS} (no delegate)")
        return " and ".join(parts) or "no recorded operator or delegate event"

    @property
    def on_neural_technology(self) -> bool:
        """Whether the VGF delegate (Arm Neural Technology) ran."""
        return VGF_BACKEND in self.delegates or self.nx_device is not None

    def description(self) -> str:
        """The target description: what ran, measured, how many runs."""
        runs = f"{self.executions} run" + ("" if self.executions == 1 else "s")
        statistics = f", NX neural statistics from {self.nx_device}" if self.nx_device else ""
        return f"ExecuTorch {self.label}, measured, {runs}{statistics}"

    def target(self) -> dict[str, Any]:
        """The document's ``target``."""
        profile = "neural-technology" if self.on_neural_technology else "executorch"
        components: list[dict[str, Any]] = [{"type": "cpu", "family": "executorch"}]
        cpu_side = [display_backend(n).lower() for n in self.delegates if n != VGF_BACKEND]
        if cpu_side:
            components[0]["model"] = ", ".join(cpu_side)
        if self.on_neural_technology:
            nx: dict[str, Any] = {"type": "gpu", "family": "mali", "model": "nx"}
            if self.nx_device:
                nx["variant"] = self.nx_device
            components.append(nx)
        return {
            "profile_name": profile,
            "target_type": profile,
            "components": components,
            "configuration": {},
            "description": self.description(),
        }


def what_ran(
    record: ETRecord, timeline: Timeline, method: str, unmatched: Collection[EventKey]
) -> WhatRan:
    """The delegates and CPU kernels of ``method`` that ran (events of the program only)."""
    delegate_map = record.delegate_map.get(method, {})
    ran: dict[int, str] = {}
    cpu = False
    for observation in timeline.observations:
        key = observation.key
        if key in unmatched:
            continue
        if key.role in (ROLE_DELEGATE, ROLE_DELEGATE_INTERNAL):
            delegate = delegate_map.get(key.instruction_id)
            if delegate is not None:
                ran.setdefault(key.instruction_id, delegate.backend)
        elif key.role == ROLE_OPERATOR:
            cpu = True
    names = tuple(dict.fromkeys(ran[instruction] for instruction in sorted(ran)))
    return WhatRan(names, cpu, timeline.execution_count)


def display_backend(name: str) -> str:
    """``XNNPACK`` for ``XnnpackBackend``; other names without their ``Backend`` suffix."""
    if name in _DISPLAY:
        return _DISPLAY[name]
    return name[: -len("Backend")] if name.endswith("Backend") and name != "Backend" else name
