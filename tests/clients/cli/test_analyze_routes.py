"""Issue 37 item 4: an input no route takes as given (``perfline analyze model.onnx``,
``perfline compare a.onnx b.onnx``) is answered with the routes that take its kind of file,
each with its command line, from the one table of routes (``analyze_routes.ROUTES``)."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from perfline.clients.cli import cli
from tests.support.cases import DATA

ONNX = DATA / "onnxruntime" / "attention.onnx"
PT2 = DATA / "onnxruntime" / "attention.pt2"


def _error_line(arguments: list[str], folder: Path) -> str:
    result = CliRunner().invoke(cli, arguments)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_an_onnx_model_alone_lists_the_routes_that_take_it(tmp_path: Path) -> None:
    model = tmp_path / "model.onnx"
    shutil.copyfile(ONNX, model)
    line = _error_line(["analyze", str(model), "--output-dir", str(tmp_path)], tmp_path)
    assert f"perfline analyze {model} profile.json" in line
    assert f"perfline analyze {model} --static" in line
    assert "expected a model (.vgf, .tosa)" not in line
    assert "ETRecord" not in line  # only the routes that take .onnx


def test_compare_of_two_onnx_models_lists_the_routes_as_compare_sides(tmp_path: Path) -> None:
    base, new = tmp_path / "a.onnx", tmp_path / "b.onnx"
    shutil.copyfile(ONNX, base)
    shutil.copyfile(ONNX, new)
    line = _error_line(["compare", str(base), str(new), "--source-root", str(tmp_path)], tmp_path)
    assert f"perfline compare {base},profile.json NEW" in line
    assert f"perfline analyze {base} --static --output-dir base" in line
    assert "expected a model (.vgf, .tosa)" not in line


def test_a_pt2_model_alone_is_sent_to_static_cost(tmp_path: Path) -> None:
    line = _error_line(["analyze", str(PT2), "--output-dir", str(tmp_path)], tmp_path)
    assert line.endswith(
        f"static cost (no run): perfline analyze {PT2} --static  (an ONNX, PT2 or TOSA model)"
    )


def test_a_file_no_route_takes_lists_every_route(tmp_path: Path) -> None:
    from perfline.clients.cli.analyze_routes import ROUTES

    stray = tmp_path / "notes.txt"
    stray.write_text("x")
    line = _error_line(["analyze", str(stray), "--output-dir", str(tmp_path)], tmp_path)
    for route in ROUTES:
        assert route.name in line


def test_a_new_route_is_listed_by_one_entry() -> None:
    from perfline.clients.cli.analyze_routes import (
        ROUTES,
        Route,
        routes_taking,
        unrecognized_message,
    )

    trace = Route(
        "a torch trace", (".pt.trace.json",), "perfline analyze {model} --torch", None, (".json",)
    )
    routes = (*ROUTES, trace)
    assert routes_taking("run.pt.trace.json", routes)[-1] is trace
    message = unrecognized_message("run.pt.trace.json", routes=routes)
    assert "a torch trace: perfline analyze run.pt.trace.json --torch" in message
    assert "a torch trace" not in unrecognized_message("run.pt.trace.json")


def test_every_route_names_what_the_dispatch_takes() -> None:
    """The table's endings are the ones the dispatch recognizes (no stale entry)."""
    from perfline.clients.cli.analyze_routes import ROUTES
    from perfline.server.ingest import estimator
    from perfline.server.ingest.executorch import ETDUMP_SUFFIXES, ETRECORD_SUFFIXES

    taken = {ending for route in ROUTES for ending in route.takes}
    assert set(estimator.VGF_SUFFIXES) <= taken and ".tosa" in taken
    assert {*ETRECORD_SUFFIXES, *ETDUMP_SUFFIXES} <= taken
    assert {estimator.PERFORMANCE_SUFFIX, estimator.DEBUG_SUFFIX, estimator.SUMMARY_SUFFIX} <= taken


def test_a_compressed_onnx_runtime_profile_is_named_with_what_to_do(tmp_path: Path) -> None:
    import gzip

    model = tmp_path / "model.onnx"
    shutil.copyfile(ONNX, model)
    profile = tmp_path / "profile.json.gz"
    profile.write_bytes(gzip.compress((DATA / "onnxruntime" / "attention_opt.json").read_bytes()))
    for command in (
        ["analyze", str(model), str(profile), "--output-dir", str(tmp_path)],
        ["compare", f"{model},{profile}", f"{model},{profile}", "--source-root", str(tmp_path)],
    ):
        line = _error_line(command, tmp_path)
        assert line.lower().startswith(f"error: {profile}: onnx runtime profiles are read as")
        assert f"gunzip -k {profile}" in line
        assert f"give {tmp_path / 'profile.json'}" in line
