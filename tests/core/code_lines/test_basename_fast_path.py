"""``location_basename`` takes plain POSIX paths directly and ``location_digest``
writes its JSON text directly; both must always agree with the general route
(``pathlib``'s Windows and POSIX final components, ``json.dumps``)."""

from __future__ import annotations

import hashlib
import json
from pathlib import PurePosixPath, PureWindowsPath

from hypothesis import given, settings, strategies

from perfline.core.code_line_ids import location_basename, location_digest


def _pathlib_basename(file: str) -> str:
    windows = PureWindowsPath(file).name
    posix = PurePosixPath(file).name
    return windows if len(windows) < len(posix) else posix


@settings(max_examples=2000, deadline=None)
@given(strategies.text(alphabet="ab./\\: ~é", max_size=12))
def test_agrees_with_pathlib(file: str) -> None:
    assert location_basename(file) == _pathlib_basename(file)


def test_typical_locations() -> None:
    for file in (
        "/opt/venv/lib/python3.12/site-packages/torch/nn/modules/conv.py",
        "model.py",
        "./model.py",
        "src/..",
        "C:\\work\\my model.py",
        "//server/share/x.py",
        "dir/",
    ):
        assert location_basename(file) == _pathlib_basename(file)


@settings(max_examples=1000, deadline=None)
@given(strategies.text(max_size=12), strategies.integers(min_value=1, max_value=10**20))
def test_digest_is_over_the_compact_json_text(file: str, line: int) -> None:
    text = json.dumps([file, line], separators=(",", ":"), ensure_ascii=False)
    expected = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    assert location_digest(file, line) == expected
