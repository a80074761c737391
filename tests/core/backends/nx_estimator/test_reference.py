"""Differential check: the reference post-processing (mlia 0.12.3) accepts our raw NX
documents and produces exactly what perfline's pipeline produces from them, once perfline's
documented deviations are undone (``tests/support/deviations.py``).

Runs when ``PERFLINE_ORACLE_PYTHON`` names a Python with mlia 0.12.3 (``scripts/test.sh``
builds one with ``scripts/oracle-venv.sh``).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from perfline.core.pipeline import postprocess
from perfline.server.ingest import estimator
from tests.support.deviations import strip_deviations
from tests.support.estimator_outputs import write_outputs
from tests.support.nx_estimator_data import DATA, DSCNN_VGF
from tests.support.oracle_compare import NX_RULE, RUNNER

ORACLE = os.environ.get("PERFLINE_ORACLE_PYTHON")


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _documents(run: Path) -> list[dict[str, Any]]:
    write_outputs(run)
    vgf_outputs = estimator.classify_inputs([run]).outputs
    real_outputs = estimator.classify_inputs([DATA]).outputs
    return [
        estimator.analyze_outputs(None, real_outputs).document,
        estimator.analyze_outputs(DSCNN_VGF, vgf_outputs).document,
        estimator.analyze_outputs(
            DSCNN_VGF, vgf_outputs, performance=True, compatibility=True
        ).document,
    ]


@pytest.mark.skipif(not ORACLE, reason="PERFLINE_ORACLE_PYTHON is not set")
def test_reference_postprocessing_agrees(tmp_path: Path) -> None:
    assert ORACLE is not None
    documents = _documents(tmp_path)
    payload = "".join(
        json.dumps({"document": document, "collapse": [NX_RULE]}) + "\n" for document in documents
    )
    process = subprocess.run(
        [ORACLE, str(RUNNER)],
        input=payload,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    replies = [json.loads(line) for line in process.stdout.splitlines()]
    assert len(replies) == len(documents)
    for document, reply in zip(documents, replies, strict=True):
        assert "output" in reply, reply
        assert _canonical(reply["output"]) == _canonical(strip_deviations(postprocess(document)))
