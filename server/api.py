"""The versioned JSON-RPC API for scripts, as plain functions over an engine.

Each method takes the engine (anything with the query surface of
``server.view.engine_surface.EngineSurface``), the request's params (a JSON object) and,
optionally, the asking connection's line map (analysis line -> the line in its editor
now, used by ``perfline/lineAnnotations``), and returns a JSON value; bad params, unknown
jobs or entities and files outside the workspace raise ``ApiError`` with a JSON-RPC error
code and a message saying what was wrong. The view layer answers ``perfline/<method>``
requests through these (``ConnectionView.request``, with its line map); the in-process
``perfline annotate`` calls them directly. See ``docs/api.md``.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import unquote, urlparse

from perfline.core.compare.deltas import CompareSettings
from perfline.core.errors import InputError
from perfline.server.baselines.compare_service import CompareService
from perfline.server.line_entries import LineEntry
from perfline.server.scheduler.boundary import MAX_PATH_LENGTH, PathOutside, PathRefused
from perfline.server.scheduler.bounded_reads import read_source_text
from perfline.server.view import breakdowns, code_blocks, compare_answers, line_labels, run_summary
from perfline.server.view.compare_options import read_compare_options
from perfline.server.view.engine_surface import EngineSurface, JobView, LineMap
from perfline.server.view.hint_settings import HintSettings

API_VERSION = "1.2"

#: How long ``wait: true`` waits for a comparison or a baseline write (seconds).
WAIT_SECONDS = 120.0

INVALID_PARAMS = -32602
UNKNOWN_JOB = -32001
OUTSIDE_WORKSPACE = -32002
UNKNOWN_ENTITY = -32003
NO_RESULT = -32004


class ApiError(Exception):
    """A JSON-RPC error: ``code`` and a human-readable ``message``."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


def _params(params: Any) -> Mapping[str, Any]:
    if params is None or (isinstance(params, list) and not params):
        return {}  # no params (some clients encode an empty object as [])
    if not isinstance(params, Mapping):
        raise ApiError(INVALID_PARAMS, "params must be a JSON object")
    return params


def _string(params: Mapping[str, Any], key: str, *, required: bool = True) -> str | None:
    value = params.get(key)
    if value is None:
        if required:
            raise ApiError(INVALID_PARAMS, f"missing parameter {key!r} (a string)")
        return None
    if not isinstance(value, str) or not value:
        raise ApiError(INVALID_PARAMS, f"parameter {key!r} must be a non-empty string")
    return value


def _job_name(
    engine: EngineSurface, params: Mapping[str, Any], *, required: bool = True
) -> str | None:
    name = _string(params, "job", required=required)
    if name is not None and engine.job(name) is None:
        known = ", ".join(engine.job_names()) or "none"
        raise ApiError(UNKNOWN_JOB, f"unknown job {name!r}; known jobs: {known}")
    return name


def job_json(info: JobView) -> dict[str, Any]:
    error = None
    if info.error is not None:
        error = {"message": info.error.message, "file": info.error.file, "line": info.error.line}
    return {
        "name": info.name,
        "backend": info.backend,
        "inputs": list(info.inputs),
        "state": info.state,
        "stale": info.stale,
        "error": error,
        "generation": info.generation,
        "runs": info.runs,
        "hasResult": info.has_result,
    }


#: The longest ``file`` parameter read (a ``file://`` URI may escape every byte as ``%XX``).
MAX_FILE_PARAM = 3 * MAX_PATH_LENGTH + len("file://")


def workspace_path(engine: EngineSurface, given: str) -> Path:
    """A ``file://`` URI or a path (absolute or workspace-relative) -> its real path inside
    the workspace (``engine.resolve_client_path``: length-limited, linear time); -32002
    outside it, -32602 for a path that cannot be one (too long, a NUL byte, a loop)."""
    if len(given) > MAX_FILE_PARAM:
        raise ApiError(
            INVALID_PARAMS, f"parameter 'file' is longer than {MAX_PATH_LENGTH} characters"
        )
    text = unquote(urlparse(given).path) if given.startswith("file:") else given
    try:
        return engine.resolve_client_path(text)
    except PathOutside:
        root = engine.root.as_posix()
        raise ApiError(
            OUTSIDE_WORKSPACE, f"{_shown(given)} is outside the workspace {root!r}"
        ) from None
    except PathRefused as error:
        raise ApiError(INVALID_PARAMS, f"parameter 'file': {error}") from None


def _shown(text: str) -> str:
    return repr(text if len(text) <= 200 else text[:100] + "..." + text[-60:])


