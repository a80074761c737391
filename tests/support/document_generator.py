"""Seeded generator of random NX-shaped standardized-output documents.

Deterministic by seed (``random.Random(seed)`` only, no clock, no globals).
A document imitates what the NX estimator backend emits:

* ``segment/<s>`` over cascades and a few structural source operators;
* ``cascade/segment_<s>/<k>`` over 1-3 chains, with an optional breakdown
  (the sum of its chains' ``sum`` metrics, sometimes plus unattributed work);
* ``chain/segment_<s>/<c>`` with an authoritative breakdown, over source
  operators directly, over ``performance_group`` entities (one chain operator
  mapped to several sources), or sharing a source with an earlier chain;
* an ``nn_module`` tree (root, blocks, sub-modules) over the sources;
* ``code_stack`` prefixes per source: user frames (POSIX, relative and
  Windows paths, a helper line reached from many callers) and torch /
  executorch ``site-packages`` frames (what the NX default rule collapses),
  including a relative ``site-packages/torch`` path the rule must not match;
* metrics: ``sum`` ints and floats, ``max``/``mean``/no aggregation,
  unavailable metrics, ``samples``, metric and breakdown qualifiers;
* sometimes one-sided links, checks and advice on entities;
* sometimes a second result: an entity-less one (unknown key, empty list) or
  another small NX result.

``settings_for(seed)`` picks how a document is post-processed: bare core, the
NX default rule, or an extra configured rule (some of which must be retained).
Entities, records and the envelope come from the shared builder
(``tests/support/documents.py``).
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass
from typing import Any

from tests.support.documents import (
    NX_KINDS,
    EntityTable,
    breakdown,
    envelope,
    model_file,
    nx_backend,
    sum_metric,
)

PRODUCERS = ("nx-performance-estimator", "neural-technology-profiling-data")
OPERATOR_TYPES = ("conv2d", "add", "mul", "relu", "resize", "matmul", "reshape", "concat")
USER_FILES = (
    "/home/dev/proj/model.py",
    "/home/dev/proj/blocks.py",
    "src/proj/layers.py",
    "./proj/heads.py",
    "C:\\Users\\dev\\proj\\win model.py",
    "C:/Users/dev/proj/win_fwd.py",
    "/home/dev/proj/modèle.py",
)
HELPER = ("/home/dev/proj/util.py", 7, "helper")
TORCH_FRAMES = (
    ("/opt/venv/lib/python3.12/site-packages/torch/nn/modules/module.py", 1736, "_call_impl"),
    ("/opt/venv/lib/python3.12/site-packages/torch/nn/modules/conv.py", 454, "forward"),
    ("C:/Python312/Lib/site-packages/torch/nn/functional.py", 2380, "linear"),
    ("/opt/venv/lib/python3.12/site-packages/executorch/exir/pass_base.py", 91, "call"),
    ("site-packages/torch/fx/relative.py", 5, "relative"),
)

#: Extra configured rules (the differential runs some documents with one of them).
EXTRA_RULES = (
    "nn_module:module_type:torch.nn.Sequential",
    "performance_group:merge:*",
    "cascade:stripe:odd",
    "chain:tag:x",
    "code_stack:function:forward",
    "code_stack:function:*",
    "nn_module:module_type:*",
    "source_operator:operator_types:*",
    "cascade:stripe:*",
)


@dataclass(frozen=True)
class Settings:
    """How one generated document is post-processed."""

    use_backend_defaults: bool
    collapse: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        mode = "nt-defaults" if self.use_backend_defaults else "bare"
        return mode + "".join(f" --collapse {rule}" for rule in self.collapse)


def settings_for(seed: int) -> Settings:
    """The settings the differential test uses for the document of ``seed``."""
    rng = random.Random(seed * 7919 + 17)
    roll = rng.random()
    if roll < 0.4:
        return Settings(False)
    if roll < 0.8:
        return Settings(True)
    count = 2 if rng.random() < 0.3 else 1
    return Settings(rng.random() < 0.5, tuple(rng.sample(EXTRA_RULES, count)))


def _value(rng: random.Random, floats: bool, low: int, high: int) -> int | float:
    if floats and rng.random() < 0.5:
        if rng.random() < 0.5:
            return rng.randint(low, high) / 8  # dyadic: exact sums
        return round(rng.uniform(low, high) / 1000, rng.randint(1, 4))
    return rng.randint(low, high)


def _chain_metrics(rng: random.Random, features: dict[str, bool]) -> list[dict[str, Any]]:
    metrics: list[dict[str, Any]] = [
        sum_metric("total_cycles", rng.randint(100, 90_000)),
        sum_metric("op_cycles", rng.randint(50, 50_000)),
    ]
    for memory in rng.sample(["l1", "l2", "dram"], rng.randint(0, 2)):
        metrics.append(sum_metric(f"{memory}_read_bytes", rng.randint(0, 1 << 18), "bytes"))
    if features["floats"]:
        metrics.append(sum_metric("time", _value(rng, True, 1, 4000), "ms"))
    if features["non_sum"]:
        roll = rng.random()
        if roll < 0.3:
            metrics.append(
                {
                    "name": "peak_bandwidth",
                    "value": rng.randint(1, 512),
                    "unit": "bytes",
                    "aggregation": "max",
                }
            )
        elif roll < 0.5:
            metrics.append(
                {
                    "name": "utilization",
                    "value": _value(rng, True, 0, 800),
                    "unit": "%",
                    "aggregation": "mean",
                }
            )
        elif roll < 0.7:
            metrics.append({"name": "stripes", "value": rng.randint(1, 9), "unit": "count"})
        elif roll < 0.85:
            metrics.append(
                {
                    "name": "energy",
                    "unit": "uJ",
                    "availability": "unavailable",
                    "reason": "Energy is not estimated.",
                }
            )
    if features["samples"] and rng.random() < 0.5:
        metrics[1] = {**metrics[1], "samples": rng.randint(1, 5)}
    if features["qualifiers"] and rng.random() < 0.3:
        metrics[0] = {**metrics[0], "qualifiers": {"placement": "NX"}}
    return metrics


def _sum_of(groups: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Producer-side cascade figures: the sum of the chains' common ``sum`` metrics."""
    totals: dict[str, dict[str, Any]] = {}
    for metrics in groups:
        for metric in metrics:
            if metric.get("aggregation") != "sum" or "value" not in metric:
                continue
            key = json.dumps([metric["name"], metric["unit"], metric.get("qualifiers")])
            slot = totals.setdefault(
                key, {k: v for k, v in metric.items() if k != "samples"} | {"value": 0}
            )
            slot["value"] += metric["value"]
    return list(totals.values())


