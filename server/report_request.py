"""``perfline/reportHtml``: a job's HTML report page, rendered by the server for a client.

The page is ``report_sources.render_document_html`` of the job's last good (processed)
document, its sources read through the engine's path resolver (``Engine.resolve_source``: the
files the line index put the figures on, never one outside the workspace) with
``locations=True``, so a click on a line can name the local file (the VS Code webview opens it).
With a baseline the page is the compare view: the job's document compared with the baseline
document by ``core.compare.compare_documents`` (default settings; files taken as unchanged: no
line mapping), the job's result the new run.

Params (a JSON object): ``job`` (optional: the first job with a result), ``nonce`` (optional:
the webview's Content Security Policy nonce, 8-128 characters of ``[A-Za-z0-9+/=_-]``; without
one the page allows its own inline style and script), ``metric`` (optional: the metric to size
and label by; ``auto`` or absent: the daemon's ``--metric``, else ``[display] metric``, else
the dominant one), ``baseline`` (optional: a standardized document inside the workspace, raw or
processed, such as a saved ``mlia-output.json``). ``baseline_document`` is the one place a
baseline is found: the ``baseline`` param today; a baseline set for the job by other means
plugs in there. Answer: ``{job, generation, stale, title, html, baseline}`` with ``baseline``
``null`` or ``{file, pairs, warnings}``. Errors: those of every method (unknown job, no
result, bad params, a path outside the workspace) and ``BAD_BASELINE`` (the file is missing,
too large, not JSON, not a document, or of another model, producer or mode).

Cost: the renderer's linear pass (about 1 s and 2.6 MB at 5,000 chains) plus, with a
baseline, reading it and the comparison (linear, plus one rank test per sampled figure). The
LSP shell runs it on a worker thread (``api.THREADED_METHODS``), so hints keep flowing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from perfline.core.errors import InputError
from perfline.core.report_html import report_title
from perfline.server import api
from perfline.server.file_access import Limits, read_bytes
from perfline.server.report_sources import render_document_html
from perfline.server.view.engine_surface import EngineSurface

if TYPE_CHECKING:
    from perfline.core.compare.comparison import Comparison

#: A baseline that cannot be used: missing, too large, not a document, another model.
BAD_BASELINE = -32005
#: The largest baseline document read (a 20,000-chain NX document is about 60 MB).
MAX_BASELINE_BYTES = 256 * 1024 * 1024
#: How long reading it may take (seconds): a request thread waits no longer.
BASELINE_READ_SECONDS = 30.0
_LIMITS = Limits.with_overrides({"baseline": MAX_BASELINE_BYTES}).within(BASELINE_READ_SECONDS)


@runtime_checkable
class ReportEngine(EngineSurface, Protocol):
    """The engine queries the report needs beyond the view's surface."""

    def resolve_source(self, recorded: str) -> Path | None: ...
    @property
    def display_metric(self) -> str | None: ...


def _metric(engine: ReportEngine, params: Mapping[str, Any]) -> str | None:
    metric = api.param_string(params, "metric", required=False)
    return engine.display_metric if metric in (None, "auto") else metric


def _job(engine: EngineSurface, params: Mapping[str, Any]) -> str:
    name = api.job_name(engine, params, required=False)
    if name is not None:
        return name
    for info in engine.jobs():
        if info.has_result and engine.result(info.name) is not None:
            return info.name
    raise api.ApiError(api.NO_RESULT, "no job has a result yet")


def read_baseline(engine: EngineSurface, given: str) -> tuple[dict[str, Any], str]:
    """The baseline document at ``given`` (inside the workspace) and its workspace path."""
    path = api.workspace_path(engine, given)
    shown = path.relative_to(engine.root).as_posix()
    try:
        data = json.loads(
            read_bytes(path, root=engine.boundary, kind="baseline", limits=_LIMITS, source=shown)
        )
    except InputError as error:
        reason = "; ".join(problem.message for problem in error.problems)
        raise api.ApiError(BAD_BASELINE, f"{shown}: cannot read the baseline: {reason}") from None
    except ValueError as error:
        raise api.ApiError(BAD_BASELINE, f"{shown}: not JSON ({error})") from None
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise api.ApiError(
            BAD_BASELINE,
            f"{shown}: not a standardized-output document (expected an object with "
            "schema_version and results, such as mlia-output.json)",
        )
    return data, shown


def baseline_document(
    engine: EngineSurface, job: str, params: Mapping[str, Any]
) -> tuple[dict[str, Any], str] | None:
    """The baseline the job's report is compared with, if any (see the module docstring)."""
    del job  # a baseline set for the job (not only per request) is looked up here
    given = api.param_string(params, "baseline", required=False)
    return read_baseline(engine, given) if given is not None else None


def _comparison(
    baseline: tuple[dict[str, Any], str], document: Mapping[str, Any], label: str
) -> Comparison:
    from perfline.core.compare.comparison import compare_documents

    base, shown = baseline
    try:
        return compare_documents(base, document, base_source=shown, new_source=label)
    except InputError as error:
        raise api.ApiError(BAD_BASELINE, str(error)) from None


def report_page(engine: EngineSurface, params: Any) -> dict[str, Any]:
    """The ``perfline/reportHtml`` answer (see the module docstring)."""
    if not isinstance(engine, ReportEngine):
        raise api.ApiError(api.NO_RESULT, "this server cannot read the workspace's sources")
    p = api.params_object(params)
    name = _job(engine, p)
    good, info = engine.result(name), engine.job(name)
    if good is None or info is None:
        raise api.ApiError(api.NO_RESULT, f"job {name!r} has no result yet")
    nonce = api.param_string(p, "nonce", required=False)
    label = f"job {name} (generation {good.generation})"
    baseline = baseline_document(engine, name, p)
    comparison = _comparison(baseline, good.document, label) if baseline is not None else None
    title = report_title(good.document, compared=comparison is not None)
    try:
        page = render_document_html(
            good.document,
            engine.resolve_source,
            files=engine.boundary,
            root=engine.root,
            metric=_metric(engine, p),
            comparison=comparison,
            nonce=nonce,
            locations=True,
            title=title,
        )
    except ValueError as error:  # the nonce
        raise api.ApiError(api.INVALID_PARAMS, f"parameter 'nonce': {error}") from None
    return {
        "job": name,
        "generation": good.generation,
        "stale": info.stale,
        "title": title,
        "html": page,
        "baseline": None
        if comparison is None or baseline is None
        else {
            "file": baseline[1],
            "pairs": len(comparison.results),
            "warnings": list(comparison.warnings),
        },
    }
