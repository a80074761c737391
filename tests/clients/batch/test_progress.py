"""Progress of ``batch run``: a bar on a terminal, a line per thousand runs otherwise; and
the missing extra named in one line."""

from __future__ import annotations

import importlib.util
import io

import pytest
from click.testing import CliRunner

from perfline.clients.batch.progress import Progress, duration_text, status_text
from perfline.clients.cli import cli


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_line_per_thousand_runs_without_a_terminal() -> None:
    stream, clock = io.StringIO(), Clock()
    progress = Progress(stream, 2500, clock, terminal=False)
    for chunk in range(100):
        clock.now += 0.5
        failures = (("run.etdump", "damaged"),) if chunk == 3 else ()
        progress.add(25 - len(failures), 0, failures)
    assert progress.finish() == (
        "batch: 2,500 runs (stored 2,499, skipped 0, failed 1), 50.0 runs/s in 50s"
    )
    assert stream.getvalue().splitlines() == [
        "failed: run.etdump: damaged",
        "batch: 1,000/2,500 runs (stored 999, skipped 0, failed 1), 50.0 runs/s, 30s left",
        "batch: 2,000/2,500 runs (stored 1,999, skipped 0, failed 1), 50.0 runs/s, 10s left",
        "batch: 2,500 runs (stored 2,499, skipped 0, failed 1), 50.0 runs/s in 50s",
    ]


def test_a_bar_redrawn_on_a_terminal() -> None:
    stream, clock = io.StringIO(), Clock()
    progress = Progress(stream, 100, clock, terminal=True)
    clock.now += 1.0
    progress.add(40, 10, ())
    clock.now += 0.01
    progress.add(10, 0, ())  # within a tenth of a second: not redrawn
    text = stream.getvalue()
    assert text == (
        "\r\x1b[2K[############------------] "
        "50/100 runs (stored 40, skipped 10, failed 0), 50.0 runs/s, 1s left"
    )
    progress.finish()
    assert stream.getvalue().endswith(
        "\r\x1b[2Kbatch: 60 runs (stored 50, skipped 10, failed 0), 59.4 runs/s in 1s\n"
    )


def test_texts() -> None:
    assert [duration_text(s) for s in (0.4, 59, 192, 7500)] == ["0s", "59s", "3m12s", "2h05m"]
    assert (
        status_text(
            type("C", (), {"stored": 0, "skipped": 0, "failed": 0, "finished": 0})(), None, 0.0
        )
        == "0 runs (stored 0, skipped 0, failed 0), 0.0 runs/s"
    )


def test_without_the_batch_extra_one_line_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "duckdb" else real(name, *a)
    )
    result = CliRunner().invoke(cli, ["batch", "sql", "--store", "s", "SELECT 1"])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "error: perfline batch: needs duckdb: pip install 'perfline[batch]' (see docs/batch.md)"
    )