def _stack_id(prefix: list[tuple[str, int, str]]) -> str:
    digest = hashlib.sha256(json.dumps(prefix).encode()).hexdigest()[:12]
    file, line, _ = prefix[-1]
    base = file.replace("\\", "/").rsplit("/", 1)[-1]
    safe = "".join(
        ch if ch.isascii() and (ch.isalnum() or ch in "_.:-") else "_" for ch in f"{base}:{line}"
    )
    return f"code_stack/{safe}-{digest}"


def generate(seed: int, chains: int | None = None, extra_results: bool = True) -> dict[str, Any]:
    """One complete schema-1.2.0 document; ``chains`` defaults to 1-14 drawn from the seed.

    With ``extra_results`` some documents also hold an entity-less compatibility
    result or a second, small NX result."""
    rng = random.Random(seed)
    if chains is None:
        chains = rng.randint(1, 14)
    features = {
        name: rng.random() < chance
        for name, chance in (
            ("torch", 0.6),
            ("floats", 0.35),
            ("non_sum", 0.5),
            ("qualifiers", 0.3),
            ("samples", 0.2),
            ("cascade_breakdowns", 0.7),
            ("records", 0.3),
            ("pg_merge", 0.3),
        )
    }
    doc = EntityTable(rng=rng, one_sided=0.15 if rng.random() < 0.4 else 0.0)
    breakdowns: list[dict[str, Any]] = []
    segments = 1 + chains // rng.randint(6, 12)
    per_segment = [
        chains // segments + (1 if s < chains % segments else 0) for s in range(segments)
    ]
    sources: list[str] = []
    chain_index = 0
    for s, count in enumerate(per_segment):
        segment_id = f"segment/{s}"
        doc.add(segment_id, "segment", f"segment_{s}")
        next_spirv = 10
        recent: list[str] = []
        done = 0
        cascade = 0
        while done < count:
            size = min(rng.randint(1, 3), count - done)
            cascade_id = f"cascade/segment_{s}/{cascade}"
            doc.add(
                cascade_id,
                "cascade",
                f"Cascade {cascade}",
                placement="NX",
                attributes={"stripe": rng.choice(("odd", "even"))},
            )
            doc.link(segment_id, cascade_id)
            member_metrics = []
            for _ in range(size):
                chain_id = f"chain/segment_{s}/{chain_index}"
                attributes = {"tag": "x"} if rng.random() < 0.3 else {}
                doc.add(
                    chain_id, "chain", f"Chain {chain_index}", placement="NX", attributes=attributes
                )
                doc.link(cascade_id, chain_id)
                for operator in range(rng.choice((1, 1, 1, 2, 3))):
                    roll = rng.random()
                    if recent and roll < 0.15:
                        doc.link(chain_id, rng.choice(recent))
                        continue
                    group = roll > 0.8
                    targets = []
                    for _ in range(rng.randint(2, 3) if group else 1):
                        source = f"source_operator/segment_{s}/spirv-{next_spirv}"
                        next_spirv += 1
                        kind = rng.choice(OPERATOR_TYPES)
                        doc.add(
                            source,
                            "source_operator",
                            kind,
                            placement="NX",
                            attributes={"operator_types": [kind]},
                        )
                        sources.append(source)
                        recent = [*recent, source][-5:]
                        targets.append(source)
                    if group:
                        pg_id = f"performance_group/segment_{s}/chain_{chain_index}/{operator}"
                        merge = {"merge": "yes"} if features["pg_merge"] else {}
                        doc.add(pg_id, "performance_group", "/".join(targets), attributes=merge)
                        doc.link(chain_id, pg_id)
                        for target in targets:
                            doc.link(pg_id, target)
                    else:
                        doc.link(chain_id, targets[0])
                metrics = _chain_metrics(rng, features)
                member_metrics.append(metrics)
                item = breakdown(chain_id, metrics, chain_id)
                if features["qualifiers"] and rng.random() < 0.15:
                    item["qualifiers"] = {"phase": "after"}
                breakdowns.append(item)
                chain_index += 1
                done += 1
            if features["cascade_breakdowns"] and rng.random() < 0.5:
                summed = _sum_of(member_metrics)
                if rng.random() < 0.3:
                    for metric in summed:
                        metric["value"] += rng.randint(1, 99)
                breakdowns.append(breakdown(cascade_id, summed, cascade_id))
            cascade += 1
        for _ in range(rng.randint(0, 2)):
            source = f"source_operator/segment_{s}/spirv-{next_spirv}"
            next_spirv += 1
            doc.add(source, "source_operator", source)
            doc.link(segment_id, source)
            sources.append(source)

    _modules_and_stacks(doc, rng, sources, features)
    entities = _producer_order(doc.entities)
    result: dict[str, Any] = {
        "kind": "performance",
        "status": "ok",
        "producer": rng.choice(PRODUCERS),
        "metrics": [
            {
                "name": "total_cycles",
                "value": sum(
                    b["metrics"][0]["value"]
                    for b in breakdowns
                    if b["entity_id"].startswith("chain/")
                ),
                "unit": "cycles",
            },
            {
                "name": "cpu_utilization",
                "unit": "%",
                "availability": "unavailable",
                "reason": "CPU utilization data is not available.",
            },
        ],
        "breakdowns": breakdowns,
        "entities": entities,
        "entity_kinds": NX_KINDS,
    }
    if features["records"]:
        _checks_and_advice(result, rng)
    results = [result]
    roll = rng.random()
    if roll < 0.1:  # a result without entities is only parsed
        results.insert(
            0,
            {
                "kind": "compatibility",
                "status": "ok",
                "producer": "tosa-checker",
                "warnings": [],
                "checks": [{"id": "tosa", "status": "pass"}],
                "x_vendor": {"kept": True},
            },
        )
    elif roll < 0.2:  # a second NX result, processed on its own
        results.append(
            generate(seed + 1_000_003, rng.randint(1, 4), extra_results=False)["results"][0]
        )
    if not extra_results:
        results = [result]
    digest = hashlib.sha256(f"perfline-differential:{seed}:{chains}".encode()).hexdigest()
    return envelope(
        results,
        model=model_file(f"gen_{seed}.vgf", digest),
        backends=[nx_backend(result["producer"])],
        run_id=f"{digest[:8]}-{digest[8:12]}-4{digest[13:16]}-8{digest[17:20]}-{digest[20:32]}",
    )


