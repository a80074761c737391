"""``location_basename`` takes plain POSIX paths directly; it must agree with the
``pathlib`` reading (shorter of the Windows and POSIX final components) always."""

from __future__ import annotations

from pathlib import PurePosixPath, PureWindowsPath

from hypothesis import given, settings
from hypothesis import strategies as st

from perfline.core.code_line_ids import location_basename


def _pathlib_basename(file: str) -> str:
    windows = PureWindowsPath(file).name
    posix = PurePosixPath(file).name
    return windows if len(windows) < len(posix) else posix


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet="ab./\\: ~é", max_size=12))
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
