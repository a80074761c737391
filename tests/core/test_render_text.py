"""The text report: sections, unavailable reasons, the conditional Reason column, width."""

from __future__ import annotations

from typing import Any

from perfline.core.render_text import render_text
from tests.support.documents import minimal_document


def test_sections_and_unavailable_reason() -> None:
    document = minimal_document()
    document["results"][0]["metrics"].append(
        {
            "name": "cpu_utilization",
            "unit": "%",
            "availability": "unavailable",
            "reason": "CPU utilization data is not available.",
        }
    )
    text = render_text(document, width=80)
    for heading in (
        "Target information:",
        "Model information:",
        "Backends:",
        "Result 1: Performance",
        "Metrics:",
        "Entities:",
        "Breakdowns:",
    ):
        assert heading in text
    assert "n/a [1]" in text
    assert "[1] CPU utilization data is not available." in text
    assert all(len(line) <= 80 for line in text.splitlines())
    assert "Reason" not in text


def test_reason_column_only_when_an_entity_has_a_reason() -> None:
    document = minimal_document()
    document["results"][0]["checks"] = [
        {
            "id": "nx_support_0",
            "status": "fail",
            "entity_id": "source_operator/a",
            "details": {"reasons": [{"description": "Unsupported data type", "detail": "int64"}]},
        }
    ]
    text = render_text(document, width=100)
    assert "Reason" in text
    assert "Unsupported data type (int64)" in text
    assert "Checks:" in text


def test_ascii_mode_has_no_box_drawing() -> None:
    text = render_text(minimal_document(), width=80, ascii_only=True)
    assert not any(ord(char) > 127 for char in text)


def test_breakdown_metrics_are_columns_and_those_that_do_not_fit_are_named() -> None:
    document = minimal_document()
    document["results"][0]["breakdowns"][0]["metrics"] = [
        {"name": f"m{i}", "value": i, "unit": "cycles", "aggregation": "sum"} for i in range(7)
    ]
    text = render_text(document, width=80)
    header = next(line for line in text.splitlines() if "m0 (cycles)" in line)
    assert header.index("m0 (cycles)") < header.index("m1 (cycles)")  # the order they come in
    assert "m6 (cycles)" not in header
    words = " ".join(text.split())
    assert "Not shown at this width:" in words and "m6 (cycles)" in words
    assert "--json has every metric" in words


def test_ascii_mode_stays_ascii_at_every_width_on_a_real_result() -> None:
    """Headers cut to fit (a 60-column terminal cuts ``Top operator``) use the ASCII
    ellipsis too: a report piped with ``PYTHONIOENCODING=ascii`` must never fail."""
    from perfline.core.backends.onnxruntime.document import analyze_profiles
    from perfline.core.backends.source_model.inputs import InputFile
    from perfline.core.pipeline import postprocess
    from tests.support.onnxruntime_data import ATTENTION_ONNX, DATA

    def read(path: Any) -> InputFile:
        return InputFile(str(path), path.read_bytes())

    profile = DATA / "attention_noopt.json"
    document = postprocess(
        analyze_profiles(read(ATTENTION_ONNX), [read(profile)], timestamp="2026-01-01T00:00:00Z")
    )
    for width in range(40, 121, 4):
        text = render_text(document, width=width, ascii_only=True)
        assert text.isascii(), (width, [line for line in text.splitlines() if not line.isascii()])
        assert all(len(line) <= width for line in text.splitlines()), width
