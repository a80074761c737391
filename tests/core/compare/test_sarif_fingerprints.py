"""Issue 37 item 4: SARIF fingerprints hold no absolute path.

``perfline check --sarif`` on a generated pair of the DS-CNN (``tests/support/compare_pair.py``:
dscnn.py:26 25% slower) whose ETRecord records ``/home/dev/kws/dscnn.py``: the regressing
line's fingerprint names the file relative to the source root when the workspace's path map
finds it there, else by its name; never the recorded absolute path, which differs between the
machine that exported the model and the one that runs the gate.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from tests.support.compare_pair import write_pair
from tests.support.server_helpers import copy_kws

pytestmark = pytest.mark.timeout(180)


def _fingerprints(tmp_path: Path, source_root: Path) -> list[str]:
    base, new = write_pair(tmp_path / "pair", runs=30)
    sarif = tmp_path / "gate.sarif"
    arguments = ["check", "--baseline", base, new, "--sarif", str(sarif)]
    done = CliRunner().invoke(cli, [*arguments, "--source-root", str(source_root)])
    assert done.exit_code == 1, done.output  # the regression on line 26
    results = json.loads(sarif.read_text())["runs"][0]["results"]
    assert results
    return [result["partialFingerprints"]["perflineLine/v1"] for result in results]


def test_fingerprints_are_relative_to_the_source_root(tmp_path: Path) -> None:
    root = copy_kws(tmp_path)  # its perfline.toml maps /home/dev/kws/ onto it
    assert _fingerprints(tmp_path, root) == ["dscnn.py:26:duration_avg"]


def test_a_file_outside_the_source_root_is_named_by_its_name(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (found,) = _fingerprints(tmp_path, elsewhere)
    assert found == "dscnn.py:26:duration_avg"
    assert "/home/dev" not in found
