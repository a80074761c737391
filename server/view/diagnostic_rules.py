"""Which files get which diagnostics: advice and checks on source lines, configuration
errors on ``perfline.toml``, job errors on the input (or config line) that caused them.

* Line diagnostics (advice, failed or partial checks) land on the line of every code
  line above the affected entities (the line index finds them), moved with the buffer's
  unsaved edits; a line deleted since the analysis loses its diagnostics.
* A configuration error puts one diagnostic per problem on its line (and column) of
  ``perfline.toml``; the last valid configuration stays in force.
* A failed job puts one diagnostic on the input file and line the error names, else on
  its ``[[jobs]]`` line in ``perfline.toml``, else on the first line of its first input,
  saying whether the last good result is still served.

Every annotated file is listed even without diagnostics, so an earlier publication is
cleared. Pure over the engine's answers; linear in the diagnostics.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from perfline.core.workspace_config import CONFIG_FILE_NAME
from perfline.server.line_entries import LineDiagnostic
from perfline.server.view.engine_surface import EngineSurface, JobView
from perfline.server.view.shapes import LINE_END, Diagnostic, Severity

#: 1-based analysis line -> 1-based current line of a file (``None``: deleted since).
CurrentLine = Callable[[str, int], int | None]
#: Length (code points) of a 1-based current line of an open file, ``None`` if not open.
LineLength = Callable[[str, int], int | None]

_SEVERITIES: dict[str, Severity] = {"error": "error", "warning": "warning"}


def workspace_diagnostics(
    engine: EngineSurface, current_line: CurrentLine, line_length: LineLength
) -> dict[str, list[Diagnostic]]:
    """Every file's diagnostics, by absolute path."""
    by_file: dict[str, list[Diagnostic]] = {}
    for path in engine.annotated_files():
        if not Path(path).is_absolute():
            continue
        found = by_file.setdefault(path, [])
        for item in engine.line_diagnostics(path):
            diagnostic = _on_line(path, item, current_line, line_length)
            if diagnostic is not None:
                found.append(diagnostic)
    config = str(engine.root / CONFIG_FILE_NAME)
    error = engine.config_error
    if error is not None:
        for problem in error.config_problems:
            start = max(problem.column - 1, 0)
            by_file.setdefault(config, []).append(
                Diagnostic(
                    line=max(problem.line, 1),
                    column=start,
                    end_column=start + 1 if problem.column else LINE_END,
                    message=f"{problem.key}: {problem.message}" if problem.key else problem.message,
                    severity="error",
                    source="perfline",
                    code="config",
                )
            )
    for info in engine.jobs():
        placed = _job_error(engine.root, info)
        if placed is not None:
            by_file.setdefault(placed[0], []).append(placed[1])
    return by_file


def _on_line(
    path: str, item: LineDiagnostic, current_line: CurrentLine, line_length: LineLength
) -> Diagnostic | None:
    line = current_line(path, item.line)
    if line is None:
        return None
    return Diagnostic(
        line=line,
        column=0,
        end_column=line_length(path, line) or 0,
        message=item.message,
        severity=_SEVERITIES.get(item.severity, "information"),
        source=f"perfline ({item.job})",
        code=item.code,
    )


def _job_error(root: Path, info: JobView) -> tuple[str, Diagnostic] | None:
    """Where a job's error goes: (file, diagnostic), or None without an error or a place."""
    error = info.error
    if error is None:
        return None
    if error.file is not None:
        target, line = root / error.file, max(error.line or 1, 1)
    elif info.config_line is not None:
        target, line = root / CONFIG_FILE_NAME, info.config_line
    elif info.inputs:
        target, line = root / info.inputs[0], 1
    else:
        return None
    suffix = " (serving the last good result)" if info.has_result else ""
    return str(target), Diagnostic(
        line=line,
        column=0,
        end_column=LINE_END,
        message=f"job {info.name}: {error.message}{suffix}",
        severity="error",
        source="perfline",
        code="job-error",
    )
