"""Whether traces can be put on the workspace's lines at all: the one place that decides it.

Refusals, each an ``InputError`` naming the trace(s):

* the traces record no Python frame (``python_function`` events come only with
  ``with_stack=True``) and no statement sidecar gives stacks: nothing can be put on a line;
* they record Python frames but none of the files those frames name is in the workspace:
  the trace is of another program, or its source sits elsewhere (``[[path_map]]`` in
  ``perfline.toml`` maps recorded paths onto the workspace). The verdict is the shared one
  (``backends.run_match``): each named file is evidence, agreeing when it resolves; while any
  does, the others (torch, the standard library) are not judged. The error names every
  folder tried as the workspace, and its examples start with the names that are not
  library files (``library_name``: torch, the standard library, installed packages);
* several traces are read as one program (its ranks, or captures of it): a trace none of
  whose frames is in the workspace while the others' are, or traces that share no frame of
  the workspace (``file:line:function``), are of other programs (``check_one_program``).

Pure; cost: linear in the recorded file names.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Final

from perfline.core.backends.run_match import Evidence, Wording, judge_run
from perfline.core.backends.torch_profiler.frames import is_frozen
from perfline.core.backends.torch_profiler.resolution import is_library
from perfline.core.errors import InputError, Problem

#: Top-level packages whose frames are the framework's, not a program's (with the standard
#: library's modules).
FRAMEWORK_PACKAGES: Final = frozenset({"torch", "torchvision", "torchaudio", "numpy"})

WITH_STACK_HINT = (
    "the trace records no Python frames (no 'python_function' events): profile with "
    "torch.profiler.profile(..., with_stack=True), or use 'perfline profile', which records "
    "statement-level stacks"
)


def check_one_program(sources: Sequence[str], frames: Sequence[frozenset[str]]) -> None:
    """Refuse several traces that are not of one program: ``frames`` holds each trace's
    workspace frames (``path:line:function``)."""
    if len(sources) < 2:
        return
    outside = [source for source, found in zip(sources, frames, strict=True) if not found]
    if outside and len(outside) < len(sources):
        raise InputError(
            ", ".join(outside),
            Problem(
                "traceEvents",
                "no frame of this trace is in the workspace, while the other traces' are: it "
                "is of another program (several traces are read as the ranks or captures of "
                "one program); analyze it on its own",
            ),
        )
    if not outside and not frozenset.intersection(*frames):
        raise InputError(
            ", ".join(sources),
            Problem(
                "traceEvents",
                "these traces share no frame of the workspace: they are of different programs "
                "(several traces are read as the ranks or captures of one program); analyze "
                "each on its own",
            ),
        )


def library_name(name: str) -> bool:
    """Whether a recorded file name is a library's (frozen, under site-packages or an
    installed Python, or in the standard library or torch) rather than a program's."""
    if is_frozen(name) or is_library(name):
        return True
    top = name.replace("\\", "/").lstrip("./").split("/")[0].removesuffix(".py")
    return top in sys.stdlib_module_names or top in FRAMEWORK_PACKAGES


def check_belongs(
    sources: Sequence[str],
    frame_count: int,
    recorded: Sequence[str],
    resolved: Mapping[str, str | None],
    *,
    has_statements: bool,
    workspace: str,
    also_tried: Sequence[str] = (),
) -> None:
    """Refuse traces that cannot be put on the workspace's lines (module docstring)."""
    where = ", ".join(sources)
    if frame_count == 0 and not has_statements:
        raise InputError(where, Problem("traceEvents", WITH_STACK_HINT))
    if has_statements and not recorded:
        return
    any_found = any(resolved.get(name) is not None for name in recorded)
    recorded = sorted(recorded, key=library_name)  # the program's own names first
    model = f"a file of the workspace {workspace}"
    if also_tried:
        model += f" (nor of the other folders tried: {', '.join(also_tried)})"
    evidence = [
        Evidence(
            label=name,
            mismatch=None if resolved.get(name) is not None else "not in the workspace",
            # a file outside the workspace (torch, the standard library) tells nothing about
            # the program while some of its files are in it
            judged=resolved.get(name) is not None or not any_found,
        )
        for name in recorded
    ]
    judge_run(
        evidence,
        Wording(
            run=where,
            items="source files the trace's Python frames name",
            model=model,
            conclusion=(
                "the trace is of another program, or its source sits elsewhere (map the "
                "recorded paths with [[path_map]] in perfline.toml)"
            ),
            unit="frames",
        ),
    )
