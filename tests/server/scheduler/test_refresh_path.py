"""The refresh path of a changed input: the bytes the loop reads and hashes to see the
change are the bytes the run analyses (read once, hashed once), and none are kept after
the event that scheduled the run."""

from __future__ import annotations

import hashlib
import json
import marshal
from pathlib import Path
from typing import Any

import pytest

from perfline.core.known_structure_reading import StructureReadCache
from perfline.core.pipeline import PipelineSettings
from perfline.core.pipeline_memo import PipelineMemo
from perfline.server.engine import Engine
from perfline.server.file_access import Root
from perfline.server.jobs.context import JobContext, JobInput, is_processed
from perfline.server.jobs.stage_memo import StageMemo
from perfline.server.jobs.standardized_job import StandardizedOutputJob
from perfline.server.scheduler import content_hashes, runner
from perfline.server.scheduler.bounded_reads import InputLimits, ReadFile
from perfline.server.scheduler.content_hashes import MISSING, ContentHashes
from tests.support.server_helpers import INPUT_DOC, PROCESSED_DOC, load, with_value

pytestmark = pytest.mark.timeout(60)


def test_hashed_bytes_are_handed_over_once_and_dropped(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(b'{"a": 1}')
    hashes = ContentHashes(tmp_path, InputLimits())
    digest = hashes.digest("a.json")
    assert digest == hashlib.sha256(b'{"a": 1}').hexdigest()
    assert hashes.take("a.json", "another digest") is None
    read = hashes.take("a.json", digest)
    assert isinstance(read, ReadFile) and read.data == b'{"a": 1}'
    assert hashes.take("a.json", digest) is None  # once
    hashes.digest("a.json")  # unchanged and hashed long enough ago? racy: read again
    hashes.drop_reads()
    assert hashes.take("a.json", digest) is None  # the event is over
    assert hashes.digest("b.json") == MISSING and hashes.take("b.json", MISSING) is None


def test_the_run_analyses_the_bytes_the_loop_hashed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "a.mlia.json"
    target.write_text(json.dumps(with_value(load(INPUT_DOC), 1)))
    engine = Engine(tmp_path, debounce=0.02, settle=0.1)
    engine.start()
    try:
        assert engine.wait_idle(30)
        reads: list[str] = []
        looks: list[str] = []
        real = runner.read_input

        def counted(path: Path, source: str, limits: InputLimits, root: Root) -> ReadFile:
            reads.append(source)
            return real(path, source, limits, root)

        def looked(path: Path, source: str, limits: InputLimits, root: Root) -> ReadFile:
            looks.append(source)
            return real(path, source, limits, root)

        monkeypatch.setattr(runner, "read_input", counted)
        monkeypatch.setattr(content_hashes, "read_input", looked)
        text = json.dumps(with_value(load(INPUT_DOC), 7))
        target.write_text(text)
        engine.notify_changed([target], finished=True)
        assert engine.wait_idle(30)
        good = engine.result("a")
        assert good is not None
        assert good.digests == (hashlib.sha256(text.encode()).hexdigest(),)
        chains = {
            m["value"]
            for r in good.document["results"]
            for b in r["breakdowns"]
            if b["entity_id"].startswith("chain/")
            for m in b["metrics"]
        }
        assert chains == {7}  # the new values, not the old ones
        assert reads == []  # the run did not read the file again
        assert looks.count("a.mlia.json") == 1
        looks.clear()
        engine.reanalyze("a")  # no file event: the loop looks at the inputs first
        assert engine.wait_idle(30)
        # read once: by the loop's look (a file written in the last seconds is hashed
        # again) and handed to the run, or by the run (its cached hash trusted)
        assert len(looks + reads) == 1, (looks, reads)
    finally:
        engine.close()


def _entities_of(document: dict[str, Any]) -> list[Any]:
    entities: list[Any] = document["results"][0]["entities"]
    return entities


def test_processed_documents_are_told_from_raw_ones() -> None:
    raw, processed = load(INPUT_DOC), load(PROCESSED_DOC)
    assert not is_processed(raw) and is_processed(processed)
    odd = load(INPUT_DOC)
    _entities_of(odd).insert(0, "not an entity")
    assert not is_processed(odd)
    _entities_of(odd).append({"id": "code_line/x", "kind": "code_line"})
    assert is_processed(odd)
    odd["results"].insert(0, ["not", "a", "result"])
    assert is_processed(odd)
    assert not is_processed({"results": {"entities": []}})


def test_a_processed_document_is_served_as_the_file_writes_it() -> None:
    # the job's reader may hand plain breakdowns over in canonical key order (for the
    # pipeline); a processed document is served as it is, so in the file's order
    document = load(PROCESSED_DOC)
    for result in document["results"]:
        for record in result.get("breakdowns") or []:
            record["metrics"] = [
                {key: metric[key] for key in ("name", "value", "unit", "aggregation")}
                for metric in record["metrics"]
            ]
    data = json.dumps(document).encode()
    pipeline, cache = PipelineMemo(), StructureReadCache()
    for _ in range(2):
        item = JobInput("a.mlia.json", data, "digest")
        context = JobContext(
            (item,), {}, PipelineSettings(), StageMemo(), pipeline_memo=pipeline, read_cache=cache
        )
        served = StandardizedOutputJob().run(context)
        assert marshal.dumps(served, 0) == marshal.dumps(json.loads(data), 0)
