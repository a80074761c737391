"""Grouping ETDump profile events into observations over repeated executions.

Decisions:

* A run is an *execution* when it holds ``Method::execute`` or any
  instruction event; other runs (``Method::init``, ``Program::load_method``)
  are load runs and are not measured.
* Roles: ``Method::execute`` -> ``method``; ``DELEGATE_CALL`` -> ``delegate``;
  an event with a delegate debug id -> ``delegate_internal``;
  ``OPERATOR_CALL`` -> ``operator``; a ``native_call_*`` kernel event whose
  run also has an ``OPERATOR_CALL`` for the same chain and instruction is
  *nested* inside it (portable runtime) and is skipped, so each operator is
  counted once, from its ``OPERATOR_CALL``; a ``native_call_*`` event alone is
  the operator's event; ``VGF_NEURAL_STATISTICS`` carries a payload, not a
  timing; other events with a negative chain index are runtime-level and
  ignored. The kernel names of ``native_call_*`` events (nested or not) are
  kept per (chain, instruction): they say which operator an instruction ran.
* The same event in different executions is matched by (role, chain,
  instruction, name, delegate ids, occurrence number within the run).
* Durations are ``end - start`` ticks divided by 1e6 (ticks are nanoseconds,
  the ExecuTorch default), so in milliseconds.
* Statistics (``runtime_common.statistics``, shared with ONNX Runtime): mean,
  minimum, maximum and linearly interpolated 50th/90th percentiles (numpy's
  default, as the ExecuTorch Inspector computes them).
Cost: O(events) plus O(k log k) per observation of k samples.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from perfline.core.backends.executorch.etdump import ETDump, ProfileEvent, RunData

METHOD_EXECUTE = "Method::execute"
OPERATOR_CALL = "OPERATOR_CALL"
DELEGATE_CALL = "DELEGATE_CALL"
NATIVE_CALL_PREFIX = "native_call_"
VGF_NEURAL_STATISTICS = "VGF_NEURAL_STATISTICS"
TICKS_PER_MS = 1e6

ROLE_METHOD = "method"
ROLE_OPERATOR = "operator"
ROLE_DELEGATE = "delegate"
ROLE_DELEGATE_INTERNAL = "delegate_internal"
_NATIVE = "native"


@dataclass(frozen=True, order=True)
class EventKey:
    """The identity of an event across executions."""

    role: str
    chain_index: int
    instruction_id: int
    name: str
    delegate_debug_id_int: int
    delegate_debug_id_str: str
    occurrence: int


@dataclass(frozen=True)
class Observation:
    """One event's durations (ms) over the executions in which it occurred."""

    key: EventKey
    executions: tuple[int, ...]
    durations_ms: tuple[float, ...]
    first_seen: tuple[int, int]
    """(run index, event index) of its first occurrence: the output order."""


@dataclass(frozen=True)
class VgfPayload:
    """The delegate metadata of one ``VGF_NEURAL_STATISTICS`` event."""

    run_index: int
    event_index: int
    data: bytes


@dataclass(frozen=True)
class Timeline:
    """The ETDump, reduced to what the result needs."""

    execution_runs: tuple[int, ...]
    load_runs: tuple[int, ...]
    observations: tuple[Observation, ...]
    nested_kernel_events: int
    nested_kernel_names: tuple[str, ...]
    ignored_runtime_events: tuple[str, ...]
    vgf_payloads: tuple[VgfPayload, ...]
    kernel_names: Mapping[tuple[int, int], tuple[str, ...]] = field(default_factory=dict)
    """(chain index, instruction id) -> the ``native_call_*`` kernel names seen there."""

    @property
    def execution_count(self) -> int:
        """How many executions were recorded."""
        return len(self.execution_runs)


