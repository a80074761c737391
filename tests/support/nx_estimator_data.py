"""Paths of the NX estimator test data and small writers of estimator-format files."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tests.support import locations

DATA = locations.DATA / "nx_estimator"
DSCNN = "ds_cnn_large_fully_quantized_int8"
PERFORMANCE_DB = DATA / f"{DSCNN}_performance_database.dat"
DEBUG_DB = DATA / f"{DSCNN}_debug_database.dat"
DSCNN_VGF = DATA / "dscnn_int_dbg.vgf"
DSCNN_MULTI = DATA / "dscnn_multi_segment.vgf"  # graph, compute, graph (make_multi_segment_vgf.py)
DSCNN_TOSA = DATA / "dscnn_int.tosa"  # the TOSA file dscnn_int_dbg.vgf was converted from
DSCNN_TOSA_DUMP = DATA / "dscnn_int.tosa.json"  # what the tosa flatbuffer library reads in it


def container(root: str, tables: Iterable[tuple[str, Sequence[str]]]) -> str:
    """An estimator XML-ish container with one CDATA table per (name, lines)."""
    parts = [
        "<?xml version='1.0' encoding='utf-8' ?>",
        f"<{root}>",
        "<regor_version>6.1.0</regor_version>",
    ]
    for name, lines in tables:
        parts.append(f'<table name="{name}">')
        parts.append("<![CDATA[")
        parts.extend(lines)
        parts.append("]]>")
        parts.append("</table>")
    parts.append(f"</{root}>")
    return "\n".join(parts) + "\n"


def performance_row(
    stripe: int, op_cycles: int, total_cycles: int, dram: tuple[int, int, int] = (0, 0, 0)
) -> str:
    """One performance-table row with L1/L2/SystemCache zero and the given DRAM traffic."""
    memory = "Internal;0;0;0;L1;0;0;0;L2;0;0;0;SystemCache;0;0;0;" + "DRAM;{};{};{};".format(*dram)
    sections = (
        f"InputReader;{op_cycles};ConvolutionEngine;{op_cycles // 2};VectorEngine;1;"
        "TransformUnit;0;WeightDecoder;0;OutputWriter;2;"
    )
    return f"{stripe}, {op_cycles}, {total_cycles}, {memory}, {sections}"


PERFORMANCE_HEADER = (
    '"id", "opCycles", "totalCycles", "memoryName;readBytes;writeBytes;trafficCycles", '
    '"sectionName;cycles"'
)