def _modules_and_stacks(
    doc: EntityTable, rng: random.Random, sources: list[str], features: dict[str, bool]
) -> None:
    root = "nn_module/<root>"
    doc.add(root, "nn_module", "<root>", attributes={"module_type": "proj.Net"})
    blocks = max(1, len(sources) // 4)
    for source in sources:
        if rng.random() < 0.12:
            continue  # no debug provenance
        block = rng.randrange(blocks)
        block_id = f"nn_module/L__self___blocks_{block}"
        doc.add(
            block_id,
            "nn_module",
            f"blocks.{block}",
            attributes={"module_type": rng.choice(("torch.nn.Sequential", "proj.Block"))},
        )
        doc.link(root, block_id)
        leaf = block_id
        if rng.random() < 0.6:
            sub = rng.randrange(3)
            leaf = f"nn_module/L__self___blocks_{block}_{sub}"
            doc.add(
                leaf,
                "nn_module",
                f"blocks.{block}.{sub}",
                attributes={"module_type": rng.choice(("torch.nn.Conv2d", "torch.nn.Sequential"))},
            )
            doc.link(block_id, leaf)
        doc.link(leaf, source)
        frames = [
            (USER_FILES[0], 40 + block % 5, "forward"),
            (USER_FILES[1 + block % (len(USER_FILES) - 1)], 10 + block % 7, "forward"),
        ]
        if rng.random() < 0.3:
            frames.append(HELPER)
        if features["torch"] and rng.random() < 0.5:
            torch = rng.sample(TORCH_FRAMES, rng.randint(1, 3))
            between = rng.random() < 0.3  # torch frames between user frames
            frames = [frames[0], *torch, *frames[1:]] if between else frames + torch
        previous: str | None = None
        for depth in range(1, len(frames) + 1):
            prefix = frames[:depth]
            stack_id = _stack_id(prefix)
            file, line, function = prefix[-1]
            attributes: dict[str, Any] = {"file": file, "line": line, "function": function}
            if rng.random() < 0.02:
                attributes["line"] = str(line)  # a malformed line derives nothing
            doc.add(
                stack_id, "code_stack", f"{file.rsplit('/', 1)[-1]}:{line}", attributes=attributes
            )
            if previous is not None:
                doc.link(previous, stack_id)
            previous = stack_id
        assert previous is not None
        doc.link(previous, source)


def _producer_order(entities: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    order = (
        "chain",
        "cascade",
        "nn_module",
        "code_stack",
        "performance_group",
        "source_operator",
        "segment",
    )
    return sorted(entities.values(), key=lambda e: order.index(e["kind"]))


def _checks_and_advice(result: dict[str, Any], rng: random.Random) -> None:
    ids = [e["id"] for e in result["entities"]]
    stacks = [e["id"] for e in result["entities"] if e["kind"] == "code_stack"] or ids
    checks = []
    for index in range(rng.randint(1, 4)):
        target = rng.choice([None, rng.choice(ids), rng.choice(stacks)])
        check: dict[str, Any] = {"id": f"check{index}", "status": rng.choice(("pass", "fail"))}
        if target is not None:
            check["entity_id"] = target
        if rng.random() < 0.5:
            check["details"] = {"reasons": []}
        checks.append(check)
    advice = []
    for index in range(rng.randint(1, 3)):
        item: dict[str, Any] = {
            "id": f"advice{index}",
            "category": "performance",
            "severity": rng.choice(("info", "warning")),
            "message": f"advice {index}",
        }
        if rng.random() < 0.7:
            item["affected_entity_ids"] = sorted({rng.choice(stacks), rng.choice(ids)})
        advice.append(item)
    result["checks"] = checks
    result["advice"] = advice
