"""What each MCP tool answers, from the ``perfline/*`` API (plain functions, no SDK).

Every function takes ``ask(method, params)`` (a ``WorkspaceSession.request``) and returns
JSON-ready data whose text is the server's: figures as the editor's hints write them
(``9.63 ms avg · 81%``), block totals as its lenses, a line's operators as its breakdown
view, comparisons as ``perfline/compare``. Paths are shown relative to the workspace. Cost:
one to three API requests per tool call, linear in the file's annotated lines.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

Ask = Callable[[str, Any], Any]

#: How long ``reanalyze`` waits for the jobs to settle (seconds).
SETTLE_SECONDS = 120.0


def hot_lines(
    ask: Ask, root: Path, file: str, *, limit: int = 10, job: str | None = None
) -> dict[str, Any]:
    """The costliest lines of ``file`` (largest share of the model first), each with its
    code, its figure and the job it comes from; and the totals of its functions and
    ``nn.Module`` classes."""
    params = _with_job({"file": file}, job)
    answer = ask("perfline/lineAnnotations", params)
    source = _source_lines(root, answer["file"])
    ranked: list[dict[str, Any]] = []
    for item in answer["lines"]:
        for entity in item["entities"]:
            if not entity.get("label"):
                continue
            number = item.get("currentLine") or item["line"]
            ranked.append(
                {
                    "line": number,
                    "code": _code(source, number),
                    "figure": entity["label"],
                    "share": entity.get("share"),
                    "value": entity.get("value"),
                    "metric": entity.get("metric"),
                    "job": entity["job"],
                }
            )
    ranked.sort(key=lambda row: (-(row["share"] or 0.0), -(row["value"] or 0.0), row["line"]))
    lenses = ask("perfline/codeLenses", params)["lenses"]
    return {
        "file": _shown(root, answer["file"]),
        "lines": ranked[: max(limit, 0)],
        "annotatedLines": len(ranked),
        "blocks": [
            {
                "name": lens["name"],
                "kind": lens["kind"],
                "lines": [lens["line"], lens["endLine"]],
                "summary": lens["title"],
            }
            for lens in lenses
        ],
    }


def line_figures(
    ask: Ask, root: Path, file: str, line: int, *, job: str | None = None
) -> dict[str, Any]:
    """One line's figures (every metric of every job on it) and its operators, most costly
    first, as the editor's breakdown view lists them."""
    params = _with_job({"file": file, "metrics": True}, job)
    answer = ask("perfline/lineAnnotations", params)
    source = _source_lines(root, answer["file"])
    figures = []
    for item in answer["lines"]:
        if (item.get("currentLine") or item["line"]) != line:
            continue
        for entity in item["entities"]:
            if entity.get("value") is None:
                continue
            figures.append(
                {
                    "job": entity["job"],
                    "figure": entity.get("label"),
                    "value": entity.get("value"),
                    "metric": entity.get("metric"),
                    "statistic": entity.get("statistic"),
                    "share": entity.get("share"),
                    "metrics": entity.get("metrics", []),
                    "sourceOperators": entity.get("sourceOperators", []),
                    "producer": entity.get("producer"),
                    "mode": entity.get("mode"),
                }
            )
    data: dict[str, Any] = {
        "file": _shown(root, answer["file"]),
        "line": line,
        "code": _code(source, line),
        "figures": figures,
    }
    if not figures:
        lenses = ask("perfline/codeLenses", _with_job({"file": file}, job))["lenses"]
        reasons = [
            missing["reason"]
            for lens in lenses
            for missing in lens.get("missing", [])
            if missing["line"] == line
        ]
        why = f" ({reasons[0]})" if reasons else ""
        data["note"] = f"no figure on this line{why}"
        return data
    view = ask(
        "perfline/breakdown",
        _with_job({"file": file, "startLine": line, "endLine": line}, job),
    )
    data["breakdown"] = view["markdown"]
    return data


