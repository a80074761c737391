"""Running the estimator (and the TOSA converter) through stand-in executables written here."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from perfline.core.formats.vgf import read_vgf
from tests.support.estimator_outputs import executable_script, stand_in_estimator
from tests.support.nx_estimator_data import DSCNN_MULTI, DSCNN_TOSA, DSCNN_TOSA_DUMP, DSCNN_VGF


def _analyze(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["analyze", *args])
    # With --json, stdout alone is the document (stderr has the "wrote PATH" line).
    return result.exit_code, result.stdout if "--json" in args else result.output


def test_successful_run_gives_the_same_result_as_its_outputs(tmp_path: Path) -> None:
    estimator = stand_in_estimator(tmp_path)
    system = tmp_path / "sys.ini"
    system.write_text("[system]\n")
    out = tmp_path / "out"
    code, output = _analyze(
        str(DSCNN_VGF),
        "--estimator",
        str(estimator),
        "--system-config",
        str(system),
        "--output-dir",
        str(out),
        "--json",
    )
    assert code == 0, output
    document = json.loads(output)
    workdir = out / "nx-performance-estimator"
    call = json.loads((workdir / "dscnn_int_dbg.call.json").read_text())
    assert call["args"] == [
        "-i",
        str(DSCNN_VGF.resolve()),
        "-o",
        "dscnn_int_dbg",
        "-s",
        str(system.resolve()),
    ]
    assert Path(call["cwd"]).resolve() == workdir.resolve()
    assert (out / "nx_performance_statistics.json").is_file()
    backend = document["backends"][-1]
    assert backend["configuration"] == {"system_config": "sys", "compiler_config": "default"}
    code, from_files = _analyze(
        str(DSCNN_VGF), str(workdir), "--output-dir", str(tmp_path / "o2"), "--json"
    )
    assert code == 0, from_files
    assert json.loads(from_files)["results"] == document["results"]


def test_non_zero_exit_quotes_the_last_20_lines(tmp_path: Path) -> None:
    estimator = stand_in_estimator(tmp_path, fail=True)
    code, output = _analyze(
        str(DSCNN_VGF), "--estimator", str(estimator), "--output-dir", str(tmp_path / "out")
    )
    assert code == 1
    assert "return code 3" in output
    assert "diagnostic line 29" in output and "diagnostic line 10" in output
    assert "diagnostic line 9\n" not in output


def test_missing_output_is_named(tmp_path: Path) -> None:
    estimator = stand_in_estimator(tmp_path, skip_summary=True)
    out = tmp_path / "out"
    code, output = _analyze(str(DSCNN_VGF), "--estimator", str(estimator), "--output-dir", str(out))
    assert code == 1
    missing = out / "nx-performance-estimator" / "dscnn_int_dbg_network_performance_summary.json"
    assert f"Expected output file '{missing}'" in output.replace("\n", "")


def test_estimator_must_be_an_executable(tmp_path: Path) -> None:
    not_executable = tmp_path / "estimator.txt"
    not_executable.write_text("")
    code, output = _analyze(
        str(DSCNN_VGF), "--estimator", str(not_executable), "--output-dir", str(tmp_path)
    )
    assert code == 2
    assert "expected the estimator executable" in output


def test_tosa_is_converted_first_with_model_converter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tools = tmp_path / "bin"
    tools.mkdir()
    executable_script(
        tools / "model-converter",
        f"""
