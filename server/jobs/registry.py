"""The job types the daemon knows, listed in one place, and convention discovery.

``JOB_TYPES`` is the explicit list (a new job type is added here, nowhere else);
``default_registry`` maps names to types for the engine; ``discover_jobs`` asks every
type which workspace files form a job on their own (used when ``perfline.toml``
declares no jobs) and makes the names unique. Cost: one pass over the file list per
job type.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from perfline.server.jobs.capture_job import CaptureJob
from perfline.server.jobs.context import DiscoveredJob, JobType
from perfline.server.jobs.estimator_job import EstimatorJob
from perfline.server.jobs.executorch_job import ExecuTorchJob
from perfline.server.jobs.onnxruntime_job import OnnxRuntimeJob
from perfline.server.jobs.standardized_job import StandardizedOutputJob
from perfline.server.jobs.static_job import StaticCostJob
from perfline.server.jobs.torch_trace_job import TorchTraceJob

#: Every job type, in the order their conventions are tried.
JOB_TYPES: tuple[JobType, ...] = (
    StandardizedOutputJob(),
    ExecuTorchJob(),
    CaptureJob(),
    EstimatorJob(),
    OnnxRuntimeJob(),
    TorchTraceJob(),
    StaticCostJob(),
)


def default_registry() -> dict[str, JobType]:
    """Job-type name -> job type, for every type of ``JOB_TYPES``."""
    return {job_type.name: job_type for job_type in JOB_TYPES}


def _order(job: DiscoveredJob) -> tuple[str, str, tuple[str, ...]]:
    return (job.name, job.backend, job.inputs)


def discover_jobs(files: Sequence[str], registry: Mapping[str, JobType]) -> list[DiscoveredJob]:
    """Jobs found by every convention of ``registry``, names made unique, sorted by name."""
    found: list[DiscoveredJob] = []
    for job_type in registry.values():
        found.extend(job_type.discover(files))
    seen: dict[str, int] = {}
    unique: list[DiscoveredJob] = []
    for job in sorted(found, key=_order):
        count = seen.get(job.name, 0)
        seen[job.name] = count + 1
        name = job.name if count == 0 else f"{job.name}#{count + 1}"
        unique.append(DiscoveredJob(name, job.backend, job.inputs))
    return unique
