"""SARIF 2.1.0 and JUnit XML forms of the gate's verdict (``perfline check``).

SARIF: one run of the ``perfline`` driver with three rules,
``perfline/line-regression``: one result per regressing line (level
``error``), located at the line's source file and new line number;
``perfline/model-wide-change``: one result per model-wide change beyond the
limit (no location; ``error`` with ``--model-wide fail``, else ``warning``); and
``perfline/new-line``: one result per line only the new run has that adds more than
``--min-share`` of the model (located; ``error``, or ``warning`` with
``--new-lines warn``). The file
is given as the caller resolved it: a path relative to the repository root
(``uriBaseId`` ``%SRCROOT%``), which code hosts use to annotate pull requests,
else the recorded path as a ``file`` URI (absolute) or as written. Each result's
``partialFingerprints`` name the line by its path relative to the source root (else the
file's name), line and metric: no absolute path, so the same line fingerprints alike on
every machine.

JUnit: one ``testsuite`` (``perfline check``) with one ``testcase`` per judged
line and metric (new lines included); a regressing line's test case holds a ``failure``.

Pure: the caller passes the file locations and writes the text. Cost: linear
in the judged lines.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import PurePosixPath
from typing import Any, Final
from xml.etree import ElementTree

from perfline import __version__
from perfline.core.compare.deltas import EntityDelta
from perfline.core.compare.gate import (
    JudgedLine,
    ModelWideJudged,
    Verdict,
    describe,
    describe_model_wide,
)
from perfline.core.compare.new_lines import NewLine, describe_new_line
from perfline.core.escaping import xml_text

SARIF_SCHEMA: Final = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
SARIF_VERSION: Final = "2.1.0"
RULE_ID: Final = "perfline/line-regression"
MODEL_WIDE_RULE_ID: Final = "perfline/model-wide-change"
MODEL_WIDE_RULE: Final = {
    "id": MODEL_WIDE_RULE_ID,
    "name": "ModelWideChange",
    "shortDescription": {"text": "Every line of the model changed alike beyond the limit."},
    "fullDescription": {
        "text": (
            "The median of the lines' ratios new / base (the model-wide factor) lies beyond the "
            "allowed regression and its interval excludes 1: a busy machine, another clock or "
            "a global setting. Lines are judged against it, not against the baseline."
        )
    },
    "defaultConfiguration": {"level": "warning"},
}
NEW_LINE_RULE_ID: Final = "perfline/new-line"
NEW_LINE_RULE: Final = {
    "id": NEW_LINE_RULE_ID,
    "name": "NewLine",
    "shortDescription": {"text": "A source line only the new run has adds to the model's cost."},
    "fullDescription": {
        "text": (
            "The line has a figure in the new run only (a statement added, or one that now "
            "runs), and its share of the new run's model total exceeds the minimum share a "
            "change must have to fail the gate."
        )
    },
    "defaultConfiguration": {"level": "error"},
}
SOURCE_ROOT: Final = "%SRCROOT%"

#: recorded file path -> (uri, is relative to the source root)
Locate = Callable[[str], tuple[str, bool]]


def plain_location(recorded: str) -> tuple[str, bool]:
    """The recorded path as a URI: ``file://`` for absolute paths, else relative as written."""
    path = recorded.replace("\\", "/")
    if PurePosixPath(path).is_absolute():
        return PurePosixPath(path).as_uri(), False
    return path, True


def sarif_log(verdict: Verdict, locate: Locate = plain_location) -> dict[str, Any]:
    """The SARIF log object of the verdict."""
    limit = f"{verdict.max_regression:.1%}"
    rule = {
        "id": RULE_ID,
        "name": "LineRegression",
        "shortDescription": {"text": "A source line got significantly slower than the baseline."},
        "fullDescription": {
            "text": (
                "The line's figure changed by more than the allowed regression, and the change "
                "is significant: outside the runs' own spread (Mann-Whitney U on the per-run "
                "values, corrected for the number of lines compared) or, for estimates, "
                "beyond the relative threshold."
            )
        },
        "defaultConfiguration": {"level": "error"},
    }
    results = [_sarif_result(line, limit, locate) for line in verdict.regressions]
    results.extend(_model_wide_result(item, verdict) for item in verdict.model_wide_regressions)
    level = "error" if verdict.new_line_failures else "warning"
    results.extend(_new_line_result(line, level, locate) for line in verdict.new_lines_beyond)
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "perfline",
                "version": __version__,
                "rules": [rule, MODEL_WIDE_RULE, NEW_LINE_RULE],
            }
        },
        "results": results,
        "columnKind": "unicodeCodePoints",
    }
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


def _line_location(
    entity: EntityDelta, metric: str, fingerprint: str, locate: Locate
) -> dict[str, Any]:
    """The ``locations`` and ``partialFingerprints`` of a result on one source line."""
    uri, relative = locate(entity.file or entity.name)
    artifact: dict[str, Any] = {"uri": uri}
    if relative:
        artifact["uriBaseId"] = SOURCE_ROOT
    return {
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": artifact,
                    "region": {"startLine": int(entity.new_line or 1)},
                }
            }
        ],
        "partialFingerprints": {
            fingerprint: f"{_fingerprint_path(uri, relative)}:{entity.new_line}:{metric}",
        },
    }


