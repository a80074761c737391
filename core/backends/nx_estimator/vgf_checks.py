"""Checks a VGF must pass before its graph segments go to the estimator.

Every resource a Graph segment touches -- input and output bindings,
descriptor-set bindings and constants -- needs a fully known tensor shape: a
negative dimension (published models use -1 and INT64_MIN for "dynamic")
cannot be estimated. Offenders are described as ``input binding B, resource
R, shape [1, ?, 3]`` (also ``output binding``, ``descriptor set N binding B``,
``constant N``); the error lists the first five and asks for a
shape-specialised model. perfline never specialises shapes itself.
"""

from __future__ import annotations

from perfline.core.errors import InputError, Problem
from perfline.core.formats.vgf import VgfFile, VgfSegment

_SHOWN = 5


def unshaped_resources(vgf: VgfFile, segment: VgfSegment) -> list[str]:
    """Descriptions of the segment's resources whose shape has an unknown dimension."""
    touched: list[tuple[str, int]] = []
    touched += [(f"input binding {slot.binding}", slot.mrt_index) for slot in segment.inputs]
    touched += [(f"output binding {slot.binding}", slot.mrt_index) for slot in segment.outputs]
    for number, descriptor_set in enumerate(segment.descriptor_sets):
        set_index = number if descriptor_set.set_index is None else descriptor_set.set_index
        touched += [
            (f"descriptor set {set_index} binding {slot.binding}", slot.mrt_index)
            for slot in descriptor_set.bindings
        ]
    for constant_index in segment.constants:
        if constant_index < len(vgf.constants):
            touched.append((f"constant {constant_index}", vgf.constants[constant_index].mrt_index))
    offenders: list[str] = []
    seen: set[str] = set()
    for label, mrt_index in touched:
        if mrt_index >= len(vgf.resources):
            continue
        shape = vgf.resources[mrt_index].shape
        if shape is None or all(dimension >= 0 for dimension in shape):
            continue
        text = ", ".join("?" if dimension < 0 else str(dimension) for dimension in shape)
        description = f"{label}, resource {mrt_index}, shape [{text}]"
        if description not in seen:
            seen.add(description)
            offenders.append(description)
    return offenders


def check_graph_shapes(vgf: VgfFile, source: str) -> None:
    """Raise ``InputError`` when a Graph segment touches a resource of unknown shape."""
    problems: list[Problem] = []
    for segment in vgf.segments:
        if segment.type != "GRAPH":
            continue
        offenders = unshaped_resources(vgf, segment)
        if not offenders:
            continue
        shown = "; ".join(offenders[:_SHOWN])
        if len(offenders) > _SHOWN:
            shown += f"; ... ({len(offenders) - _SHOWN} more omitted)"
        problems.append(
            Problem(
                f"segment {segment.index} '{segment.name}'",
                f"tensor shapes must be fully known for NX estimation: {shown}. "
                "Export a shape-specialised model (fixed input sizes) and try again.",
            )
        )
    if problems:
        raise InputError(source, problems)
