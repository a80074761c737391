"""The result warnings of one trace: what was left out or could not be joined, with counts
and the time involved, so no figure is lost without a word.

* events without a usable time (``ts``/``dur`` missing, a negative duration), by kind;
* slices whose edges cross the slice holding them (the Python tracer's and the op
  recorder's clocks), with the time cut;
* CPU time outside every ``ProfilerStep`` window (not in any step's figures);
* frames of the capture itself dropped (``timeline``), with their own time, which their
  callers' lines carry;
* CPU time of slices with no Python frame above them (threads the Python tracer did not
  follow, such as autograd's device threads): in the totals, on no line;
* GPU activities whose launching op was not found, backward nodes whose forward op is not
  in the trace, allocations outside every slice;
* slices on several threads: ``cpu_time`` is the wall time of each thread's slices (a
  thread blocked in Python, ``queue.get``, counts while it waits), added over the threads,
  so the model total (what a line's share is of) can exceed the step time;
* a trace recorded with ``profile_memory`` that holds no allocation (torch records none in
  its all-threads mode, ``_ExperimentalConfig(profile_all_threads=True)``, which
  ``perfline profile --all-threads`` uses): no memory figure, said so;
* ``torch.compile`` regions (``Torch-Compiled Region`` ops): the statements of a compiled
  graph leave no Python frame, so its time sits on the line that called it, said with the
  count and the time.

Pure; cost: a pass over the leaves.
"""

from __future__ import annotations

from perfline.core.backends.torch_profiler.attribution import US_PER_MS, Attribution
from perfline.core.backends.torch_profiler.trace_format import COMPILED_REGION_PREFIX
from perfline.core.backends.torch_profiler.trace_table import TraceTable


def _ms(us: float) -> str:
    return f"{us / US_PER_MS:.4g} ms"


def trace_warnings(
    source: str, table: TraceTable, attribution: Attribution, *, profile_memory: bool = False
) -> list[str]:
    """The warnings of one trace (see the module docstring); ``profile_memory``: the trace's
    header says memory was profiled."""
    warnings: list[str] = []
    if profile_memory and not len(table.memory):
        warnings.append(
            f"{source}: recorded with profile_memory but holds no allocation ('[memory]' "
            "events): torch records none when it profiles all threads (profile_all_threads, "
            "'perfline profile --all-threads'); no line has a memory figure."
        )
    if table.skipped:
        listed = ", ".join(f"{count} {kind}" for kind, count in sorted(table.skipped.items()))
        warnings.append(
            f"{source}: {sum(table.skipped.values())} events have no usable time (missing "
            f"'ts' or 'dur', or a negative duration) and are left out: {listed}."
        )
    timeline = attribution.timeline
    if timeline.crossings:
        warnings.append(
            f"{source}: {timeline.crossings} slices end after the slice that holds them "
            f"(separate clocks of the Python tracer and the op recorder); {_ms(timeline.cut_us)} "
            "past those ends is not counted."
        )
    if attribution.outside_steps_us > 0 and len(table.steps):
        warnings.append(
            f"{source}: {_ms(attribution.outside_steps_us)} of CPU time in "
            f"{attribution.outside_steps} slices lies outside every ProfilerStep window and is "
            "in no step's figures."
        )
    dropped = timeline.dropped_slices
    if dropped:
        own = sum(timeline.self_us[index] for index in dropped)
        warnings.append(
            f"{source}: {len(dropped)} frames of perfline's capture (its operator mode and step "
            f"hooks) are left out of the nesting; their own time ({_ms(own)}, all steps) counts "
            "where a call into C's would: on the calling line."
        )
    compiled = _compiled_warning(source, table)
    if compiled:
        warnings.append(compiled)
    threads = _threads_warning(source, attribution)
    if threads:
        warnings.append(threads)
    frameless = _frameless_ms(attribution)
    if frameless > 0:
        warnings.append(
            f"{source}: {frameless:.4g} ms per step of CPU time ran with no Python frame above "
            "it (threads the Python tracer does not follow, such as autograd's backward "
            "threads): it counts in the totals and on no source line."
        )
    device = attribution.device
    if device.unlinked:
        warnings.append(
            f"{source}: {device.unlinked} GPU activities ({_ms(device.unlinked_us)}) have no "
            "launching op in the trace (no 'External id', 'correlation' or 'ac2g' flow that "
            "joins them): they are in no figure."
        )
    backward = attribution.backward
    if backward.unmatched:
        warnings.append(
            f"{source}: {backward.unmatched} backward ops ({_ms(backward.unmatched_us)}) have "
            "no forward op in the trace (it ran before the profiler started): their time "
            "stays on the backward() call only."
        )
    allocations = attribution.allocations
    if allocations.outside:
        warnings.append(
            f"{source}: {allocations.outside} allocations ({allocations.outside_bytes:,} "
            "bytes) happened outside every slice or step and are in no figure."
        )
    return warnings


def _compiled_warning(source: str, table: TraceTable) -> str | None:
    """What ``torch.compile`` hides from the lines (``None``: no compiled region ran)."""
    regions = {i for i, name in enumerate(table.names) if name.startswith(COMPILED_REGION_PREFIX)}
    if not regions:
        return None
    ops = table.ops
    count = 0
    total_us = 0.0
    for index, name in enumerate(ops.name):
        if name in regions:
            count += 1
            total_us += ops.duration[index]
    if not count:
        return None
    return (
        f"{source}: {count} runs of torch.compile graphs ({_ms(total_us)} in all): a compiled "
        "graph's statements leave no Python frame, so its time sits on the line that called "
        "it (the compiled function's 'def' line, or the call of the compiled module); run "
        "without compiling (TORCH_COMPILE_DISABLE=1) to see its statements."
    )


def _threads_warning(source: str, attribution: Attribution) -> str | None:
    """What ``cpu_time`` adds up when slices ran on several threads (``None``: one)."""
    timeline = attribution.timeline
    threads = len(timeline.thread_ranges)
    steps = max(attribution.steps, 1)
    if threads < 2:
        return None
    total = sum(sum(row) for row in attribution.values.get("cpu_time", {}).values()) / steps
    step = sum(attribution.step_ms) / steps
    times = f", {total / step:.2g}x the step time" if step > 0 else ""
    return (
        f"{source}: slices on {threads} threads: cpu_time is each thread's wall time in its "
        "Python frames and ops (a thread waiting in Python, e.g. in queue.get, counts while "
        f"it waits), added over the threads; the model total, what a line's share is of, is "
        f"their sum ({total:.4g} ms per step{times})."
    )


def _frameless_ms(attribution: Attribution) -> float:
    timeline = attribution.timeline
    rows = attribution.values.get("cpu_time", {})
    total = 0.0
    for leaf, context in enumerate(timeline.leaf_context):
        if timeline.contexts.context_stack[context] == 0:
            row = rows.get(leaf)
            if row:
                total += sum(row)
    return total / max(attribution.steps, 1)
