"""``docs/editors.md``'s Neovim snippet, run as it is printed by a real headless Neovim 0.11.

The snippet (the block marked ``<!-- perfline-doc: neovim -->``) is the init file; the
harness (``nvim_doc/harness.lua``) only watches what Neovim displays. On a copy of the example
workspace it checks:

* the inlay hints Neovim shows (the snippet turned them on) sit on the lines the measured
  program puts figures on, with the ExecuTorch Inspector's own per-line averages;
* after a second real ETDump of the same program is written over the first, Neovim shows the
  new figures (the server's refresh, Neovim's own request), again the Inspector's;
* after ``perfline.toml``'s backend is misspelled, Neovim holds a diagnostic on that line.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.server.lsp.headless_nvim import neovim, run_report
from tests.support.markdown_blocks import DOCS, blocks
from tests.support.server_helpers import KWS_FIGURE_LINES, REPO, copy_kws

pytestmark = pytest.mark.timeout(240)

HARNESS = Path(__file__).parent / "nvim_doc" / "harness.lua"
DATA = REPO / "tests" / "data"
FIRST_INSPECTOR = DATA / "measured" / "portable" / "dscnn_portable.inspector.json"
RERUN = DATA / "docs" / "dscnn_portable_rerun.etdump"
RERUN_INSPECTOR = DATA / "docs" / "dscnn_portable_rerun.inspector.json"

_FIGURE = re.compile(r"(\d+(?:\.\d+)?)\s*(ms|µs|us)\b")
_USER_FRAME = re.compile(r'kws/dscnn\.py", line (\d+)')


def neovim_snippet() -> str:
    (snippet,) = [b for b in blocks(DOCS / "editors.md") if b.marker == ("neovim",)]
    assert snippet.language == "lua"
    return snippet.text


def inspector_line_averages(path: Path) -> dict[int, float]:
    """Per source line of ``dscnn.py``: the sum of the average durations (ms) of the operator
    calls whose innermost user frame is that line, from the Inspector's per-run times."""
    data = json.loads(path.read_text())
    (block,) = [b for b in data["event_blocks"] if b["name"] == "Execute"]
    lines: dict[int, float] = {}
    for event in block["events"]:
        if event["name"] != "OPERATOR_CALL" or not event["stack_traces"]:
            continue
        frames = _USER_FRAME.findall(" ".join(event["stack_traces"].values()))
        runs = event["raw_ms"]
        line = int(frames[-1])
        lines[line] = lines.get(line, 0.0) + sum(runs) / len(runs)
    return lines


#: ``x = self.blocks(x)``: a call line, whose figure (where it has one) is inclusive: the
#: sum of the block lines it calls.
CALL_LINE, CALLED_LINES = 41, (24, 25, 26, 27)


def _check_hints(hints: list[dict[str, Any]], own: dict[int, float]) -> None:
    assert [hint["line"] + 1 for hint in hints] == KWS_FIGURE_LINES, hints
    expected = {**own, CALL_LINE: sum(own[line] for line in CALLED_LINES)}
    for hint in hints:
        match = _FIGURE.search(hint["label"])
        assert match, hint
        shown = float(match.group(1)) / (1000.0 if match.group(2) != "ms" else 1.0)
        decimals = len(match.group(1).partition(".")[2])
        # The label is the Inspector's figure rounded to the digits it shows.
        tolerance = 0.5 * 10.0**-decimals / (1000.0 if match.group(2) != "ms" else 1.0)
        assert abs(shown - expected[hint["line"] + 1]) <= tolerance * 1.001, (hint, expected)


def test_the_documented_neovim_setup_shows_hints_refreshes_and_diagnostics(
    tmp_path: Path,
) -> None:
    nvim = neovim()
    perfline = Path(sys.executable).parent / "perfline"
    assert perfline.exists(), f"the snippet starts `perfline`; none beside {sys.executable}"
    root = copy_kws(tmp_path)
    toml = root / "perfline.toml"
    backend_line = toml.read_text().splitlines().index('backend = "executorch"')
    init = tmp_path / "init.lua"
    init.write_text(neovim_snippet())
    out = tmp_path / "report.json"
    env = {
        **os.environ,
        "PATH": f"{perfline.parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "PERFLINE_OUT": str(out),
        "PERFLINE_ETDUMP": str(root / "dscnn_portable.etdump"),
        "PERFLINE_NEW_ETDUMP": str(RERUN),
        "PERFLINE_TOML": str(toml),
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_RUNTIME_DIR": str(tmp_path / "run"),
    }
    (tmp_path / "run").mkdir()
    report = run_report(
        nvim,
        ["-u", str(init), "-S", str(HARNESS), "dscnn.py"],
        cwd=root,
        env=env,
        out=out,
        timeout=200,
    )
    assert report["server"] == "perfline"
    assert report["hints_enabled"] is True
    steps = report["steps"]
    _check_hints(steps["first"], inspector_line_averages(FIRST_INSPECTOR))
    _check_hints(steps["second"], inspector_line_averages(RERUN_INSPECTOR))
    assert [h["label"] for h in steps["first"]] != [h["label"] for h in steps["second"]]
    on_line = [d for d in steps["diagnostics"] if d["line"] == backend_line]
    assert on_line, steps["diagnostics"]
    assert any("exectorch" in d["message"] for d in on_line), on_line
    assert all(d["severity"] == 1 for d in on_line)  # vim.diagnostic.severity.ERROR


def test_inspector_line_averages_name_the_figure_lines() -> None:
    """The reference the hints are checked against covers the same lines (one stack per
    operator call; line 41 is only an outer frame, 43 has no kernel)."""
    for path in (FIRST_INSPECTOR, RERUN_INSPECTOR):
        own = [line for line in KWS_FIGURE_LINES if line != CALL_LINE]
        assert sorted(inspector_line_averages(path)) == own
