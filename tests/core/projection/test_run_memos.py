"""The projection's run-local memo of component outcomes changes time, never answers.

``OutcomeMemo`` (``core/projection/components.py``) keeps a target's component outcomes
from one derivation to the next. Here every document is post-processed with it, then with
a memo that keeps nothing (each component searched again), and the outputs are compared
byte for byte; a counter checks that the memo was really reused on the way. The memo is
switched off by replacing its method, which a compiled class does not allow: pure build
only (the compiled build runs the same code)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from perfline.build_info import core_build
from perfline.core.pipeline import PipelineSettings, postprocess
from perfline.core.projection import FloatSums, components
from tests.support.document_generator import generate
from tests.support.documents import adversarial_document

pytestmark = pytest.mark.skipif(
    core_build() != "pure Python", reason="switches the memo off by replacing its method"
)


def _documents() -> list[dict[str, Any]]:
    return [adversarial_document(size) for size in (8, 12, 16)] + [
        generate(seed) for seed in range(30)
    ]


@pytest.mark.parametrize("float_sums", ["exact", "reference"])
def test_the_outcome_memo_changes_time_never_answers(
    monkeypatch: pytest.MonkeyPatch, float_sums: FloatSums
) -> None:
    settings = PipelineSettings(use_backend_defaults=False, float_sums=float_sums)
    documents = _documents()
    reused = 0
    real = components.OutcomeMemo.outcomes

    def counting(self: Any, component: Any, goal: Any) -> Any:
        nonlocal reused
        key = tuple(map(id, component))
        reused += key in self._current or key in self._previous
        return real(self, component, goal)

    monkeypatch.setattr(components.OutcomeMemo, "outcomes", counting)
    with_memo = [json.dumps(postprocess(d, settings)) for d in documents]
    assert reused > 0  # the memo was used, so switching it off is a test

    def forgetting(self: Any, component: Any, goal: Any) -> Any:
        return components.component_outcomes(component, goal)

    monkeypatch.setattr(components.OutcomeMemo, "outcomes", forgetting)
    without = [json.dumps(postprocess(d, settings)) for d in documents]
    assert with_memo == without