args = sys.argv[1:]
assert "--emit-debug-info" in args
target = args[args.index("-o") + 1]
json.dump(args, open(os.path.join(os.path.dirname(target), "converter.json"), "w"))
shutil.copy({str(DSCNN_VGF)!r}, target)
""",
    )
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ.get('PATH', '')}")
    tosa = tmp_path / "dscnn_int_dbg.tosa"
    shutil.copy(DSCNN_TOSA, tosa)
    estimator = stand_in_estimator(tmp_path)
    monkeypatch.chdir(tmp_path)  # a relative output folder: tools run in other folders
    out = Path("out")
    code, output = _analyze(
        tosa.name, "--estimator", str(estimator), "--output-dir", "out", "--json"
    )
    assert code == 0, output
    document = json.loads(output)
    converted = out / "ml-sdk-model-converter" / "dscnn_int_dbg.vgf"
    assert converted.is_file()
    assert json.loads((converted.parent / "converter.json").read_text())[:4] == [
        "-i",
        str(tosa.resolve()),
        "-o",
        str(converted.resolve()),
    ]
    assert [b["id"] for b in document["backends"]] == [
        "ml-sdk-model-converter",
        "nx-performance-estimator",
    ]
    assert document["model"]["name"] == "dscnn_int_dbg.tosa"
    assert document["model"]["format"] == "tosa"
    # Source operators carry the canonical TOSA identity: the operator index of the TOSA
    # file whose location text the VGF debug name repeats (read here from the dump that the
    # TOSA library wrote, an independent route).
    (block,) = json.loads(DSCNN_TOSA_DUMP.read_text())["regions"][0]["blocks"]
    located = [op for op in block["operators"] if op.get("location_text")]
    result = document["results"][0]
    sources = {e["id"]: e for e in result["entities"] if e["kind"] == "source_operator"}
    assert set(sources) == {f"source_operator/{op['index']}" for op in located}
    first_depthwise = next(op for op in located if op["op"] == "DEPTHWISE_CONV2D")
    assert first_depthwise["index"] == 25
    assert sources["source_operator/25"]["placement"] == "NX"
    assert any(e["kind"] == "code_line" for e in result["entities"])


def test_tosa_without_model_converter_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if shutil.which("model-converter"):
        pytest.skip("a real model-converter is installed")
    monkeypatch.setenv("PATH", str(tmp_path))
    tosa = tmp_path / "m.tosa"
    tosa.write_bytes(b"x")
    code, output = _analyze(str(tosa), "--output-dir", str(tmp_path))
    assert code == 2
    assert "model-converter" in output


def test_unrecognized_input_is_named(tmp_path: Path) -> None:
    other = tmp_path / "notes.txt"
    other.write_text("hello")
    code, output = _analyze(str(other), "--output-dir", str(tmp_path))
    assert code == 2
    assert str(other) in output and "unrecognized input" in output


@pytest.mark.skipif(shutil.which("model-converter") is None, reason="model-converter not installed")
def test_real_model_converter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the ML SDK's model-converter on PATH: the real conversion of the DS-CNN TOSA."""
    tosa = tmp_path / "dscnn_int.tosa"
    shutil.copy(DSCNN_TOSA, tosa)
    estimator = stand_in_estimator(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, output = _analyze(
        tosa.name, "--estimator", str(estimator), "--output-dir", "out", "--json"
    )
    assert code == 0, output
    result = json.loads(output)["results"][0]
    lines = {e["attributes"]["line"] for e in result["entities"] if e["kind"] == "code_line"}
    assert lines == {24, 26, 40, 41, 42, 44}
    assert "source_operator/25" in {e["id"] for e in result["entities"]}


def test_multi_segment_vgf_is_split_per_graph_segment(tmp_path: Path) -> None:
    estimator = stand_in_estimator(tmp_path)
    out = tmp_path / "out"
    code, output = _analyze(
        str(DSCNN_MULTI), "--estimator", str(estimator), "--output-dir", str(out), "--json"
    )
    assert code == 0, output
    workdir = out / "nx-performance-estimator"
    for index, name in ((0, "graph_a"), (2, "graph_b")):
        run = f"dscnn_multi_segment_segment_{index}"
        args = json.loads((workdir / f"{run}.call.json").read_text())["args"]
        single = out / "gcpe-vgf-segments" / f"{run}.vgf"
        assert args == ["-i", str(single.resolve()), "-o", run]
        vgf = read_vgf(single.read_bytes(), str(single))
        assert [(s.name, s.type, s.module_index) for s in vgf.segments] == [(name, "GRAPH", 0)]
        original = read_vgf(DSCNN_MULTI.read_bytes(), str(DSCNN_MULTI))
        assert vgf.modules[0].spirv == original.modules[original.segments[index].module_index].spirv
        assert vgf.resources == original.resources
    assert not (workdir / "dscnn_multi_segment_segment_1.call.json").exists()
    result = json.loads(output)["results"][0]
    assert result["warnings"] == [
        "VGF compute segment(s) shader will not be estimated by the NX Performance Estimator "
        "and will not contribute to performance totals."
    ]
    entities = {e["id"]: e for e in result["entities"]}
    assert entities["segment/0"]["name"] == "graph_a"
    assert entities["segment/2"]["name"] == "graph_b"
    assert "segment/1" not in entities
    assert "chain/segment_2/3000" in entities
    assert "source_operator/segment_2/spirv-147" in entities
    metrics = {m["name"]: m for m in result["metrics"]}
    assert metrics["total_cycles"]["value"] == 2 * 20000  # each run's summary says 20000
    assert metrics["inference_time"]["value"] == pytest.approx(2 * 0.02)
    assert metrics["infs_per_sec"]["value"] == pytest.approx(1000 / 0.04)
    assert metrics["dram_footprint"]["value"] == 9000  # the maximum, not the sum


def test_model_without_outputs_or_estimator_says_what_is_missing(tmp_path: Path) -> None:
    code, output = _analyze(str(DSCNN_VGF), "--output-dir", str(tmp_path))
    assert code == 2
    assert "no estimator outputs given" in output and "--estimator" in output


def test_estimator_from_the_user_environment(tmp_path: Path) -> None:
    estimator = stand_in_estimator(tmp_path)
    out = tmp_path / "out"
    result = CliRunner().invoke(
        cli,
        ["analyze", str(DSCNN_VGF), "--output-dir", str(out), "--json"],
        env={"PERFLINE_NX_ESTIMATOR": str(estimator)},
    )
    assert result.exit_code == 0, result.output
    assert (out / "nx-performance-estimator" / "dscnn_int_dbg.call.json").is_file()
