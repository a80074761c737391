"""Figure-set keys written field by field are exactly the canonical JSON text."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from perfline.core.document_canonical import METRIC_KEY_ORDER
from perfline.core.projection.figure_keys import (
    canonical_json,
    figures_key,
    metric_text,
    value_text,
)

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(alphabet=st.characters(), max_size=12)
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
_KEYS = st.sampled_from((*METRIC_KEY_ORDER, "kind", "zeta", "\u00e9"))
_METRICS = st.dictionaries(_KEYS, _VALUES, max_size=len(METRIC_KEY_ORDER) + 2)


def _reference(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@settings(max_examples=400, deadline=None)
@given(_VALUES)
@example(-0.0)
@example(float("nan"))
@example(float("-inf"))
@example(1e16)
@example(True)
@example(2**64)
@example('line\nbreak \u2028 "quoted" \x00')
def test_value_text_is_the_json_text(value: Any) -> None:
    assert value_text(value) == _reference(value) == canonical_json(value)


@settings(max_examples=400, deadline=None)
@given(_METRICS)
@example({"name": "op_cycles", "unit": "cycles", "value": 5, "aggregation": "sum"})
@example({"name": "op_cycles", "unit": "cycles", "value": 5.0, "aggregation": "sum"})
@example({"value": True, "samples": 3, "qualifiers": {"b": [1, 2.5], "a": None}})
@example({"name": "x", "extra": 1})
def test_metric_text_is_the_json_text(metric: dict[str, Any]) -> None:
    assert metric_text(metric) == _reference(metric)


_SUM_METRICS = st.fixed_dictionaries(
    {
        "name": st.text(max_size=8),
        "unit": st.text(max_size=8),
        "value": st.integers() | st.floats() | st.booleans() | st.none(),
        "aggregation": st.sampled_from(("sum", "mean", "max", "\u00b5")),
    }
)


@settings(max_examples=400, deadline=None)
@given(_SUM_METRICS)
@example({"name": "op", "unit": "cycles", "value": -0.0, "aggregation": "sum"})
@example({"name": "op", "unit": "cycles", "value": 1e16, "aggregation": "sum"})
@example({"name": "op", "unit": "cycles", "value": float("inf"), "aggregation": "sum"})
@example({"name": "op", "unit": "cycles", "value": True, "aggregation": "sum"})
@example({"name": 'o"p', "unit": "\u00e9\n", "value": 2**80, "aggregation": "sum"})
def test_summable_metric_text_is_the_json_text(metric: dict[str, Any]) -> None:
    assert metric_text(metric) == _reference(metric)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.dictionaries(st.text(max_size=4), _VALUES, max_size=2),
            st.lists(_METRICS, max_size=3),
        ),
        max_size=3,
    )
)
def test_figures_key_is_the_json_text_of_the_groups(
    groups: list[tuple[dict[str, Any], list[dict[str, Any]]]],
) -> None:
    payload = [{"qualifiers": qualifiers, "metrics": metrics} for qualifiers, metrics in groups]
    given_groups = [(canonical_json(qualifiers), metrics) for qualifiers, metrics in groups]
    assert figures_key(given_groups) == _reference(payload)
