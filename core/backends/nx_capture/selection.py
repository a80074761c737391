"""Which captured dispatches are analysed, and which VGF segment each one is.

Inputs are the capture root, or one or more dispatch folders of one capture.

* No model: exactly one input -- a dispatch folder, or a root holding exactly
  one dispatch. Segment 0 is synthesized, named after the pipeline.
* With a VGF: pipelines match graph segments by byte-identical SPIR-V.
  - root input: every segment matches exactly one pipeline, which has exactly
    one dispatch; two segments with the same SPIR-V are an error;
  - one dispatch input (the anchor): its pipeline matches exactly one
    segment; every other segment uses the dispatch of its unique pipeline with
    the anchor's ``executed_index`` (exactly one);
  - several dispatch inputs: one per graph segment, in VGF order, no
    duplicates, each with its segment's SPIR-V.
* All selected pipelines must share one logical device.
Cost: O(segments x pipelines) byte comparisons.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from perfline.core.errors import InputError, Problem

_SHOWN = 3


@dataclass(frozen=True)
class CapturedDispatch:
    """A dispatch: its folder (relative to the capture root) and executed index."""

    id: int
    folder: str
    executed_index: int


@dataclass(frozen=True)
class CapturedPipeline:
    """A pipeline with its SPIR-V bytes and dispatches."""

    id: int
    folder: str
    friendly_name: str
    device_id: int
    spirv: bytes
    dispatches: tuple[CapturedDispatch, ...]


@dataclass(frozen=True)
class GraphSegment:
    """A VGF graph segment: original index, name and SPIR-V bytes."""

    index: int
    name: str
    spirv: bytes


@dataclass(frozen=True)
class Selection:
    """One analysed dispatch and the segment it stands for."""

    segment_index: int
    segment_name: str
    pipeline: CapturedPipeline
    dispatch: CapturedDispatch


def select_dispatches(
    pipelines: Sequence[CapturedPipeline],
    dispatch_inputs: Sequence[str] | None,
    segments: Sequence[GraphSegment] | None,
    source: str,
) -> list[Selection]:
    """The selections (see the module docstring); ``dispatch_inputs`` None = the root."""
    owner = {d.folder: (p, d) for p in pipelines for d in p.dispatches}

    def fail(where: str, message: str) -> InputError:
        return InputError(source, Problem(where, message))

    if segments is None:
        if dispatch_inputs is None:
            every = list(owner.values())
            if len(every) != 1:
                shown = ", ".join(d.folder for _, d in every[:_SHOWN])
                more = f" (and {len(every) - _SHOWN} more)" if len(every) > _SHOWN else ""
                raise fail(
                    "--profiling-data",
                    f"the capture holds {len(every)} dispatches ({shown}{more}); without a model "
                    "give exactly one dispatch folder",
                )
            pipeline, dispatch = every[0]
        else:
            if len(dispatch_inputs) != 1:
                raise fail("--profiling-data", "without a model give exactly one input")
            pipeline, dispatch = owner[dispatch_inputs[0]]
        name = pipeline.friendly_name or pipeline.folder
        return [Selection(0, name, pipeline, dispatch)]
    matches = {s.index: [p for p in pipelines if p.spirv == s.spirv] for s in segments}
    seen_spirv: dict[bytes, int] = {}
    for segment in segments:
        if segment.spirv in seen_spirv:
            raise fail(
                f"segment {segment.index}",
                f"has the same SPIR-V as segment {seen_spirv[segment.spirv]}; dispatches cannot "
                "be told apart",
            )
        seen_spirv[segment.spirv] = segment.index
    selections: list[Selection] = []
    if dispatch_inputs is None:
        for segment in segments:
            found = matches[segment.index]
            if len(found) != 1:
                raise fail(
                    f"segment {segment.index} ({segment.name})",
                    f"matches {len(found)} captured pipelines by SPIR-V, expected exactly one",
                )
            if len(found[0].dispatches) != 1:
                raise fail(
                    f"segment {segment.index} ({segment.name})",
                    f"its pipeline {found[0].folder} has {len(found[0].dispatches)} dispatches; "
                    "give the dispatch folder(s) to analyse",
                )
            selections.append(
                Selection(segment.index, segment.name, found[0], found[0].dispatches[0])
            )
    elif len(dispatch_inputs) == 1:
        anchor_pipeline, anchor = owner[dispatch_inputs[0]]
        anchored = [s for s in segments if anchor_pipeline in matches[s.index]]
        if len(anchored) != 1:
            raise fail(
                dispatch_inputs[0],
                f"its pipeline's SPIR-V matches {len(anchored)} VGF segments, expected exactly one",
            )
        for segment in segments:
            if segment is anchored[0]:
                selections.append(Selection(segment.index, segment.name, anchor_pipeline, anchor))
                continue
            found = matches[segment.index]
            if len(found) != 1:
                raise fail(
                    f"segment {segment.index} ({segment.name})",
                    f"matches {len(found)} captured pipelines by SPIR-V, expected exactly one",
                )
            same = [d for d in found[0].dispatches if d.executed_index == anchor.executed_index]
            if len(same) != 1:
                raise fail(
                    f"segment {segment.index} ({segment.name})",
                    f"its pipeline {found[0].folder} has {len(same)} dispatches with "
                    f"executed_index {anchor.executed_index} (the anchor's), expected exactly one",
                )
            selections.append(Selection(segment.index, segment.name, found[0], same[0]))
    else:
        if len(dispatch_inputs) != len(segments):
            raise fail(
                "--profiling-data",
                f"{len(dispatch_inputs)} dispatch folders for {len(segments)} VGF graph segments",
            )
        if len(set(dispatch_inputs)) != len(dispatch_inputs):
            raise fail("--profiling-data", "the same dispatch folder is given twice")
        for segment, folder in zip(segments, dispatch_inputs, strict=True):
            pipeline, dispatch = owner[folder]
            if pipeline.spirv != segment.spirv:
                raise fail(
                    folder,
                    f"its SPIR-V differs from VGF segment {segment.index} ({segment.name}), which "
                    "it stands for by position",
                )
            selections.append(Selection(segment.index, segment.name, pipeline, dispatch))
    devices = {selection.pipeline.device_id for selection in selections}
    if len(devices) > 1:
        raise fail(
            "--profiling-data",
            f"the selected pipelines run on different devices ({sorted(devices)}), expected one",
        )
    return selections
