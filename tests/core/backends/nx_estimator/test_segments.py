"""VGF segment handling: unknown shapes, compute-only segments, multi-segment outputs."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from perfline.core.backends.nx_estimator.vgf_checks import check_graph_shapes, unshaped_resources
from perfline.core.errors import InputError
from perfline.core.formats import vgf
from perfline.server.ingest import estimator_files
from tests.support.estimator_outputs import write_outputs
from tests.support.nx_estimator_data import DSCNN_VGF


def _vgf() -> vgf.VgfFile:
    return vgf.read_vgf(DSCNN_VGF.read_bytes(), str(DSCNN_VGF))


def test_real_vgf_is_fully_shaped() -> None:
    container = _vgf()
    assert unshaped_resources(container, container.segments[0]) == []
    check_graph_shapes(container, "m.vgf")


def test_unknown_dimension_is_named() -> None:
    container = _vgf()
    segment = container.segments[0]
    input_index = segment.inputs[0].mrt_index
    resources = list(container.resources)
    resources[input_index] = dataclasses.replace(resources[input_index], shape=(1, -1, 49, 10))
    broken = dataclasses.replace(container, resources=tuple(resources))
    with pytest.raises(InputError) as caught:
        check_graph_shapes(broken, "m.vgf")
    text = caught.value.render()
    assert text.startswith("m.vgf: segment 0 'graph_segment_0': tensor shapes must be fully known")
    assert (
        f"input binding {segment.inputs[0].binding}, resource {input_index}, shape [1, ?, 49, 10]"
        in text
    )


def test_compute_segment_is_skipped_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = vgf.segment_graphs

    def with_compute(container: vgf.VgfFile, source: str) -> tuple[vgf.SegmentGraph, ...]:
        graphs = real(container, source)
        compute = dataclasses.replace(graphs[0], index=1, type="COMPUTE", name="postprocess_shader")
        return (*graphs, compute)

    monkeypatch.setattr(f"{estimator_files.__name__}.segment_graphs", with_compute)
    write_outputs(tmp_path)
    result = CliRunner().invoke(
        cli, ["analyze", str(DSCNN_VGF), str(tmp_path), "--output-dir", str(tmp_path), "--json"]
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    (performance,) = document["results"]
    assert performance["warnings"] == [
        "VGF compute segment(s) postprocess_shader will not be estimated by the NX Performance "
        "Estimator and will not contribute to performance totals."
    ]
    segments = [e for e in performance["entities"] if e["kind"] == "segment"]
    assert [s["id"] for s in segments] == ["segment/0"]


def test_outputs_of_an_unknown_segment_are_rejected(tmp_path: Path) -> None:
    write_outputs(tmp_path)
    for path in tmp_path.iterdir():
        path.rename(path.with_name(path.name.replace("dscnn_int_dbg", "dscnn_segment_3")))
    other = tmp_path / "other"
    other.mkdir()
    write_outputs(other)
    result = CliRunner().invoke(
        cli, ["analyze", str(DSCNN_VGF), str(tmp_path), str(other), "--output-dir", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert "_segment_<i>" in result.output


def test_summary_without_databases_names_the_missing_file(tmp_path: Path) -> None:
    write_outputs(tmp_path)
    (tmp_path / "dscnn_int_dbg_debug_database.dat").unlink()
    result = CliRunner().invoke(cli, ["analyze", str(tmp_path), "--output-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert "dscnn_int_dbg_debug_database.dat" in result.output


def test_single_segment_copy_keeps_segment_resources_constants_and_bindings() -> None:
    from perfline.core.backends.nx_estimator.vgf_split import (
        _constant_bindings,
        single_segment_vgf,
    )

    data = DSCNN_VGF.read_bytes()
    container = _vgf()
    copy = single_segment_vgf(data, container, 0, "m.vgf")
    again = vgf.read_vgf(copy, "copy.vgf")
    assert again.segments == container.segments
    assert again.resources == container.resources
    assert again.constants == container.constants
    assert again.modules[0].spirv == container.modules[0].spirv
    assert (again.inputs, again.input_names) == (container.inputs, container.input_names)
    bindings = _constant_bindings(data, container, 0, "m.vgf")
    assert bindings is not None and len(bindings) == len(container.segments[0].constants)
    assert _constant_bindings(copy, again, 0, "copy.vgf") == bindings
