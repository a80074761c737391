"""A client's compare settings: the ``compare`` part of its ``perfline`` section.

``{"compare": {"regressionThreshold": 5, "level": 0.05, "correction": "holm",
"estimateThreshold": 0}}``:

* ``regressionThreshold``: a line whose figure got significantly worse than the baseline
  by more than this percentage gets a warning diagnostic (default 5);
* ``level``: significance level of the corrected p-values of measured figures (0-1,
  default 0.05);
* ``correction``: the multiple-test control across the lines compared: ``holm`` (the
  default), ``bh`` (Benjamini-Hochberg) or ``none``;
* ``estimateThreshold``: the percentage an estimate (a figure without per-run values)
  must change by to count (default 0: any change).

Invalid values fall back to the defaults, each with a problem message; unknown keys are
ignored. Pure; constant time.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from perfline.core.compare.deltas import CompareSettings
from perfline.core.compare.significance import CORRECTIONS, Correction

DEFAULT_THRESHOLD = 0.05


@dataclass(frozen=True)
class CompareOptions:
    """What one client asked for; thresholds are fractions (0.05 = 5%)."""

    regression_threshold: float = DEFAULT_THRESHOLD
    settings: CompareSettings = field(default_factory=CompareSettings)


def read_compare_options(
    section: Mapping[str, Any] | None,
) -> tuple[CompareOptions, tuple[str, ...]]:
    """Validated compare options from a ``perfline`` section (``None``: the defaults)."""
    raw = section.get("compare") if section is not None else None
    if raw is None:
        return CompareOptions(), ()
    if not isinstance(raw, Mapping):
        return CompareOptions(), ("perfline.compare: expected an object; ignored",)
    problems: list[str] = []
    threshold = _percent(raw, "regressionThreshold", DEFAULT_THRESHOLD * 100, problems)
    estimate = _percent(raw, "estimateThreshold", 0.0, problems)
    level = 0.05
    given = raw.get("level")
    if isinstance(given, int | float) and _number(given) and 0 < float(given) < 1:
        level = float(given)
    elif given is not None:
        problems.append(
            f"perfline.compare.level: expected a number between 0 and 1, found "
            f"{given!r}; using 0.05"
        )
    correction = "holm"
    given = raw.get("correction")
    if isinstance(given, str) and given in CORRECTIONS:
        correction = given
    elif given is not None:
        problems.append(
            f"perfline.compare.correction: expected one of {', '.join(CORRECTIONS)}, found "
            f"{given!r}; using holm"
        )
    settings = CompareSettings(level, cast(Correction, correction), estimate / 100)
    return CompareOptions(threshold / 100, settings), tuple(problems)


def _number(value: object) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(float(value))
    )


def _percent(raw: Mapping[str, Any], key: str, default: float, problems: list[str]) -> float:
    given = raw.get(key)
    if given is None:
        return default
    if isinstance(given, int | float) and _number(given) and 0 <= float(given) <= 1000:
        return float(given)
    problems.append(
        f"perfline.compare.{key}: expected a percentage from 0 to 1000, found {given!r}; "
        f"using {default:g}"
    )
    return default
