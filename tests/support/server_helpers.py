"""Helpers of the daemon tests: example workspaces, standardized documents, waiting."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support.locations import REPO

KWS = REPO / "examples" / "kws"
DATA = REPO / "tests" / "data" / "server"
INPUT_DOC = DATA / "conv_resize.mlia-input.json"
PROCESSED_DOC = DATA / "conv_resize.processed.json"

#: Lines of dscnn.py the measured ETRecord/ETDump pair puts figures on (see the fixture notes:
#: every line with a user frame except 43, the flatten view, which has no kernel and so no
#: event; line 41 gets the sum of its blocks' operators with exact float sums, deviation D6,
#: where the reference's rounding-only conflict leaves it without).
KWS_FIGURE_LINES = [24, 25, 26, 27, 40, 41, 42, 44]


def copy_kws(tmp_path: Path) -> Path:
    target = tmp_path / "kws"
    shutil.copytree(KWS, target)
    for path in target.iterdir():
        path.chmod(0o644)
    return target


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def with_value(document: dict[str, Any], value: float) -> dict[str, Any]:
    """A copy of the input document whose every breakdown metric is scaled to ``value``."""
    copy = json.loads(json.dumps(document))
    for result in copy["results"]:
        for breakdown in result.get("breakdowns", []):
            for metric in breakdown["metrics"]:
                metric["value"] = value
    return copy


def wait_for(predicate: Callable[[], bool], timeout: float = 10.0, step: float = 0.02) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()
