"""``compare`` and ``check`` refuse runs of different models, and a gate that judged no line
is no pass; runs of one model in two sizes or versions still compare (``relatedness``).

Real files: ONNX Runtime profiles of the DS-CNN, its 2x-wider build, the attention block and
its 2x-MLP build, the PaddleOCR classifier (``tests/data/onnxruntime``, ``tests/data/trust``).
"""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from perfline.clients.cli import cli
from perfline.core.compare.relatedness import Relatedness, check_related, relatedness
from perfline.core.errors import InputError
from tests.support.locations import DATA

ORT = DATA / "onnxruntime"
TRUST = DATA / "trust"
DSCNN = DATA / "formats" / "dscnn" / "dscnn.onnx"
PPOCR = DATA / "formats" / "onnx-third-party" / "ch_ppocr_mobile_v2.0_cls_infer.onnx"


def _side(tmp_path: Path, model: Path, profile: Path) -> str:
    """``model,profile`` with the profile as a plain ``.json`` file in ``tmp_path``."""
    target = tmp_path / profile.name.removesuffix(".gz")
    if profile.suffix == ".gz":
        target.write_bytes(gzip.decompress(profile.read_bytes()))
    elif not target.exists():
        shutil.copy(profile, target)
    return f"{model},{target}"


def _invoke(*arguments: str) -> Result:
    return CliRunner().invoke(cli, list(arguments))


@pytest.mark.parametrize("command", ["compare", "check"])
def test_runs_of_different_models_exit_2_saying_what_differs(command: str, tmp_path: Path) -> None:
    base = _side(tmp_path, DSCNN, ORT / "dscnn_noopt.json")
    new = _side(tmp_path, ORT / "attention.onnx", ORT / "attention_noopt.json")
    arguments = (
        ["compare", base, new] if command == "compare" else ["check", "--baseline", base, new]
    )
    outcome = _invoke(*arguments)
    assert outcome.exit_code == 2, outcome.output
    (line,) = outcome.stderr.strip().splitlines()
    assert line.startswith(f"error: {new}: results[0]: a different model from the baseline {base}")
    assert (
        "nothing aligns: no source file in common (the baseline's: dscnn.py; the new run's: "
        "attention.py); 0 of the baseline's 21 and the new run's 25 operators alike (same id, "
        "name and operator types) (e.g. source_operator/0: the baseline's `node_Conv_137` (Conv), "
        "the new run's `node_layer_norm` (LayerNormalization); "
    ) in line
    assert line.endswith("0 of the baseline's 7 and the new run's 14 code lines in common")


def test_a_third_party_model_against_the_dscnn_is_refused(tmp_path: Path) -> None:
    base = _side(tmp_path, DSCNN, ORT / "dscnn_noopt.json")
    new = _side(tmp_path, PPOCR, ORT / "ppocr_cls_noopt.json")
    outcome = _invoke("check", "--baseline", base, new)
    assert outcome.exit_code == 2, outcome.output
    assert "no source file in common (the baseline's: dscnn.py; the new run's: none)" in (
        outcome.stderr
    )


@pytest.mark.parametrize(
    ("base", "new"),
    [
        (
            (DSCNN, ORT / "dscnn_noopt.json"),
            (TRUST / "dscnn_wide.onnx", TRUST / "dscnn_wide_noopt.json"),
        ),
        (
            (ORT / "attention.onnx", ORT / "attention_noopt.json"),
            (TRUST / "attention_mlp2x.onnx", TRUST / "attention_mlp2x_idle_1.json.gz"),
        ),
    ],
)
def test_another_size_of_the_same_model_still_compares(
    base: tuple[Path, Path], new: tuple[Path, Path], tmp_path: Path
) -> None:
    # Same source lines, same operator names and types: what changing a model's width costs,
    # line by line, is what compare is for.
    outcome = _invoke("compare", _side(tmp_path, *base), _side(tmp_path, *new))
    assert outcome.exit_code == 0, outcome.output
    assert "different model" not in outcome.stderr and "little aligns" not in outcome.stderr
    assert "model-wide " in outcome.stdout


def test_a_gate_that_judged_no_line_is_no_pass(tmp_path: Path) -> None:
    # The PaddleOCR model records no source lines: nothing to judge.
    side = _side(tmp_path, PPOCR, ORT / "ppocr_cls_noopt.json")
    outcome = _invoke("check", "--baseline", side, side)
    assert outcome.exit_code == 2, outcome.output
    assert "the gate judged no line (no code line has a figure of the judged metric in both " in (
        outcome.stderr
    )


def _entity(kind: str, name: str, *types: str, line: int | None = None) -> dict[str, object]:
    entity: dict[str, object] = {"id": f"{kind}/{name}", "kind": kind, "name": name}
    if types:
        entity["attributes"] = {"operator_types": list(types)}
    if line is not None:
        entity["attributes"] = {"file": "m.py", "line": line}
    return entity


def test_little_aligning_is_a_warning_with_the_counts() -> None:
    base = {
        ("id", f"source_operator/{i}"): _entity("source_operator", f"n{i}", "Conv")
        for i in range(4)
    }
    new = dict(base)
    new[("id", "source_operator/3")] = _entity("source_operator", "other", "Relu")
    new[("id", "source_operator/2")] = _entity("source_operator", "other2", "Relu")
    new[("id", "source_operator/1")] = _entity("source_operator", "other1", "Relu")
    lines = {("code_line", "m.py", n): _entity("code_line", str(n), line=n) for n in range(3)}
    related = relatedness({**base, **lines}, {**new, **lines}, {"m.py": "m.py"}, ["m.py"], ["m.py"])
    assert related.operators == (1, 4, 4) and related.lines == (3, 3, 3)
    assert not related.unrelated and related.little
    (warning,) = check_related(related, (0, 0), ("a", "b"))
    assert warning.startswith(
        "results 0/0: little aligns (runs of one model?): 1 source file(s) in common; 1 of the "
        "baseline's 4 and the new run's 4 operators alike"
    )
    unrelated = Relatedness((0, 1, 1), (0, 4, 4), (0, 3, 3), (), (("a.py",), ("b.py",)))
    with pytest.raises(InputError, match="nothing aligns: no source file in common"):
        check_related(unrelated, (0, 0), ("a", "b"))
