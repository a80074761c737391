"""The daemon's log lines for what a user must fix: every job failure and every problem of
``perfline.toml``, one line each (WARNING), written when the engine publishes them (a job's
error once its inputs settled; the configuration's problems each time it is reloaded), and
one INFO line when a broken configuration is valid again. Newlines inside a message are
folded, so each failure stays one line a ``grep`` finds. Cost: a log call per published
failure.
"""

from __future__ import annotations

import logging

from perfline.core.workspace_config import CONFIG_FILE_NAME, WorkspaceConfigError
from perfline.server.scheduler.results import JobError

log = logging.getLogger("perfline.server.scheduler")


def _one_line(text: str) -> str:
    return " ".join(text.split())


def log_job_error(job: str, error: JobError) -> None:
    """``job NAME failed: [FILE:LINE: ]MESSAGE``."""
    where = ""
    if error.file:
        where = f"{error.file}:{error.line}: " if error.line else f"{error.file}: "
    log.warning("job %s failed: %s%s", job, where, _one_line(error.message))


def log_config(error: WorkspaceConfigError | None, had_error: bool) -> None:
    """Each problem of the configuration as ``perfline.toml:LINE: KEY: MESSAGE`` (the last
    valid configuration stays in force); when it has none after a broken one, that it is
    valid again."""
    if error is None:
        if had_error:
            log.info("%s is valid again", CONFIG_FILE_NAME)
        return
    for problem in error.config_problems:
        key = f"{problem.key}: " if problem.key else ""
        log.warning(
            "%s:%d: %s%s (the last valid configuration stays in force)",
            CONFIG_FILE_NAME,
            problem.line,
            key,
            _one_line(problem.message),
        )
