"""Running the pure backend on built traces (no file system)."""

from __future__ import annotations

from perfline.core.backends.torch_profiler.attribution import Attribution
from perfline.core.backends.torch_profiler.document import ReadTrace, read_trace
from perfline.core.backends.torch_profiler.leaves import Leaf, trace_leaves
from tests.support.torch_build import Trace


def read(trace: Trace) -> ReadTrace:
    return read_trace([trace.data()], "t.json")


def leaves_by_place(attribution: Attribution, read_trace: ReadTrace) -> dict[str, Leaf]:
    """Leaves keyed ``file:line>file:line|Module/Module|name`` (frames outermost first)."""
    found: dict[str, Leaf] = {}
    for leaf in trace_leaves(read_trace.table, attribution, {}):
        place = ">".join(f"{f.file}:{f.line}" for f in leaf.frames)
        modules = "/".join(m.instance for m in leaf.modules)
        found[f"{place}|{modules}|{leaf.name}"] = leaf
    return found