def status(
    engine: EngineSurface, params: Any = None, lines: LineMap | None = None
) -> dict[str, Any]:
    _params(params)
    jobs = engine.jobs()
    config_error = engine.config_error
    return {
        "apiVersion": API_VERSION,
        "workspace": engine.root.as_posix(),
        "jobs": len(jobs),
        "running": sum(1 for j in jobs if j.state == "running"),
        "errors": sum(1 for j in jobs if j.error is not None),
        "configError": str(config_error) if config_error else None,
        "annotatedFiles": engine.annotated_files(),
    }


def jobs(engine: EngineSurface, params: Any = None, lines: LineMap | None = None) -> dict[str, Any]:
    _params(params)
    return {"jobs": [job_json(info) for info in engine.jobs()]}


def result(engine: EngineSurface, params: Any, lines: LineMap | None = None) -> dict[str, Any]:
    p = _params(params)
    name = _job_name(engine, p)
    assert name is not None
    info = engine.job(name)
    good = engine.result(name)
    if good is None or info is None:
        raise ApiError(
            NO_RESULT, f"job {name!r} has no result yet", job_json(info) if info else None
        )
    return {
        "job": name,
        "generation": good.generation,
        "stale": info.stale,
        "error": info.error.message if info.error else None,
        "document": good.document,
    }


def entry_json(entry: LineEntry, *, include_metrics: bool = True) -> dict[str, Any]:
    data: dict[str, Any] = {
        "job": entry.facts.job,
        "resultIndex": entry.facts.result_index,
        "entityId": entry.facts.entity_id,
        "label": entry.label,
        "value": entry.value,
        "metric": {"name": entry.metric.name, "unit": entry.metric.unit} if entry.metric else None,
        "statistic": entry.statistic,
        "share": entry.share,
        "stacks": list(entry.facts.stacks),
        "sourceOperators": [str(o.get("id")) for o in entry.facts.source_operators],
        "producer": entry.facts.producer,
        "mode": entry.facts.mode,
    }
    if include_metrics:
        data["metrics"] = [dict(m) for m in entry.metrics]
    return data


def line_annotations(
    engine: EngineSurface, params: Any, lines: LineMap | None = None
) -> dict[str, Any]:
    p = _params(params)
    given = _string(p, "file")
    assert given is not None
    path = workspace_path(engine, given)
    job = _job_name(engine, p, required=False)
    found = []
    for number, entries in sorted(engine.line_entries(path).items()):
        chosen = [e for e in entries if job is None or e.facts.job == job]
        if not chosen:
            continue
        current = lines(path, number) if lines is not None else number
        labels = [e.label for e in chosen if e.label]
        found.append(
            {
                "line": number,
                "currentLine": current,
                "label": "  ".join(dict.fromkeys(labels)) or None,
                "entities": [entry_json(e, include_metrics=bool(p.get("metrics"))) for e in chosen],
            }
        )
    return {"file": path.as_posix(), "lines": found}


def entity(engine: EngineSurface, params: Any, lines: LineMap | None = None) -> dict[str, Any]:
    p = _params(params)
    name = _job_name(engine, p)
    assert name is not None
    entity_id = _string(p, "entityId")
    assert entity_id is not None
    result_index = p.get("resultIndex")
    if result_index is not None and (
        isinstance(result_index, bool) or not isinstance(result_index, int)
    ):
        raise ApiError(INVALID_PARAMS, "parameter 'resultIndex' must be an integer")
    good = engine.result(name)
    if good is None:
        raise ApiError(NO_RESULT, f"job {name!r} has no result yet")
    results = good.document.get("results") or []
    indices = [result_index] if result_index is not None else range(len(results))
    for index in indices:
        if not isinstance(index, int) or not 0 <= index < len(results):
            raise ApiError(
                INVALID_PARAMS, f"resultIndex {index} is out of range (0..{len(results) - 1})"
            )
        found = good.index.entities.get((index, entity_id))
        if found is None:
            continue
        res = results[index]
        entities = {e.get("id"): e for e in res.get("entities") or ()}
        parents = set(found.get("parent_ids") or ())
        children = set(found.get("child_ids") or ())
        for other in entities.values():
            if entity_id in (other.get("child_ids") or ()):
                parents.add(other.get("id"))
            if entity_id in (other.get("parent_ids") or ()):
                children.add(other.get("id"))

        def brief(ids: set[Any], entities: dict[Any, Any] = entities) -> list[dict[str, Any]]:
            return [
                {"id": i, "kind": entities[i].get("kind"), "name": entities[i].get("name")}
                for i in sorted(x for x in ids if x in entities)
            ]

        return {
            "job": name,
            "resultIndex": index,
            "entity": found,
            "breakdowns": [
                b for b in res.get("breakdowns") or () if b.get("entity_id") == entity_id
            ],
            "parents": brief(parents),
            "children": brief(children),
            "producer": res.get("producer"),
            "mode": res.get("mode"),
        }
    raise ApiError(UNKNOWN_ENTITY, f"job {name!r} has no entity {entity_id!r}")


