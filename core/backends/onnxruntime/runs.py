"""The recorded runs of one or more profiles, warm-up left out, as per-node per-run durations.

Each profile is one session: its first ``warmup_runs`` runs (``model_run`` events in time order)
are warm-up and left out (the first run of a session allocates and plans; the default is 1).
The kept runs of all profiles are numbered in file order, then time order. A node's duration in
a run is the sum of its kernel events in that run (a node inside a loop runs several times).
Durations are in milliseconds (the trace's microseconds / 1000). Cost: O(node events).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from perfline.core.backends.onnxruntime.profile import NodeEvent, Profile
from perfline.core.errors import InputError, Problem

US_PER_MS = 1000.0


@dataclass(frozen=True)
class NodeRuns:
    """One executed node over the kept runs in which it ran."""

    name: str
    op_name: str
    provider: str
    node_index: int | None
    runs: tuple[int, ...]
    durations_ms: tuple[float, ...]
    events: int
    input_shapes: tuple[tuple[int, ...], ...]
    output_shapes: tuple[tuple[int, ...], ...]
    output_types: tuple[str, ...] = ()
    parameter_size: int | None = None


@dataclass(frozen=True)
class RecordedRuns:
    """Kept runs (their ``model_run`` durations) and every executed node over them."""

    run_durations_ms: tuple[float, ...]
    nodes: tuple[NodeRuns, ...]
    warmup_runs: int
    left_out_runs: int
    left_out_node_events: int
    outside_runs: int


def recorded_runs(profiles: Sequence[Profile], warmup_runs: int) -> RecordedRuns:
    """Group the node events of ``profiles`` by node and kept run."""
    if warmup_runs < 0:
        raise InputError("warmup_runs", Problem("", f"expected 0 or more, got {warmup_runs}"))
    durations: list[float] = []
    samples: dict[str, dict[int, float]] = {}
    first: dict[str, NodeEvent] = {}
    counts: dict[str, int] = {}
    left_out_events = 0
    left_out_runs = 0
    outside = 0
    for profile in profiles:
        kept = profile.run_durations_us[warmup_runs:]
        if not kept:
            raise InputError(
                profile.source,
                Problem(
                    "model_run events",
                    f"the profile records {len(profile.run_durations_us)} run(s), all of them "
                    f"warm-up (warmup_runs = {warmup_runs}); record more runs or lower "
                    "warmup_runs",
                ),
            )
        base = len(durations) - warmup_runs
        durations.extend(duration / US_PER_MS for duration in kept)
        left_out_runs += min(warmup_runs, len(profile.run_durations_us))
        outside += profile.outside_runs
        for event in profile.node_events:
            if event.run < warmup_runs:
                left_out_events += 1
                continue
            run = base + event.run
            per_run = samples.setdefault(event.name, {})
            per_run[run] = per_run.get(run, 0.0) + event.duration_us / US_PER_MS
            counts[event.name] = counts.get(event.name, 0) + 1
            first.setdefault(event.name, event)
    nodes = []
    for name, per_run in samples.items():
        event = first[name]
        ordered = sorted(per_run)
        nodes.append(
            NodeRuns(
                name=name,
                op_name=event.op_name,
                provider=event.provider,
                node_index=event.node_index,
                runs=tuple(ordered),
                durations_ms=tuple(per_run[run] for run in ordered),
                events=counts[name],
                input_shapes=event.input_shapes,
                output_shapes=event.output_shapes,
                output_types=event.output_types,
                parameter_size=event.parameter_size,
            )
        )
    return RecordedRuns(
        run_durations_ms=tuple(durations),
        nodes=tuple(nodes),
        warmup_runs=warmup_runs,
        left_out_runs=left_out_runs,
        left_out_node_events=left_out_events,
        outside_runs=outside,
    )
