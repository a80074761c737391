"""``perfline analyze`` dispatches inputs by kind."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from perfline.clients.cli import cli
from tests.support import locations
from tests.support.nx_estimator_data import DATA

MEASURED = locations.DATA / "measured" / "portable"


def test_etrecord_and_etdump_go_to_the_measured_backend(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli,
        [
            "analyze",
            str(MEASURED / "dscnn_portable.etrecord"),
            str(MEASURED / "dscnn_portable.etdump"),
            "--output-dir",
            str(tmp_path),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    (measured,) = json.loads(result.stdout)["results"]
    assert measured["mode"] == "measured"
    assert measured["producer"] != "nx-performance-estimator"
    assert not (tmp_path / "nx_performance_statistics.json").exists()


def test_estimator_outputs_go_to_the_estimator_backend(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli, ["analyze", str(DATA), "--output-dir", str(tmp_path), "--json"]
    )
    assert result.exit_code == 0, result.output
    (estimated,) = json.loads(result.stdout)["results"]
    assert estimated["producer"] == "nx-performance-estimator"
    assert "mode" not in estimated


def test_mixed_unrecognized_input_is_named(tmp_path: Path) -> None:
    stray = tmp_path / "model.onnx"
    stray.write_bytes(b"")
    result = CliRunner().invoke(
        cli, ["analyze", str(DATA), str(stray), "--output-dir", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert f"{stray}: unrecognized input" in result.output


def test_estimator_options_are_rejected_for_measured_inputs(tmp_path: Path) -> None:
    pair = [str(MEASURED / "dscnn_portable.etrecord"), str(MEASURED / "dscnn_portable.etdump")]
    for option in (["--compatibility"], ["--estimator", str(tmp_path / "estimator")]):
        result = CliRunner().invoke(cli, ["analyze", *pair, *option, "--output-dir", str(tmp_path)])
        assert result.exit_code == 2, result.output
        assert option[0] in result.stderr and "measured inputs" in result.stderr
