"""perfline against the reference (mlia 0.12.3) on generated NX-shaped documents.

Runs when ``PERFLINE_ORACLE_PYTHON`` names a Python with mlia 0.12.3 (``scripts/test.sh``
builds one with ``scripts/oracle-venv.sh`` and compares 300 documents);
``PERFLINE_DIFFERENTIAL_COUNT`` documents (default 50), seeds from
``PERFLINE_DIFFERENTIAL_FIRST_SEED`` (default 0). For thousands of documents
with a categorized summary, run ``python -m tests.support.oracle_compare``.
"""

from __future__ import annotations

import os

import pytest

from perfline.core.pipeline import postprocess
from tests.support.document_generator import generate, settings_for
from tests.support.oracle_compare import compare_seeds, pipeline_settings

ORACLE = os.environ.get("PERFLINE_ORACLE_PYTHON")
COUNT = int(os.environ.get("PERFLINE_DIFFERENTIAL_COUNT", "50"))
FIRST = int(os.environ.get("PERFLINE_DIFFERENTIAL_FIRST_SEED", "0"))


@pytest.mark.skipif(not ORACLE, reason="PERFLINE_ORACLE_PYTHON is not set")
@pytest.mark.timeout(max(300, COUNT))
def test_generated_documents_agree_with_the_reference() -> None:
    assert ORACLE is not None
    summary = compare_seeds(ORACLE, range(FIRST, FIRST + COUNT))
    assert not summary.disagreements(), summary.report()


def test_generator_is_deterministic_and_sized_by_chains() -> None:
    assert generate(5) == generate(5)
    assert generate(5) != generate(6)
    small = generate(3, chains=2)["results"][0]["entities"]
    large = generate(3, chains=40)["results"][0]["entities"]
    assert sum(e["kind"] == "chain" for e in small) == 2
    assert sum(e["kind"] == "chain" for e in large) == 40
    shapes = {tuple(r["kind"] for r in generate(seed)["results"]) for seed in range(40)}
    assert {
        ("performance",),
        ("compatibility", "performance"),
        ("performance", "performance"),
    } <= shapes


@pytest.mark.parametrize("seed", range(20))
def test_generated_documents_are_valid_input(seed: int) -> None:
    document = generate(seed)
    output = postprocess(document, pipeline_settings(settings_for(seed)), source=f"seed {seed}")
    assert any(result.get("entities") for result in output["results"])
