"""Issue 38 N7 and N9: numbers a float cannot hold. On main a 400-digit
``[static.target]`` rate (valid TOML) was an ``OverflowError`` traceback (``perfline serve``
died at start), ``inf`` and ``1e400`` were taken as rates, and a 400-digit ORT ``dur`` or a
model with 2,000 declared dimensions was "internal error", exit 1. Now one helper
(``core.finite_numbers``) refuses them, naming the file and the place: exit 2, one line."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from perfline.core.errors import InputError
from perfline.core.finite_numbers import finite_float, number_problem, read_number
from tests.support.compare_paths import ONNX_MODEL, ORT_NOOPT
from tests.support.onnx_writer import model, node, tensor_info
from tests.support.server_helpers import copy_kws, wait_for
from tests.support.wire_daemon import _SERVE, daemon_env, running

HUGE = "9" * 400


def _analyze(*args: str) -> tuple[int, list[str]]:
    done = CliRunner().invoke(cli, ["analyze", *args])
    return done.exit_code, done.stderr.splitlines()


@pytest.mark.parametrize(
    ("written", "said"),
    [
        (HUGE, "got an integer of 400 digits: too large for a number"),
        ("inf", "got inf"),
        ("1e400", "got inf"),
        ("nan", "got nan"),
        ("-3.0", "got -3.0"),
    ],
)
def test_a_target_rate_that_is_not_a_finite_number_is_a_config_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, written: str, said: str
) -> None:
    shutil.copy(ONNX_MODEL, tmp_path / "m.onnx")
    (tmp_path / "perfline.toml").write_text(f"[static.target]\nmacs_per_second = {written}\n")
    monkeypatch.chdir(tmp_path)
    code, lines = _analyze("m.onnx", "--static", "--output-dir", "out")
    assert code == 2, lines
    assert "line 2" in lines[1] and "static.target.macs_per_second" in lines[1], lines
    assert f"expected a positive finite number, {said}" in lines[1], lines
    assert not (tmp_path / "out" / "mlia-output" / "mlia-output.json").exists()


def test_the_daemon_refuses_a_huge_rate_in_one_message_and_reports_a_later_one(
    tmp_path: Path,
) -> None:
    root = copy_kws(tmp_path)
    config = root / "perfline.toml"
    good = config.read_text()
    config.write_text(f"{good}\n[static.target]\nmacs_per_second = {HUGE}\n")
    started = subprocess.run(
        [*_SERVE, "--tcp", "127.0.0.1:0", "-w", str(root), "--no-log-file"],
        capture_output=True,
        text=True,
        timeout=60,
        env=daemon_env(tmp_path),
    )
    assert started.returncode == 2, started.stderr
    assert "too large for a number" in started.stderr and "Traceback" not in started.stderr
    config.write_text(good)
    with running(root, tmp_path) as daemon, daemon.client() as client:
        config.write_text(f"{good}\n[static.target]\nmacs_per_second = {HUGE}\n")

        def reported() -> bool:
            error = client.request("perfline/status")["configError"]
            return error is not None and "too large for a number" in error

        assert wait_for(reported, timeout=30)
    assert "Traceback" not in daemon.log()


def test_a_400_digit_ort_duration_is_refused_where_it_stands(tmp_path: Path) -> None:
    text = ORT_NOOPT.read_text()
    lines = text.splitlines()
    at = next(n for n, line in enumerate(lines) if '"cat" : "Node"' in line)
    lines[at] = re.sub(r'"dur"\s*:\s*\d+', f'"dur": {HUGE}', lines[at])
    damaged = "\n".join(lines)
    (tmp_path / "p.json").write_text(damaged)
    code, lines = _analyze(str(ONNX_MODEL), str(tmp_path / "p.json"), "--output-dir", str(tmp_path))
    assert code == 2 and len(lines) == 1, lines
    assert re.search(r"p\.json: \$\[\d+\]\.dur: expected a non-negative finite number", lines[0])


def test_a_model_of_2000_dimensions_is_refused_not_an_internal_error(tmp_path: Path) -> None:
    dims = [1000] * 2000
    relu = node("Relu", ["x"], ["y"], "relu0")
    data = model([relu], [tensor_info("x", 1, dims)], [tensor_info("y", 1, dims)])
    (tmp_path / "dims.onnx").write_bytes(data)
    code, lines = _analyze(str(tmp_path / "dims.onnx"), "--static", "--output-dir", str(tmp_path))
    assert code == 2 and len(lines) == 1, lines
    assert "dims.onnx" in lines[0] and "more elements than a number can count" in lines[0]


def test_the_helper() -> None:
    assert finite_float(3) == 3.0 and finite_float(2.5) == 2.5
    for bad in (True, None, "1", float("inf"), float("nan"), 10**400):
        assert finite_float(bad) is None
    assert number_problem(0, positive=True) == "expected a positive finite number, got 0"
    assert number_problem(-1, non_negative=True) is not None
    assert number_problem(10**400) == (
        "expected a finite number, got an integer of 401 digits: too large for a number "
        "(at most about 1.8e308)"
    )
    with pytest.raises(InputError, match=r"f\.json: \$\.x: expected a finite number, got 'a'"):
        read_number("a", "f.json", "$.x")
    assert json.loads(json.dumps(read_number(1e308, None, "x"))) == 1e308