def code_lenses(engine: EngineSurface, params: Any, lines: LineMap | None = None) -> dict[str, Any]:
    """The code lenses of a source file as saved (what ``perfline annotate`` prints)."""
    p = _params(params)
    given = _string(p, "file")
    assert given is not None
    path = workspace_path(engine, given)
    job = _job_name(engine, p, required=False)
    by_line = {
        n: [e for e in found if job is None or e.facts.job == job]
        for n, found in engine.line_entries(path).items()
    }
    try:
        source = read_source_text(path, engine.boundary)
    except InputError as error:
        raise ApiError(NO_RESULT, f"cannot read the source: {error}") from None
    # the view's lens path (``ConnectionView.lenses``), for the file as saved with the
    # default hint settings: the same blocks, figures and totals
    blocks = code_blocks.lenses_of(
        source,
        str(path),
        {n: e for n, e in by_line.items() if e},
        HintSettings(),
        functools.partial(line_labels.result_total, engine),
        lambda _file, number: number,
    )
    return {"file": path.as_posix(), "lenses": [_lens_json(b) for b in blocks]}


def _lens_json(block: code_blocks.CodeBlock) -> dict[str, Any]:
    return {
        "line": block.line,
        "endLine": block.end_line,
        "kind": block.kind,
        "name": block.name,
        "title": block.title,
        "total": block.total,
        "own": block.own,
        "complete": block.complete,
        "missing": [{"line": n, "reason": r} for n, r in block.missing],
    }


def breakdown(engine: EngineSurface, params: Any, lines: LineMap | None = None) -> dict[str, Any]:
    """The Markdown breakdown of some lines of a file (current lines of the asking
    connection), a whole file, or the whole model (no ``file``)."""
    p = _params(params)
    job = _job_name(engine, p, required=False)
    given = _string(p, "file", required=False)
    first, last = _line_param(p, "startLine"), _line_param(p, "endLine")
    found = None
    if given is not None:
        path = workspace_path(engine, given)
        found = breakdowns.lines_breakdown(engine, path, job, (first, last), lines)
    if found is None:  # nothing on those lines: the whole model
        found = breakdowns.model_breakdown(engine, job)
    if found is None:
        raise ApiError(
            NO_RESULT,
            "no job has a result yet" if job is None else f"job {job!r} has no result yet",
        )
    return found


def _line_param(params: Mapping[str, Any], key: str) -> int | None:
    value = params.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ApiError(INVALID_PARAMS, f"parameter {key!r} must be a line number (1 or more)")
    return value


def summary(engine: EngineSurface, params: Any, lines: LineMap | None = None) -> dict[str, Any]:
    """A job's headline figures and what ran (the status bar's text)."""
    p = _params(params)
    job = _job_name(engine, p, required=False)
    metric = _string(p, "metric", required=False)
    names = [job] if job is not None else [j.name for j in engine.jobs() if j.has_result]
    for name in names:
        good = engine.result(name)
        if good is not None:
            found = run_summary.summary(good.document, None if metric == "auto" else metric)
            return {
                "job": name,
                "headline": list(found.headline),
                "text": " · ".join(found.headline),
                "metrics": list(found.metrics),
                "run": found.run,
            }
    raise ApiError(
        NO_RESULT, "no job has a result yet" if job is None else f"job {job!r} has no result yet"
    )


def report_html(engine: EngineSurface, params: Any, lines: LineMap | None = None) -> dict[str, Any]:
    """A job's HTML report page, the compare view with a baseline (``server/report_request``,
    imported on first use: the renderer and the compare core load only when asked)."""
    from perfline.server.report_request import report_page

    return report_page(engine, params)


#: The param readers other method modules share (``server/report_request``).
params_object = _params
param_string = _string
job_name = _job_name


def reanalyze(engine: EngineSurface, params: Any, lines: LineMap | None = None) -> dict[str, Any]:
    p = _params(params)
    name = _job_name(engine, p, required=False)
    return {"scheduled": engine.reanalyze(name)}


def _service(engine: EngineSurface) -> CompareService:
    """The engine's comparison service (``Engine.comparisons``); an engine without one (a
    stand-in of the view's tests) compares no baselines."""
    service = getattr(engine, "comparisons", None)
    if not isinstance(service, CompareService):
        raise ApiError(NO_RESULT, "this engine compares no baselines")
    return service


def _flag(params: Mapping[str, Any], key: str, default: bool = False) -> bool:
    value = params.get(key, default)
    if not isinstance(value, bool):
        raise ApiError(INVALID_PARAMS, f"parameter {key!r} must be true or false")
    return value


