"""``docs/batch.md``'s commands, as printed, in a workspace of the DS-CNN's source with runs
made by the variant script, last week's aggregate beside them and a git commit."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from tests.support.batch_runs import BIN, DATA, make_runs
from tests.support.markdown_blocks import DOCS, blocks

pytestmark = pytest.mark.timeout(300)


def test_the_batch_guides_commands_run(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    shutil.copy(DATA / "formats" / "dscnn" / "dscnn.py", root / "dscnn.py")
    (root / "perfline.toml").write_text(
        '[[path_map]]\nfrom = "/home/dev/kws/"\nto = "."\n\n'
        '[[jobs]]\nname = "nightly"\nbackend = "standardized"\ninputs = ["THIS_WEEK.json"]\n',
        encoding="utf-8",
    )
    last = tmp_path / "last"
    make_runs().write_runs(last, etdump=9, seed=21)
    for arguments in (
        [
            "batch",
            "run",
            "--in-process",
            "--store",
            str(tmp_path / "old"),
            "--from-list",
            str(last / "runs.txt"),
        ],
        [
            "batch",
            "summarize",
            "--store",
            str(tmp_path / "old"),
            "--out",
            str(root / "LAST_WEEK.json"),
        ],
    ):
        assert CliRunner().invoke(cli, arguments).exit_code == 0
    make_runs().write_runs(root, etdump=9, seed=22)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    for command in (["init", "-q"], ["add", "dscnn.py"], ["commit", "-qm", "model"]):
        subprocess.run([*git, *command], cwd=root, check=True, capture_output=True)
    marked = [b for b in blocks(DOCS / "batch.md") if b.marker == ("batch",)]
    assert len(marked) == 2
    script = "set -euo pipefail\n" + "".join(block.text for block in marked)
    done = subprocess.run(
        ["bash", "-c", script],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", "COLUMNS": "120"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "9 runs (stored 9, skipped 0, failed 0)" in done.stderr
    assert " ms p50 n=9 · " in done.stdout  # annotate's margin: the medians of the 9 runs
    assert '"runtime","count_star()"\n"executorch",9\n' in done.stdout  # the sql example
