"""The ``torch-profiler`` job type: torch.profiler traces of one program -> the measured result.

Inputs: one or more traces (``.json`` or ``.json.gz``, what ``export_chrome_trace`` and
``tensorboard_trace_handler`` write) and, beside each, optionally the statement sidecar
``perfline profile`` writes (``NAME.perfline.json``; statement level). The traces' frames are
resolved onto the workspace (``path_map`` and ``source_roots`` of ``perfline.toml``, then unique
path suffixes among its Python files: the run's ``resolver``).

Convention (when ``perfline.toml`` declares no jobs):

* every ``*.pt.trace.json`` / ``*.pt.trace.json.gz`` of the workspace is a job named after it
  (``runs/step.pt.trace.json`` -> ``runs/step``), with its sidecar when present;
* ``.perfline/runs/<time>-<random>/``, where ``perfline profile`` writes (the one place under
  ``.perfline`` that holds inputs, ``PROFILE_RUNS``): the traces of the latest
  run folder (folder names sort by time) are one job, ``perfline profile``, so a new run
  replaces the figures when it lands.

A plain ``trace.json`` is declared in ``perfline.toml`` (``backend = "torch-profiler"``). Each
trace is read once per content (memoized by its digest and its sidecar's), the document by
those and the resolution of the frames' files, the post-processed one also by the pipeline
settings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from perfline.core.backends.torch_profiler.sidecar import SIDECAR_SUFFIX, read_sidecar
from perfline.core.envelope import iso_timestamp
from perfline.core.errors import InputError
from perfline.server.jobs.context import DiscoveredJob, JobContext, JobInput
from perfline.server.jobs.stage_memo import RAW_STAGE_KEEP
from perfline.server.jobs.two_stage import processed_stage

#: The one folder under ``.perfline`` whose files are inputs: the run folders ``perfline
#: profile`` and ``perfline.torch`` write (a trace and its statement sidecar each), which this
#: job type picks up (``server.workspace`` scans and watches it). Everything else there
#: (baselines) is never an input.
PROFILE_RUNS = (".perfline", "runs")
TRACE_SUFFIXES = (".pt.trace.json", ".pt.trace.json.gz")
RUNS_FOLDER = "/".join(PROFILE_RUNS) + "/"
PROFILE_JOB = "perfline profile"


def is_trace_name(path: str) -> bool:
    """A file named as torch.profiler names traces."""
    return path.lower().endswith(TRACE_SUFFIXES)


def _split(inputs: Sequence[JobInput]) -> tuple[list[JobInput], dict[str, JobInput]]:
    sidecars = {
        i.path[: -len(SIDECAR_SUFFIX)]: i for i in inputs if i.path.endswith(SIDECAR_SUFFIX)
    }
    traces = [
        i
        for i in inputs
        if not i.path.endswith(SIDECAR_SUFFIX) and i.path.lower().endswith((".json", ".json.gz"))
    ]
    return traces, sidecars


class TorchTraceJob:
    """torch.profiler traces (+ statement sidecars) -> the measured result."""

    name = "torch-profiler"
    description = "torch.profiler traces (statement level with perfline profile's sidecar)"

    def run(self, context: JobContext) -> dict[str, Any]:
        from perfline.core.backends.torch_profiler.document import analyze_traces

        where = ", ".join(i.path for i in context.inputs) or None
        traces, sidecars = _split(context.inputs)
        if not traces:
            raise InputError(where, "a torch-profiler job takes one or more traces (.json[.gz])")
        reads = [_read(context, trace, sidecars.get(trace.path)) for trace in traces]
        resolved, workspace = _resolved(context, reads)
        timestamp = iso_timestamp(max(i.mtime for i in context.inputs))
        key = (
            *((i.path, i.digest) for i in context.inputs),
            tuple(sorted(resolved.items())),
            timestamp,
        )

        def raw() -> dict[str, Any]:
            document: dict[str, Any] = analyze_traces(
                reads, resolved, timestamp=timestamp, workspace=workspace
            )
            return document

        return processed_stage(context, "torch-profiler", key, raw, traces[0].path)

    def discover(self, files: Sequence[str]) -> list[DiscoveredJob]:
        present = set(files)
        jobs: list[DiscoveredJob] = []
        latest: str | None = None
        for path in files:
            if not is_trace_name(path):
                continue
            if path.startswith(RUNS_FOLDER):
                folder = path[len(RUNS_FOLDER) :].partition("/")[0]
                if latest is None or folder > latest:
                    latest = folder
                continue
            jobs.append(DiscoveredJob(_stem(path), self.name, _with_sidecar(path, present)))
        if latest is not None:
            prefix = f"{RUNS_FOLDER}{latest}/"
            inputs: list[str] = []
            for path in files:
                if path.startswith(prefix) and is_trace_name(path):
                    inputs.extend(_with_sidecar(path, present))
            jobs.append(DiscoveredJob(PROFILE_JOB, self.name, tuple(inputs)))
        return jobs


def _read(context: JobContext, trace: JobInput, sidecar: JobInput | None) -> Any:
    """One trace read (with its sidecar), memoized by their contents."""
    from perfline.core.backends.torch_profiler.document import read_trace

    def read() -> Any:
        found = read_sidecar(sidecar.data, sidecar.path) if sidecar else None
        name = trace.path.rpartition("/")[2]
        return read_trace([trace.data], trace.path, sidecar=found, trace_name=name)

    key = (trace.path, trace.digest, sidecar.digest if sidecar else None)
    done = context.memo.get_or_compute(
        "torch-profiler.read", key, read, refresh=context.fresh, keep=RAW_STAGE_KEEP
    )
    context.check_cancelled()
    return done


def _resolved(context: JobContext, reads: Sequence[Any]) -> tuple[dict[str, str | None], str]:
    """The traces' recorded files resolved onto the workspace, and its name."""
    from perfline.core.backends.torch_profiler.document import trace_files
    from perfline.core.backends.torch_profiler.resolution import resolve_names

    resolver = context.resolver
    if resolver is None:
        return {}, "(no workspace)"
    resolution = resolve_names(
        trace_files(reads),
        resolver.python_files,
        root=str(resolver.root),
        path_maps=resolver.path_maps,
        source_roots=resolver.source_roots,
    )
    return dict(resolution.paths), str(resolver.root)


def _stem(path: str) -> str:
    lowered = path.lower()
    for suffix in sorted(TRACE_SUFFIXES, key=len, reverse=True):
        if lowered.endswith(suffix):
            return path[: -len(suffix)]
    return path


def _with_sidecar(path: str, present: set[str]) -> tuple[str, ...]:
    sidecar = path + SIDECAR_SUFFIX
    return (path, sidecar) if sidecar in present else (path,)