def _sarif_result(line: JudgedLine, limit: str, locate: Locate) -> dict[str, Any]:
    delta = line.delta
    return {
        "ruleId": RULE_ID,
        "ruleIndex": 0,
        "level": "error",
        "message": {"text": f"{describe(line)}; the limit is {limit}."},
        **_line_location(line.entity, delta.name, "perflineLine/v1", locate),
        "properties": {
            "metric": delta.name,
            "unit": delta.unit,
            "base": delta.base,
            "new": delta.new,
            "ratio": delta.ratio,
            "method": delta.method,
            **({"pAdjusted": delta.p_adjusted} if delta.p_adjusted is not None else {}),
        },
    }


def _new_line_result(line: NewLine, level: str, locate: Locate) -> dict[str, Any]:
    """A line only the new run has, beyond the minimum share: located at the line."""
    delta = line.delta
    return {
        "ruleId": NEW_LINE_RULE_ID,
        "ruleIndex": 2,
        "level": level,
        "message": {"text": describe_new_line(line)},
        **_line_location(line.entity, delta.name, "perflineNewLine/v1", locate),
        "properties": {
            "metric": delta.name,
            "unit": delta.unit,
            "new": delta.new,
            "share": line.share,
            "modelTotal": line.total,
        },
    }


def _model_wide_result(item: ModelWideJudged, verdict: Verdict) -> dict[str, Any]:
    """A model-wide change beyond the limit: no source location (every line alike); an
    ``error`` when it fails the gate (``--model-wide fail``), else a ``warning``."""
    found = item.estimate
    return {
        "ruleId": MODEL_WIDE_RULE_ID,
        "ruleIndex": 1,
        "level": "error" if verdict.policy == "fail" else "warning",
        "message": {"text": describe_model_wide(item, verdict.max_regression)},
        "partialFingerprints": {"perflineModelWide/v1": found.metric},
        "properties": {
            "metric": found.metric,
            "lines": found.lines,
            "factor": found.factor,
            "low": found.low,
            "high": found.high,
        },
    }


def _fingerprint_path(uri: str, relative: bool) -> str:
    """The file part of a result's fingerprint: the path relative to the source root, else
    the file's name (never an absolute path: it differs between machines and checkouts, and
    a fingerprint must match the same line's result wherever the gate ran)."""
    if relative:
        return uri
    return PurePosixPath(uri.removeprefix("file://")).name


def sarif_text(verdict: Verdict, locate: Locate = plain_location) -> str:
    """The SARIF log as indented JSON text."""
    return json.dumps(sarif_log(verdict, locate), indent=2) + "\n"


def junit_text(verdict: Verdict) -> str:
    """The JUnit XML report of the verdict (a test case per judged line, and one per
    model-wide estimate: failed with ``--model-wide fail`` and a change beyond the limit)."""
    failing_model = verdict.model_wide_regressions if verdict.policy == "fail" else ()
    failing_new = verdict.new_line_failures
    failures = len(verdict.regressions) + len(failing_model) + len(failing_new)
    tests = len(verdict.lines) + len(verdict.model_wide) + len(verdict.new_lines)
    suites = ElementTree.Element(
        "testsuites", name="perfline", tests=str(tests), failures=str(failures)
    )
    suite = ElementTree.SubElement(
        suites,
        "testsuite",
        name="perfline check",
        tests=str(tests),
        failures=str(failures),
        errors="0",
        skipped="0",
    )
    limit = f"{verdict.max_regression:.1%}"
    for line in verdict.lines:
        entity = line.entity
        case = ElementTree.SubElement(
            suite,
            "testcase",
            classname=xml_text(entity.file or "model"),
            name=xml_text(f"line {entity.new_line} {line.delta.name}"),
        )
        if line.regressed:
            failure = ElementTree.SubElement(
                case, "failure", message=f"regression beyond {limit}", type="regression"
            )
            failure.text = xml_text(describe(line))
        else:
            output = ElementTree.SubElement(case, "system-out")
            output.text = xml_text(describe(line))
    for new_line in verdict.new_lines:
        case = ElementTree.SubElement(
            suite,
            "testcase",
            classname=xml_text(new_line.entity.file or "model"),
            name=xml_text(f"line {new_line.entity.new_line} {new_line.delta.name} (new)"),
        )
        text = xml_text(describe_new_line(new_line))
        if new_line in failing_new:
            failure = ElementTree.SubElement(
                case,
                "failure",
                message=f"new line beyond {verdict.min_share:.1%} of the model",
                type="regression",
            )
            failure.text = text
        else:
            ElementTree.SubElement(case, "system-out").text = text
    for item in verdict.model_wide:
        case = ElementTree.SubElement(
            suite,
            "testcase",
            classname="model",
            name=xml_text(f"model-wide {item.estimate.metric}"),
        )
        text = xml_text(describe_model_wide(item, verdict.max_regression))
        if item in failing_model:
            failure = ElementTree.SubElement(
                case, "failure", message=f"model-wide regression beyond {limit}", type="regression"
            )
            failure.text = text
        else:
            ElementTree.SubElement(case, "system-out").text = text
    ElementTree.indent(suites)
    return ElementTree.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"
