"""The variant script (``tests/data/batch/make_runs.py``): real files with their timings
redrawn, still read by perfline as the same model's runs."""

from __future__ import annotations

import json
import random
from pathlib import Path

from perfline.core.backends.executorch.etdump import read_etdump
from tests.support.batch_runs import DATA, make_runs, processed

ETDUMP = DATA / "measured" / "portable" / "dscnn_portable.etdump"


def test_an_etdump_variant_keeps_every_event_and_its_nesting() -> None:
    script = make_runs()
    base = ETDUMP.read_bytes()
    variant = script.etdump_variant(base, random.Random(3))
    assert variant != base and len(variant) == len(base)
    assert script.etdump_variant(base, random.Random(3)) == variant  # seeded
    before, after = read_etdump(base, "base"), read_etdump(variant, "variant")
    assert len(before.runs) == len(after.runs)
    changed = 0
    for old_run, new_run in zip(before.runs, after.runs, strict=True):
        olds, news = old_run.profile_events, new_run.profile_events
        assert [(e.name, e.instruction_id) for e in olds] == [
            (e.name, e.instruction_id) for e in news
        ]
        changed += sum(
            1
            for a, b in zip(olds, news, strict=True)
            if a.end_time - a.start_time != b.end_time - b.start_time
        )
        for i, outer in enumerate(olds):  # containment and order, both ways
            for j, inner in enumerate(olds):
                was = outer.start_time <= inner.start_time and inner.end_time <= outer.end_time
                new_outer, new_inner = news[i], news[j]
                now = (
                    new_outer.start_time <= new_inner.start_time
                    and new_inner.end_time <= new_outer.end_time
                )
                assert was == now
    assert changed > 0.9 * sum(len(run.profile_events) for run in before.runs)


def test_slowed_instructions_get_slower(tmp_path: Path) -> None:
    script = make_runs()
    base = ETDUMP.read_bytes()
    slow = frozenset({5, 6})
    plain = read_etdump(script.etdump_variant(base, random.Random(5)), "plain")
    slowed = read_etdump(script.etdump_variant(base, random.Random(5), slow, 1.5), "slowed")
    ratios: dict[bool, list[float]] = {True: [], False: []}
    for a_run, b_run in zip(plain.runs, slowed.runs, strict=True):
        for a, b in zip(a_run.profile_events, b_run.profile_events, strict=True):
            if a.end_time - a.start_time > 1000 and a.name != "Method::execute":
                ratio = (b.end_time - b.start_time) / (a.end_time - a.start_time)
                ratios[a.instruction_id in slow].append(ratio)
    assert ratios[True] and min(ratios[True]) > 1.4
    assert all(abs(r - 1) < 1e-3 for r in ratios[False])


def test_written_runs_are_distinct_runs_of_one_model(tmp_path: Path) -> None:
    specs = make_runs().write_runs(tmp_path, etdump=3, ort=2, documents=2, seed=11)
    listed = (tmp_path / "runs.txt").read_text(encoding="utf-8").split()
    assert listed == specs and len(specs) == 7
    documents = [processed(",".join(str(tmp_path / p) for p in s.split(","))) for s in specs]
    models = [d["model"]["hash"] for d in documents]
    assert len(set(models[:3])) == 1 and len(set(models[3:5])) == 1 and len(set(models[5:])) == 1
    line_26 = [
        b["metrics"][0]["value"]
        for d in documents[:3]
        for b in d["results"][0]["breakdowns"]
        if b["entity_id"].startswith("code_line/dscnn.py:26-")
    ]
    assert len(set(line_26)) == 3  # three different recordings of one line
    profile = json.loads((tmp_path / "ort" / "run_00000.json").read_text(encoding="utf-8"))
    original = json.loads((DATA / "onnxruntime" / "dscnn_opt.json").read_text(encoding="utf-8"))
    assert [e["name"] for e in profile] == [e["name"] for e in original]
    assert [e["dur"] for e in profile] != [e["dur"] for e in original]
