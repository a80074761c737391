"""Pick the reader for a model file and list its canonical source operators.

The format is recognised from the content first (VGF magic ``VGF1``, TOSA identifier ``TOSA`` at
byte 4, a zip archive for PT2, MLIR text) and from the file name's suffix for ONNX, which has no
magic. ``notes`` says what the identity cannot cover for this file (ONNX subgraph nodes without
canonical ids, a VGF without debug info, compute segments). Pure: bytes and a name in, records out.
"""

from __future__ import annotations

from dataclasses import dataclass

from perfline.core.errors import InputError, Problem
from perfline.core.formats import onnx, pt2, tosa, vgf
from perfline.core.formats.identity import SourceOperator

FORMATS = ("onnx", "pt2", "tosa", "vgf")
_SUFFIXES = {
    ".onnx": "onnx",
    ".pt2": "pt2",
    ".tosa": "tosa",
    ".tosamlir": "tosa",
    ".mlir": "tosa",
    ".vgf": "vgf",
}


@dataclass(frozen=True)
class ModelOperators:
    """A model's canonical operators, its format and what the identity leaves out."""

    format: str
    operators: tuple[SourceOperator, ...]
    notes: tuple[str, ...] = ()


def detect_format(data: bytes, name: str) -> str:
    """``onnx``, ``pt2``, ``tosa`` or ``vgf``; an ``InputError`` when it is none of them."""
    if data[:4] == vgf.VGF_MAGIC:
        return "vgf"
    if data[4:8] == tosa.TOSA_IDENTIFIER:
        return "tosa"
    if data[:4] == b"PK\x03\x04":
        return "pt2"
    lowered = name.lower()
    for suffix, kind in _SUFFIXES.items():
        if lowered.endswith(suffix):
            return kind
    raise InputError(
        name,
        Problem(
            "byte 0",
            "expected a model file: VGF, TOSA (flatbuffer or MLIR text), PT2 archive, "
            "or ONNX (named *.onnx)",
        ),
    )


def model_operators(data: bytes, source: str, name: str | None = None) -> ModelOperators:
    """Read ``data`` (a file named ``name``, default ``source``) and list its operators."""
    kind = detect_format(data, name or source)
    if kind == "onnx":
        model = onnx.read_onnx(data, source)
        notes: tuple[str, ...] = ()
        if model.nested:
            notes = (
                f"{len(model.nested)} node(s) inside If/Loop/Scan subgraphs have no canonical id "
                "(their cost belongs to the enclosing top-level node)",
            )
        return ModelOperators(kind, onnx.onnx_operators(data, source), notes)
    if kind == "pt2":
        return ModelOperators(kind, pt2.pt2_operators(data, source))
    if kind == "tosa":
        return ModelOperators(kind, tosa.tosa_operators(data, source))
    segments = vgf.read_segments(data, source)
    vgf_notes: list[str] = []
    for segment in segments:
        if not segment.is_graph:
            vgf_notes.append(
                f"segment {segment.index} '{segment.name}' is a {segment.type.lower()} segment: "
                "no source operators"
            )
        elif segment.spirv is not None and not segment.spirv.has_debug_info:
            vgf_notes.append(
                f"segment {segment.index} '{segment.name}' has no debug info: ids without source "
                "locations (convert with --emit-debug-info)"
            )
    return ModelOperators(kind, vgf.segment_operators(segments), tuple(vgf_notes))