def build_timeline(dump: ETDump) -> Timeline:
    """Classify and group the dump's profile events (see the module docstring)."""
    execution_runs: list[int] = []
    load_runs: list[int] = []
    samples: dict[EventKey, list[tuple[int, float]]] = {}
    first_seen: dict[EventKey, tuple[int, int]] = {}
    nested = 0
    nested_names: list[str] = []
    ignored: list[str] = []
    payloads: list[VgfPayload] = []
    kernels: dict[tuple[int, int], dict[str, None]] = {}
    for run in dump.runs:
        for event in run.profile_events:
            if _is_vgf_statistics(event):
                payloads.append(VgfPayload(run.index, event.index, event.delegate_debug_metadata))
            elif _role(event) == _NATIVE and event.name is not None:
                where = (event.chain_index, event.instruction_id)
                kernels.setdefault(where, {}).setdefault(event.name)
        roles = _roles(run)
        if not any(role is not None for role, _ in roles):
            load_runs.append(run.index)
            ignored.extend(e.name or "<unnamed>" for e in run.profile_events)
            continue
        execution = len(execution_runs)
        execution_runs.append(run.index)
        occurrences: Counter[tuple[str, int, int, str, int, str]] = Counter()
        for role, event in roles:
            if role is None:
                if _role(event) == _NATIVE and event.name is not None:
                    nested += 1
                    if event.name not in nested_names:
                        nested_names.append(event.name)
                elif not _is_vgf_statistics(event):
                    ignored.append(event.name or "<unnamed>")
                continue
            base = (
                role,
                event.chain_index,
                event.instruction_id,
                event.name or "",
                event.delegate_debug_id_int,
                event.delegate_debug_id_str or "",
            )
            key = EventKey(*base, occurrences[base])
            occurrences[base] += 1
            samples.setdefault(key, []).append(
                (execution, (event.end_time - event.start_time) / TICKS_PER_MS)
            )
            first_seen.setdefault(key, (run.index, event.index))
    observations = [
        Observation(
            key=key,
            executions=tuple(execution for execution, _ in values),
            durations_ms=tuple(duration for _, duration in values),
            first_seen=first_seen[key],
        )
        for key, values in samples.items()
    ]
    observations.sort(key=lambda observation: observation.first_seen)
    return Timeline(
        execution_runs=tuple(execution_runs),
        load_runs=tuple(load_runs),
        observations=tuple(observations),
        nested_kernel_events=nested,
        nested_kernel_names=tuple(nested_names),
        ignored_runtime_events=tuple(dict.fromkeys(ignored)),
        vgf_payloads=tuple(payloads),
        kernel_names={where: tuple(names) for where, names in kernels.items()},
    )


def _is_vgf_statistics(event: ProfileEvent) -> bool:
    return VGF_NEURAL_STATISTICS in (event.name, event.delegate_debug_id_str)


def _roles(run: RunData) -> list[tuple[str | None, ProfileEvent]]:
    wrapped = _operator_calls(run)
    roles: list[tuple[str | None, ProfileEvent]] = []
    for event in run.profile_events:
        role = _role(event)
        if role == _NATIVE:
            role = None if (event.chain_index, event.instruction_id) in wrapped else ROLE_OPERATOR
        roles.append((role, event))
    return roles


def _role(event: ProfileEvent) -> str | None:
    if _is_vgf_statistics(event):
        return None
    if event.name == METHOD_EXECUTE:
        return ROLE_METHOD
    if event.is_delegate_internal:
        return ROLE_DELEGATE_INTERNAL
    if event.name == DELEGATE_CALL:
        return ROLE_DELEGATE
    if event.chain_index < 0 or event.instruction_id < 0:
        return None
    if event.name == OPERATOR_CALL:
        return ROLE_OPERATOR
    if event.name and event.name.startswith(NATIVE_CALL_PREFIX):
        return _NATIVE
    return ROLE_OPERATOR


def _operator_calls(run: RunData) -> frozenset[tuple[int, int]]:
    return frozenset(
        (event.chain_index, event.instruction_id)
        for event in run.profile_events
        if event.name == OPERATOR_CALL
    )
