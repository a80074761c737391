"""The daemon's one-line failure records (``server/scheduler/failure_log.py``) name the
input file once: a job error built from an ``InputError`` already starts with it."""

from __future__ import annotations

import logging

import pytest

from perfline.core.errors import InputError, Problem
from perfline.server.scheduler.failure_log import log_job_error
from perfline.server.scheduler.results import JobError
from perfline.server.scheduler.runner import job_error
from perfline.server.workspace import PlannedJob

PLAN = PlannedJob("run", "onnxruntime", ("model.onnx", "profiles/run.json"))


def _logged(caplog: pytest.LogCaptureFixture, error: JobError) -> str:
    with caplog.at_level(logging.WARNING, logger="perfline.server.scheduler"):
        log_job_error("run", error)
    (record,) = caplog.records
    caplog.clear()
    return record.getMessage()


def test_an_input_error_names_its_file_once(caplog: pytest.LogCaptureFixture) -> None:
    error = job_error(
        InputError("profiles/run.json", [Problem("line 3, column 9", "expected a value")]),
        PLAN,
    )
    assert (error.file, error.line) == ("profiles/run.json", 3)
    message = _logged(caplog, error)
    assert message.count("profiles/run.json") == 1, message
    assert message.startswith("job run failed: profiles/run.json: line 3, column 9")


def test_an_error_without_location_in_its_message_gets_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    message = _logged(caplog, JobError("a truncated event", "profiles/run.json", 12))
    assert message == "job run failed: profiles/run.json:12: a truncated event"
    message = _logged(caplog, JobError("internal error in backend 'onnxruntime': boom"))
    assert message == "job run failed: internal error in backend 'onnxruntime': boom"


def test_several_problems_stay_on_one_line(caplog: pytest.LogCaptureFixture) -> None:
    problems = [Problem("line 3", "expected a value"), Problem("line 9", "unknown key")]
    message = _logged(caplog, job_error(InputError("profiles/run.json", problems), PLAN))
    assert "\n" not in message and message.count("profiles/run.json") == 1, message