def _settings(params: Mapping[str, Any]) -> CompareSettings:
    given = {k: params[k] for k in ("level", "correction", "estimateThreshold") if k in params}
    options, problems = read_compare_options({"compare": given})
    if problems:
        raise ApiError(INVALID_PARAMS, "; ".join(problems))
    return options.settings


def compare(engine: EngineSurface, params: Any, lines: LineMap | None = None) -> dict[str, Any]:
    """Each job's (or one job's) current result against its baseline, per line."""
    p = _params(params)
    job = _job_name(engine, p, required=False)
    given = _string(p, "file", required=False)
    only_file = workspace_path(engine, given) if given is not None else None
    wait, changes_only, settings = _flag(p, "wait"), _flag(p, "changesOnly"), _settings(p)
    service = _service(engine)
    names = [job] if job is not None else list(engine.job_names())
    for name in names:  # ask, so that these settings get computed
        good = engine.result(name)
        service.comparison(name, good.generation if good is not None else -1, settings)
    if wait:
        service.wait_idle(WAIT_SECONDS)
    answers = []
    for name in names:
        state, baseline, problem = service.describe(name)
        good = engine.result(name)
        found = service.comparison(name, good.generation, settings) if good is not None else None
        if state == "ready" and found is None:
            state = "computing"
        answer: dict[str, Any] = {
            "job": name,
            "state": state,
            "baseline": compare_answers.baseline_json(baseline),
            "error": compare_answers.problem_json(problem),
            "generation": good.generation if good is not None else None,
            "settings": compare_answers.settings_json(found, settings),
            "warnings": list(found.comparison.warnings) if found is not None else [],
            "model": [],
            "lines": [],
        }
        if found is not None and good is not None:
            answer["model"] = compare_answers.model_json(found)
            answer["lines"] = compare_answers.lines_json(
                found, good.index, only_file, lines, changes_only
            )
        answers.append(answer)
    return {"jobs": answers}


def _one_job(engine: EngineSurface, params: Mapping[str, Any]) -> str:
    name = _job_name(engine, params, required=False)
    if name is not None:
        return name
    with_results = [j.name for j in engine.jobs() if j.has_result]
    if len(with_results) == 1:
        return with_results[0]
    known = ", ".join(engine.job_names()) or "none"
    raise ApiError(INVALID_PARAMS, f"missing parameter 'job' (one of: {known})")


def set_baseline(
    engine: EngineSurface, params: Any, lines: LineMap | None = None
) -> dict[str, Any]:
    """Keep a job's current result (and its source texts) as the job's baseline."""
    p = _params(params)
    name = _one_job(engine, p)
    wait = _flag(p, "wait", default=True)
    try:
        ticket = _service(engine).set_baseline(name)
    except LookupError:
        raise ApiError(NO_RESULT, f"job {name!r} has no result yet") from None
    if not wait:
        return {"job": name, "state": "scheduled", "path": None, "error": None}
    if not ticket.wait(WAIT_SECONDS):
        return {"job": name, "state": "scheduled", "path": None, "error": None}
    return {
        "job": name,
        "state": "set" if ticket.error is None else "error",
        "path": ticket.path,
        "error": ticket.error,
    }


def clear_baseline(
    engine: EngineSurface, params: Any, lines: LineMap | None = None
) -> dict[str, Any]:
    """Forget the baseline set with ``perfline/setBaseline`` (perfline.toml's applies again)."""
    p = _params(params)
    name = _one_job(engine, p)
    ticket = _service(engine).clear_baseline(name)
    if _flag(p, "wait", default=True):
        ticket.wait(WAIT_SECONDS)
    return {"job": name, "error": ticket.error}


class Method(Protocol):
    """An API method: (engine, params, the asking connection's line map) -> JSON object."""

    def __call__(
        self, engine: EngineSurface, params: Any, lines: LineMap | None = None
    ) -> dict[str, Any]: ...


METHODS: dict[str, Method] = {
    "perfline/status": status,
    "perfline/jobs": jobs,
    "perfline/result": result,
    "perfline/lineAnnotations": line_annotations,
    "perfline/entity": entity,
    "perfline/reanalyze": reanalyze,
    "perfline/codeLenses": code_lenses,
    "perfline/breakdown": breakdown,
    "perfline/summary": summary,
    "perfline/reportHtml": report_html,
    "perfline/compare": compare,
    "perfline/setBaseline": set_baseline,
    "perfline/clearBaseline": clear_baseline,
}

#: Methods the LSP shell answers on a worker thread: they take long (rendering the report
#: page) or may wait when asked to (``wait: true``: a comparison, a baseline write).
THREADED_METHODS = frozenset(
    {"perfline/reportHtml", "perfline/compare", "perfline/setBaseline", "perfline/clearBaseline"}
)

RESULT_CHANGED = "perfline/resultChanged"
