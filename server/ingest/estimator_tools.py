"""Running the external tools of the NX estimator route: ``model-converter`` and
``graph-compiler-performance-estimator``.

Executables come only from the caller (the command line or the user's
settings; ``model-converter`` also from ``PATH``) -- never from a workspace
file. Each tool runs in its own folder under the output directory with a
timeout; a non-zero exit becomes ``ToolError`` quoting the last 20 lines of the
tool's output, and a missing output file is named.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from perfline.core.backends.nx_estimator.vgf_split import single_segment_vgf
from perfline.core.errors import InputError
from perfline.server.file_access import Root, make_dirs, write_bytes
from perfline.server.ingest.estimator_files import (
    DEBUG_SUFFIX,
    ESTIMATOR_FOLDER,
    PERFORMANCE_SUFFIX,
    SUMMARY_SUFFIX,
    TOSA_SUFFIXES,
    OutputSet,
    model_segments,
    run_name,
)

CONVERTER_FOLDER = "ml-sdk-model-converter"
SEGMENTS_FOLDER = "gcpe-vgf-segments"
DEFAULT_TIMEOUT_SECONDS = 3600.0
_TAIL_LINES = 20

Runner = Callable[..., "subprocess.CompletedProcess[str]"]


class ToolError(RuntimeError):
    """An external tool (estimator, converter) failed; the message quotes its output."""


def convert_tosa(
    tosa: Path,
    output_dir: Path,
    *,
    converter: str | None = None,
    runner: Runner = subprocess.run,
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
) -> Path:
    """Convert a TOSA file to VGF with ``model-converter --emit-debug-info``."""
    executable = converter or shutil.which("model-converter")
    if executable is None:
        raise InputError(
            str(tosa),
            "TOSA input needs the model-converter of the ai-ml-sdk-model-converter package; "
            "it was not found on PATH",
        )
    folder = make_dirs(CONVERTER_FOLDER, root=Root(output_dir))
    stem = tosa.name
    for suffix in TOSA_SUFFIXES:
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    target = (folder / f"{stem}.vgf").resolve()
    command = [executable, "-i", str(tosa.resolve()), "-o", str(target), "--emit-debug-info"]
    _run_tool("model-converter", command, folder, runner, timeout, str(tosa))
    if not target.is_file():
        raise ToolError(f"Expected output file '{target}' of model-converter does not exist.")
    return target


def run_estimator(
    model: Path,
    output_dir: Path,
    *,
    estimator: Path,
    system_config: str = "default",
    compiler_config: str = "default",
    runner: Runner = subprocess.run,
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
) -> tuple[OutputSet, ...]:
    """Run ``graph-compiler-performance-estimator`` once per graph segment of a VGF.

    ``estimator`` comes from the command line or the user's settings only. A VGF
    holding exactly one (graph) segment is passed as it is; otherwise each graph
    segment is written to ``gcpe-vgf-segments/<stem>_segment_<i>.vgf`` first (the
    estimator accepts single-segment files only) and compute segments are skipped.
    """
    if not estimator.is_file() or not os.access(estimator, os.X_OK):
        raise InputError(str(estimator), "expected the estimator executable (a runnable file)")
    segments = model_segments(model, check_shapes=True)
    assert segments.vgf is not None
    written = Root(output_dir)
    workdir = make_dirs(ESTIMATOR_FOLDER, root=written)
    single = len(segments.graphs) == 1 and not segments.compute_names
    outputs: list[OutputSet] = []
    for graph in segments.graphs:
        name = run_name(model, graph, len(segments.graphs))
        vgf_path = model.resolve()
        if not single:
            single_vgf = single_segment_vgf(segments.data, segments.vgf, graph.index, str(model))
            vgf_path = write_bytes(
                Path(SEGMENTS_FOLDER) / f"{run_name(model, graph, 2)}.vgf",
                single_vgf,
                root=written,
                parents=True,
            ).resolve()
        make_dirs(workdir / name, root=written)
        command = [str(estimator.resolve()), "-i", str(vgf_path), "-o", name]
        if system_config != "default":
            command += ["-s", str(Path(system_config).resolve())]
        if compiler_config != "default":
            command += ["-c", str(Path(compiler_config).resolve())]
        _run_tool(
            "Graph Compiler Performance Estimator", command, workdir, runner, timeout, str(vgf_path)
        )
        files = {
            suffix: workdir / f"{name}{suffix}"
            for suffix in (PERFORMANCE_SUFFIX, DEBUG_SUFFIX, SUMMARY_SUFFIX)
        }
        for path in files.values():
            if not path.is_file():
                raise ToolError(
                    f"Expected output file '{path}' of the NX Performance Estimator does not exist."
                )
        outputs.append(
            OutputSet(name, files[PERFORMANCE_SUFFIX], files[DEBUG_SUFFIX], files[SUMMARY_SUFFIX])
        )
    return tuple(outputs)


def _run_tool(
    title: str, command: list[str], cwd: Path, runner: Runner, timeout: float, subject: str
) -> None:
    try:
        completed = runner(
            command,
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise ToolError(f"{title} did not finish within {timeout:g} s for '{subject}'.") from None
    except OSError as error:
        raise ToolError(f"{title} could not be started ({command[0]}): {error.strerror}") from None
    if completed.returncode != 0:
        lines = (completed.stdout or "").splitlines()[-_TAIL_LINES:]
        tail = "\n".join(lines) if lines else "No backend diagnostic was emitted."
        raise ToolError(
            f"{title} failed for '{subject}' (return code {completed.returncode}). "
            f"Last {len(lines)} lines of its output:\n{tail}"
            if lines
            else f"{title} failed for '{subject}' (return code {completed.returncode}). {tail}"
        )
