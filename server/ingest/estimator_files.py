"""Finding the NX estimator's files and reading the model's graph segments.

Sorts command-line inputs into a model (``.vgf``, ``.tosa``) and estimator
output sets (``<name>_performance_database.dat``, ``<name>_debug_database.dat``
and the optional ``<name>_network_performance_summary.json``, given one by one
or as a folder), and reads a VGF's graph and compute segments. File reading
errors become ``InputError`` naming the file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from perfline.core.backends.nx_estimator.vgf_checks import check_graph_shapes
from perfline.core.envelope import sha256_hex
from perfline.core.errors import InputError, Problem
from perfline.core.formats.vgf import SegmentGraph, VgfFile, read_vgf, segment_graphs
from perfline.server.ingest.named_files import read_named

PERFORMANCE_SUFFIX = "_performance_database.dat"
DEBUG_SUFFIX = "_debug_database.dat"
SUMMARY_SUFFIX = "_network_performance_summary.json"
VGF_SUFFIXES = (".vgf",)
TOSA_SUFFIXES = (".tosa", ".tosamlir", ".mlirbc", ".tosa.mlir")
ESTIMATOR_FOLDER = "nx-performance-estimator"


@dataclass(frozen=True)
class OutputSet:
    """The files of one estimator run (``summary`` ``None`` when not supplied)."""

    name: str
    performance: Path
    debug: Path
    summary: Path | None

    @property
    def summary_name(self) -> str:
        return f"{self.name}{SUMMARY_SUFFIX}"


@dataclass(frozen=True)
class EstimatorInputs:
    """A model (optional) and the estimator output sets found among the inputs."""

    model: Path | None
    outputs: tuple[OutputSet, ...]


def is_model(path: Path) -> bool:
    """Whether ``path`` names a model the estimator route accepts (VGF or TOSA)."""
    name = path.name.lower()
    return name.endswith(VGF_SUFFIXES) or name.endswith(TOSA_SUFFIXES)


def is_estimator_output(path: Path) -> bool:
    """Whether ``path`` is an estimator output file or a folder holding some."""
    if path.is_dir():
        return any(_output_kind(child) for child in _folder_files(path))
    return _output_kind(path) is not None


def classify_inputs(paths: Sequence[Path]) -> EstimatorInputs:
    """Sort the command-line inputs into a model and estimator output sets.

    A folder contributes the estimator files directly inside it (and inside an
    ``nx-performance-estimator`` sub-folder). Every set needs its performance
    and debug database; the summary is optional.
    """
    models: list[Path] = []
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = [child for child in _folder_files(path) if _output_kind(child)]
            if not found:
                raise InputError(
                    str(path),
                    "expected a folder holding *_performance_database.dat and "
                    "*_debug_database.dat files of the NX estimator",
                )
            files.extend(found)
        elif is_model(path):
            models.append(path)
        elif _output_kind(path):
            files.append(path)
        else:
            raise InputError(str(path), _UNRECOGNIZED)
    if len(models) > 1:
        raise InputError(
            "perfline analyze", f"expected at most one model, got {', '.join(map(str, models))}"
        )
    groups: dict[str, dict[str, Path]] = {}
    for file in files:
        kind = _output_kind(file)
        assert kind is not None
        name = file.name[: -len(kind)]
        group = groups.setdefault(name, {})
        if kind in group and group[kind].resolve() != file.resolve():
            raise InputError(
                str(file), f"a second {kind} file for estimator run '{name}' (also {group[kind]})"
            )
        group[kind] = file
    outputs: list[OutputSet] = []
    for name, group in groups.items():
        for kind in (PERFORMANCE_SUFFIX, DEBUG_SUFFIX):
            if kind not in group:
                present = next(iter(group.values()))
                raise InputError(
                    str(present.parent / f"{name}{kind}"),
                    f"missing: the estimator run '{name}' needs its {name}{kind} as well",
                )
        outputs.append(
            OutputSet(
                name, group[PERFORMANCE_SUFFIX], group[DEBUG_SUFFIX], group.get(SUMMARY_SUFFIX)
            )
        )
    return EstimatorInputs(models[0] if models else None, tuple(outputs))


_UNRECOGNIZED = (
    "unrecognized input: expected a model (.vgf, .tosa), estimator outputs "
    "(*_performance_database.dat, *_debug_database.dat, *_network_performance_summary.json) "
    "or a folder holding them"
)


def _output_kind(path: Path) -> str | None:
    for suffix in (PERFORMANCE_SUFFIX, DEBUG_SUFFIX, SUMMARY_SUFFIX):
        if path.name.endswith(suffix) and len(path.name) > len(suffix):
            return suffix
    return None


def _folder_files(folder: Path) -> list[Path]:
    found = sorted(p for p in folder.iterdir() if p.is_file())
    nested = folder / ESTIMATOR_FOLDER
    if nested.is_dir():
        found.extend(sorted(p for p in nested.iterdir() if p.is_file()))
    return found


@dataclass(frozen=True)
class ModelSegments:
    """The graph segments of a VGF (or none without a model) and the skipped compute ones."""

    graphs: tuple[SegmentGraph, ...]
    compute_names: tuple[str, ...]
    vgf: VgfFile | None = None
    data: bytes = b""


def model_segments(model: Path | None, *, check_shapes: bool = False) -> ModelSegments:
    """Read the VGF's segments; no model gives no segments.

    ``check_shapes`` (before running the estimator) rejects graph segments
    touching resources of unknown shape.
    """
    if model is None:
        return ModelSegments((), ())
    if not model.name.lower().endswith(VGF_SUFFIXES):
        raise InputError(str(model), "expected a .vgf model here (convert TOSA first)")
    data = read_file(model)
    vgf = read_vgf(data, str(model))
    if check_shapes:
        check_graph_shapes(vgf, str(model))
    segments = segment_graphs(vgf, str(model))
    graphs: list[SegmentGraph] = []
    compute: list[str] = []
    for segment in segments:
        if segment.type == "GRAPH":
            graphs.append(segment)
        elif segment.type == "COMPUTE":
            compute.append(segment.name or f"segment_{segment.index}")
        else:
            raise InputError(
                str(model),
                Problem(f"segment {segment.index}", f"unsupported segment type {segment.type}"),
            )
    if not graphs:
        raise InputError(str(model), "no VGF graph segments found for NX estimation")
    return ModelSegments(tuple(graphs), tuple(compute), vgf, data)


def run_name(model: Path, segment: SegmentGraph, graph_count: int) -> str:
    """The estimator's ``-o`` name: the model stem with dots as underscores (+ segment)."""
    stem = model.name[: -len(".vgf")] if model.name.lower().endswith(".vgf") else model.stem
    base = stem.replace(".", "_")
    return f"{base}_segment_{segment.index}" if graph_count > 1 else base


def is_tosa(model: Path) -> bool:
    return model.name.lower().endswith(TOSA_SUFFIXES)


def read_file(
    path: Path, hashes: list[str] | None = None, mtimes: list[float] | None = None
) -> bytes:
    read = read_named(path, "")
    data, mtime = read.data, read.mtime
    if hashes is not None:
        hashes.append(sha256_hex(data))
    if mtimes is not None:
        mtimes.append(mtime)
    return data
