"""Profiles that are not of the model they are read with: refused, or warned about, never
silently put on the wrong lines (``core/backends/run_match`` on ``node_evidence``).

Real files only: the DS-CNN and its 2x-wider build (``tests/data/trust``, same node names and
source lines, every shape twice as wide), the attention block and its build with a 2x-wide MLP
(the same lines; only the MLP's shapes differ), the mixer, and the PaddleOCR classifier.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from perfline.core.backends.onnxruntime.document import analyze_profiles
from perfline.core.backends.run_match import Evidence, Wording, judge_run
from perfline.core.backends.source_model.inputs import InputFile
from perfline.core.errors import InputError
from perfline.core.pipeline import postprocess
from tests.support.cli_process import analyze
from tests.support.onnxruntime_data import ATTENTION_ONNX, DATA, DSCNN_ONNX, raw_runs

TRUST = DATA.parent / "trust"
WIDE_ONNX = TRUST / "dscnn_wide.onnx"
MIXER_ONNX = DATA / "mixer.onnx"
MLP2X_ONNX = TRUST / "attention_mlp2x.onnx"
PPOCR_ONNX = DATA.parent / "formats" / "onnx-third-party" / "ch_ppocr_mobile_v2.0_cls_infer.onnx"
CONCLUSION = "the profile is of another model (or of another size or version of it)"


def _file(path: Path) -> InputFile:
    data = path.read_bytes()
    return InputFile(str(path), gzip.decompress(data) if path.suffix == ".gz" else data)


def _analyze(model: Path, *profiles: Path) -> dict[str, Any]:
    return analyze_profiles(
        _file(model), [_file(p) for p in profiles], timestamp="2026-01-01T00:00:00Z"
    )


@pytest.mark.parametrize(
    ("model", "profile"),
    [
        (ATTENTION_ONNX, DATA / "dscnn_noopt.json"),  # node_view, node_linear: names in both
        (MIXER_ONNX, DATA / "dscnn_noopt.json"),  # node_mean: a ReduceMean in both
        (DSCNN_ONNX, DATA / "ppocr_cls_noopt.json"),
        (ATTENTION_ONNX, DATA / "mixer_noopt.json"),  # 13 names and op types in both
    ],
)
def test_a_foreign_profile_is_refused(model: Path, profile: Path) -> None:
    with pytest.raises(InputError) as caught:
        _analyze(model, profile)
    message = str(caught.value)
    assert message.startswith(f"{profile}: 0 of ")
    assert f"profile nodes matched a node of {model} (name, operator type, shapes)" in message
    assert message.endswith(CONCLUSION)


def test_names_in_both_models_are_judged_by_their_shapes() -> None:
    # The mixer's profile against the attention block: same names and op types (LayerNorm,
    # MatMul, Add, Gelu...) at other positions, every shape different.
    with pytest.raises(InputError) as caught:
        _analyze(ATTENTION_ONNX, DATA / "mixer_noopt.json")
    assert (
        "node 0 `node_layer_norm` (LayerNormalization): profile records output shape "
        "[2,64,32], the model [1,16,64]"
    ) in str(caught.value)


@pytest.mark.parametrize("stem", ["dscnn_wide_noopt", "dscnn_wide_opt"])
def test_a_profile_of_the_2x_wider_model_is_refused_with_the_shapes(stem: str) -> None:
    profile = TRUST / f"{stem}.json"
    with pytest.raises(InputError) as caught:
        _analyze(DSCNN_ONNX, profile)
    message = str(caught.value)
    assert message.startswith(f"{profile}: 0 of ")
    if stem.endswith("noopt"):
        assert message.startswith(f"{profile}: 0 of 21 profile nodes matched")
        assert (
            "node 0 `node_Conv_137` (Conv): profile records output shape [1,128,25,5], the "
            "model [1,64,25,5]"
        ) in message
    else:  # ORT fused the Conv+Relu pairs; the kept nodes say it all the same
        assert (
            "node 18 `node_mean` (ReduceMean): profile records output shape [1,128,1,1], the "
            "model [1,64,1,1]"
        ) in message


def test_the_narrow_profile_against_the_wide_model_is_refused(tmp_path: Path) -> None:
    profile = DATA / "dscnn_noopt.json"
    completed = analyze(tmp_path, str(WIDE_ONNX), str(profile))
    assert completed.returncode == 2
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {profile}: 0 of 21 profile nodes")
    assert "profile records output shape [1,64,25,5], the model [1,128,25,5]" in lines[0]


def test_the_wide_model_with_its_own_profile_is_silent() -> None:
    result = _analyze(WIDE_ONNX, TRUST / "dscnn_wide_noopt.json")["results"][0]
    assert not [w for w in result["warnings"] if "matched a node" in w]


def _mlp2x_profile(tmp_path: Path) -> Path:
    target = tmp_path / "attention_mlp2x_idle_1.json"
    target.write_bytes(gzip.decompress((TRUST / "attention_mlp2x_idle_1.json.gz").read_bytes()))
    return target


def test_a_profile_partly_of_another_version_warns_and_keeps_figures_where_it_agrees(
    tmp_path: Path,
) -> None:
    # The 2x-MLP build's profile against the attention block: every node has its name and op
    # type, only the MLP's (fc1 MatMul + bias Add, Gelu, fc2 MatMul) record other shapes.
    profile = _mlp2x_profile(tmp_path)
    document = _analyze(ATTENTION_ONNX, profile)
    result = document["results"][0]
    durations, per_node = raw_runs(profile)
    differ = {"node_MatMul_21", "node_linear_2", "node_gelu", "node_MatMul_23"}
    left = sum(sum(per_node[name]) for name in differ) / len(durations)
    total = sum(sum(values) for values in per_node.values()) / len(durations)
    warning = next(w for w in result["warnings"] if "left unattributed" in w)
    assert warning.startswith(
        f"{len(per_node) - len(differ)} of {len(per_node)} profile nodes matched a node of "
        f"{ATTENTION_ONNX} (name, operator type, shapes); {len(differ)} of them ({left:.4g} of "
        f"{total:.4g} ms per run on average, "
    )
    assert (
        "`node_MatMul_21` (MatMul) " in warning
        and "profile records output shape [1,16,512], the model [1,16,256]" in warning
    )
    entities = {e["id"]: e for e in result["entities"]}
    for name in differ:
        entity = entities[f"backend_operator/onnxruntime/{name}"]
        assert entity["attributes"]["confidence"] == "unmapped"
        assert "child_ids" not in entity
    # Figures only where the evidence agrees: line 40 (fc1's MatMul and bias Add, the Gelu:
    # all disagree) gets none; line 41 (fc2's MatMul disagrees, its bias Add and the residual
    # Add agree) the sum of the two that agree; the attention lines theirs.
    processed = postprocess(document)["results"][0]
    lines = {
        e["id"]: e["attributes"]["line"]
        for e in processed["entities"]
        if e["kind"] == "code_line" and e["attributes"]["file"].endswith("attention.py")
    }
    figures = {
        lines[b["entity_id"]]: next(m["value"] for m in b["metrics"] if m["name"] == "duration_avg")
        for b in processed["breakdowns"]
        if b["entity_id"] in lines
    }
    assert 40 not in figures
    mean = {name: sum(values) / len(values) for name, values in per_node.items()}
    assert figures[41] == pytest.approx(mean["node_linear_3"] + mean["node_add_1"], rel=1e-12)
    assert {28, 29, 33, 34, 35, 36} <= set(figures)


@pytest.mark.parametrize(
    ("model", "profile"),
    [
        (DSCNN_ONNX, DATA / "dscnn_noopt.json"),
        (DSCNN_ONNX, DATA / "dscnn_opt.json"),
        (ATTENTION_ONNX, DATA / "attention_noopt.json"),
        (ATTENTION_ONNX, DATA / "attention_opt.json"),
        (MIXER_ONNX, DATA / "mixer_noopt.json"),
        (MIXER_ONNX, DATA / "mixer_opt.json"),
        (PPOCR_ONNX, DATA / "ppocr_cls_noopt.json"),
        (WIDE_ONNX, TRUST / "dscnn_wide_noopt.json"),
        (WIDE_ONNX, TRUST / "dscnn_wide_opt.json"),
        (MLP2X_ONNX, TRUST / "attention_mlp2x_hog_1.json.gz"),
    ],
)
def test_every_exact_node_of_a_real_profile_agrees_with_its_own_model(
    model: Path, profile: Path
) -> None:
    # No false mismatch: ONNX Runtime's optimisations (pre-packed weights, a transposed input
    # of a kept node, constants folded) never make a node of the model's own profile disagree;
    # what is left unattributed is only what has no model node of its name.
    result = _analyze(model, profile)["results"][0]
    assert not [w for w in result["warnings"] if "profile records" in w]
    for entity in result["entities"]:
        if entity["kind"] == "backend_operator":
            assert "but profile records" not in entity["attributes"]["mapping_evidence"]


def test_judge_run_verdicts() -> None:
    wording = Wording("run.bin", "items", "an item of m", "the run is of another model", "ms")
    agree = Evidence("a", 1.0)
    wrong = Evidence("b", 3.0, "size 2, the model 1")
    silent = Evidence("c", 5.0, judged=False)
    assert judge_run([agree, silent], wording).warning is None
    assert judge_run([silent], wording).disagreeing == frozenset()
    partly = judge_run([agree, wrong, silent], wording)
    assert partly.disagreeing == frozenset({1})
    assert partly.warning == (
        "1 of 2 items matched an item of m; 1 of them (3 of 9 ms, 33.3%) is left "
        "unattributed: b: size 2, the model 1."
    )
    with pytest.raises(InputError) as caught:
        judge_run([wrong, silent], wording)
    assert str(caught.value) == (
        "run.bin: 0 of 1 items matched an item of m (e.g. b: size 2, the model 1); the run is "
        "of another model"
    )
    decisive = Evidence("d", 0.0, "not in m", decisive=True, place="$[4]")
    with pytest.raises(InputError) as caught:
        judge_run([agree, agree, decisive], wording)
    assert str(caught.value) == (
        "run.bin: $[4]: d: not in m; the run is of another model (1 of 3 items like it)"
    )


def test_a_profile_json_round_trip_keeps_the_evidence(tmp_path: Path) -> None:
    # The shapes the evidence reads are the file's own: a profile whose first Conv records
    # another output shape makes that one node disagree, the rest still agree.
    events = json.loads((DATA / "dscnn_noopt.json").read_text())
    for event in events:
        if event.get("name") == "node_Conv_137_kernel_time":
            event["args"]["output_type_shape"] = [{"float": [1, 64, 26, 5]}]
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(events))
    result = _analyze(DSCNN_ONNX, edited)["results"][0]
    warning = next(w for w in result["warnings"] if "left unattributed" in w)
    assert warning.startswith(f"20 of 21 profile nodes matched a node of {DSCNN_ONNX}")
    assert (
        "node 0 `node_Conv_137` (Conv) " in warning
        and "profile records output shape [1,64,26,5], the model [1,64,25,5]" in warning
    )