def compare_runs(
    ask: Ask,
    root: Path,
    *,
    job: str | None = None,
    file: str | None = None,
    changes_only: bool = True,
    limit: int = 20,
) -> dict[str, Any]:
    """Each job's current run against its baseline (``set_baseline``, or ``baseline`` in
    ``perfline.toml``): the model-level changes and the lines that changed most, with
    their verdicts (regression, improvement, noise, ...)."""
    params: dict[str, Any] = _with_job({"changesOnly": changes_only, "wait": True}, job)
    if file is not None:
        params["file"] = file
    answer = ask("perfline/compare", params)
    jobs = []
    for entry in answer["jobs"]:
        lines = sorted(entry.get("lines") or [], key=_largest_change, reverse=True)
        baseline = entry.get("baseline") or {}
        jobs.append(
            {
                "job": entry["job"],
                "state": entry["state"],
                "baseline": baseline.get("path"),
                "error": entry.get("error"),
                "warnings": entry.get("warnings", []),
                "model": entry.get("model", []),
                "lines": [
                    {**line, "file": _shown(root, line["file"]) if line.get("file") else None}
                    for line in lines[: max(limit, 0)]
                ],
                "changedLines": len(lines),
            }
        )
    return {"jobs": jobs}


def set_baseline(ask: Ask, *, job: str | None = None) -> dict[str, Any]:
    """Keep a job's current result as the baseline later comparisons are made against."""
    answer: dict[str, Any] = ask("perfline/setBaseline", _with_job({"wait": True}, job))
    return answer


def jobs(ask: Ask, root: Path) -> dict[str, Any]:
    """The workspace's jobs with their state and error (file and line), the configuration's
    problem if any, and the source files that carry figures."""
    status = ask("perfline/status", None)
    listed = ask("perfline/jobs", None)["jobs"]
    return {
        "workspace": status["workspace"],
        "configError": status.get("configError"),
        "jobs": [
            {
                key: info.get(key)
                for key in ("name", "backend", "inputs", "state", "stale", "error", "hasResult")
            }
            for info in listed
        ],
        "annotatedFiles": [_shown(root, path) for path in status.get("annotatedFiles", [])],
    }


def reanalyze(ask: Ask, root: Path, *, job: str | None = None) -> dict[str, Any]:
    """Analyse again now (after the model was re-exported or re-profiled), wait until no
    job is pending or running (two minutes at the most), and list the jobs."""
    before = {info["name"]: info["generation"] for info in ask("perfline/jobs", None)["jobs"]}
    scheduled = ask("perfline/reanalyze", _with_job({}, job))["scheduled"]
    deadline = time.monotonic() + SETTLE_SECONDS
    while True:
        listed = {info["name"]: info for info in ask("perfline/jobs", None)["jobs"]}
        done = all(
            name in listed
            and listed[name]["state"] in ("ok", "error")
            and listed[name]["generation"] != before.get(name)
            for name in scheduled
        )
        if done or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    return {"scheduled": scheduled, "settled": done, **jobs(ask, root)}


def _with_job(params: dict[str, Any], job: str | None) -> dict[str, Any]:
    return {**params, "job": job} if job else params


def _largest_change(line: dict[str, Any]) -> float:
    deltas = [abs(m.get("delta") or 0.0) for m in line.get("metrics", [])]
    return max(deltas, default=0.0)


def _shown(root: Path, path: str) -> str:
    try:
        return Path(path).relative_to(root).as_posix()
    except ValueError:
        return path


def _code(source: list[str], line: int) -> str | None:
    return source[line - 1].strip() if 0 < line <= len(source) else None


def _source_lines(root: Path, path: str) -> list[str]:
    """The lines of a workspace source file as saved (none when it cannot be read)."""
    from perfline.core.errors import InputError
    from perfline.server.file_access import SOURCE_LIMITS, Root, read_text

    try:
        return read_text(path, root=Root(root), limits=SOURCE_LIMITS).splitlines()
    except InputError:
        return []
