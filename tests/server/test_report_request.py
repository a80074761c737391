"""``perfline/reportHtml``: the report page the daemon renders for a webview, on the example
workspace (the real DS-CNN ETRecord/ETDump pair), with and without a baseline.

What the page shows is held against the daemon's other answers for the same job (the line
labels of ``perfline/lineAnnotations``, the generation of ``perfline/result``) and, for the
compare view, against the figures of the two documents themselves.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from perfline.core.report_html.comparison import SIGNIFICANCES
from perfline.server import api
from perfline.server.engine import Engine
from perfline.server.report_request import BAD_BASELINE
from tests.support.compare_pair import write_pair
from tests.support.html_documents import example_pair
from tests.support.lsp_session import start
from tests.support.server_helpers import PROCESSED_DOC, copy_kws

JOB = "dscnn-measured"
NONCE = "Zm9vYmFyYmF6MTIz+/="


def _data(page: str) -> dict[str, Any]:
    found = re.search(
        r'<script type="application/json" id="perfline-data"[^>]*>(.*?)</script>', page
    )
    assert found is not None
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def _call(engine: Engine, params: Any) -> dict[str, Any]:
    return api.METHODS["perfline/reportHtml"](engine, params)


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    """The example workspace whose job is the generated pair's new run (dscnn.py:26 slowed),
    with the baseline's processed document saved as ``baseline.json``."""
    root = copy_kws(tmp_path_factory.mktemp("kws"))
    pair = tmp_path_factory.mktemp("pair")
    write_pair(pair, runs=10)
    shutil.copy(pair / "new.etrecord", root / "dscnn_portable.etrecord")
    shutil.copy(pair / "new.etdump", root / "dscnn_portable.etdump")
    base, _ = example_pair(runs=10)
    (root / "baseline.json").write_text(json.dumps(base))
    running = Engine(root, debounce=0.0, settle=0.0)
    running.start()
    assert running.wait_idle(120)
    yield running
    running.close()


def test_the_page_of_a_job(engine: Engine) -> None:
    answer = _call(engine, {"job": JOB, "nonce": NONCE})
    page = answer["html"]
    assert f"'nonce-{NONCE}'" in page and "'unsafe-inline'" not in page
    assert page.count(f'nonce="{NONCE}"') == 2  # the style and the script, nothing else
    good = engine.result(JOB)
    assert good is not None
    assert (answer["job"], answer["generation"], answer["stale"]) == (JOB, good.generation, False)
    assert (
        answer["baseline"] is None and answer["title"] == "perfline report: dscnn_portable.etrecord"
    )
    data = _data(page)
    assert data["comparison"] is None
    (view,) = data["views"]
    (file,) = view["files"]
    source = engine.root / "dscnn.py"
    assert file["location"] == str(source.resolve())  # a click can open the local file
    assert file["display"] == "dscnn.py" and file["text"] == source.read_text().splitlines()
    # Every line's label is the one the daemon puts in the editor.
    annotations = api.METHODS["perfline/lineAnnotations"](engine, {"file": str(source)})
    labels = {line["line"]: line["label"] for line in annotations["lines"] if line["label"]}
    shown = {line[0]: view["labels"][line[3]] for line in file["lines"] if line[3] >= 0}
    assert shown == labels and 26 in shown


def test_without_job_the_first_with_a_result(engine: Engine) -> None:
    answer = _call(engine, {})
    assert answer["job"] == JOB and "'unsafe-inline'" in answer["html"]  # no nonce: inline


def _line_figure(document: Mapping[str, Any], line: int) -> float:
    result = document["results"][0]
    ids = {
        e["id"]
        for e in result["entities"]
        if e["kind"] == "code_line" and e["attributes"]["line"] == line
    }
    (value,) = [
        m["value"]
        for b in result["breakdowns"]
        if b["entity_id"] in ids
        for m in b["metrics"]
        if m["name"] == "duration_avg" and set(m.get("qualifiers") or ()) <= {"confidence"}
    ]
    return float(value)


def test_the_compare_view_with_a_baseline(engine: Engine) -> None:
    answer = _call(engine, {"job": JOB, "nonce": NONCE, "baseline": "baseline.json"})
    assert answer["baseline"] == {"file": "baseline.json", "pairs": 1, "warnings": []}
    assert answer["title"] == "perfline compare: dscnn_portable.etrecord"
    data = _data(answer["html"])
    good = engine.result(JOB)
    assert good is not None
    assert data["comparison"]["baseline"] == "baseline.json"
    assert data["comparison"]["current"] == f"job {JOB} (generation {good.generation})"
    (view,) = data["views"]
    (file,) = view["files"]
    rows = {row[0]: row for row in view["comparison"]["deltas"]}
    base = json.loads((engine.root / "baseline.json").read_text())
    for line in file["lines"]:
        if line[2] is None:
            continue
        row = rows[line[1]]
        assert row[1] == pytest.approx(_line_figure(base, line[0]), rel=1e-6)
        assert row[2] == pytest.approx(_line_figure(good.document, line[0]), rel=1e-6)
        expected = "regressed" if line[0] == 26 else "unchanged"
        assert SIGNIFICANCES[row[4]] == expected, line[0]


@pytest.mark.parametrize(
    ("params", "code", "message"),
    [
        ({"baseline": "/etc/passwd"}, api.OUTSIDE_WORKSPACE, "outside the workspace"),
        ({"baseline": "missing.json"}, BAD_BASELINE, "missing.json: cannot read the baseline"),
        ({"baseline": "dscnn.py"}, BAD_BASELINE, "dscnn.py: not JSON"),
        ({"baseline": "perfline.toml"}, BAD_BASELINE, "perfline.toml: not JSON"),
        ({"baseline": "other.json"}, BAD_BASELINE, "nothing to compare with the baseline"),
        ({"baseline": "list.json"}, BAD_BASELINE, "list.json: not a standardized-output"),
        ({"baseline": "."}, BAD_BASELINE, "is a directory"),
        ({"nonce": "bad nonce!"}, api.INVALID_PARAMS, "parameter 'nonce'"),
        ({"job": "nope"}, api.UNKNOWN_JOB, "unknown job 'nope'"),
        ({"metric": 3}, api.INVALID_PARAMS, "'metric' must be a non-empty string"),
    ],
)
def test_errors_say_what_is_wrong(
    engine: Engine, params: dict[str, Any], code: int, message: str
) -> None:
    shutil.copy(PROCESSED_DOC, engine.root / "other.json")  # another model's document
    (engine.root / "list.json").write_text("[]")
    with pytest.raises(api.ApiError) as raised:
        _call(engine, {"job": JOB, **params})
    assert raised.value.code == code
    assert message in raised.value.message


async def test_over_the_protocol_beside_hints(tmp_path: Path) -> None:
    """Through a real daemon: the page comes back while the connection keeps answering."""
    async with start(copy_kws(tmp_path), "stdio", "visual-studio-code") as session:
        await session.wait_analysed()
        uri = session.open("dscnn.py")
        report, hints = await asyncio.gather(
            session.request("perfline/reportHtml", {"job": JOB, "nonce": NONCE}),
            session.hints(uri),
        )
        assert hints and report.job == JOB
        (view,) = _data(report.html)["views"]
        (file,) = view["files"]
        (line_26,) = [line for line in file["lines"] if line[0] == 26]
        label = view["labels"][line_26[3]]
        assert any(str(hint.label).endswith(label) for hint in hints)  # the editor's label
