"""The one builder of standardized-output documents for tests, benchmarks and the
differential generator.

* The envelope fixture: ``envelope(results, model=..., ...)`` wraps results in
  the top-level fields as the reference's producers write them (``schema_version,
  run_id, timestamp, tool, target, model, context, backends, results``), with
  ``nx_target``, ``nx_backend`` and ``model_file`` for its parts.
* ``EntityTable``: entities by id in the order first added, whose parent-child
  links are written on both sides, the child side only, or (with a random
  generator) now both and now one side at random, as producers do.
* Records: ``sum_metric`` (the producers' key order), ``canonical_sum_metric``
  (the schema's), ``breakdown``, ``entity``, ``stage_result``.
* Document families built from them: ``nx_document`` and ``adversarial_document``
  (the NX-shaped benchmark documents; ``benchmarks/core_pipeline.py`` re-exports
  them), ``small_result`` (random NX-shaped results for property tests),
  ``minimal_document`` (one valid document to break one rule at a time). The
  differential generator (``tests/support/document_generator.py``) builds its
  documents with ``EntityTable`` and ``envelope`` too.

Deterministic: the same arguments give byte-identical JSON (the digests tool
``tests/product/differential/digests.py`` and the recorded differential answers depend on
it). Importable from the checkout root, by tests and by ``benchmarks/`` alike; it
imports only the product's NX kind declarations and the document shapes.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Sequence
from typing import Any

from perfline.core.backends.nx_common.kinds import performance_entity_kinds
from perfline.core.document_shapes import (
    SUM_METRIC_KEYS,
    BackendJson,
    ComponentJson,
    ModelJson,
    TargetJson,
    ToolJson,
)

NX_PRODUCER = "nx-performance-estimator"
#: What the NX backends declare (``segment``, ``cascade``, ``chain``, ``performance_group``,
#: ``nn_module``).
NX_KINDS: list[dict[str, Any]] = performance_entity_kinds()
#: The three NX kinds a chain-over-operator document needs.
CHAIN_KINDS: list[dict[str, Any]] = [
    {"id": "segment", "child_kinds": ["cascade", "source_operator"]},
    {"id": "cascade", "parent_kinds": ["segment"], "child_kinds": ["chain"]},
    {"id": "chain", "parent_kinds": ["cascade"], "child_kinds": ["source_operator"]},
]
#: ``CHAIN_KINDS`` and an ``nn_module`` tree (the collapse and code-line tests).
STAGE_KINDS: list[dict[str, Any]] = [
    *CHAIN_KINDS,
    {"id": "nn_module", "parent_kinds": ["nn_module"], "child_kinds": ["nn_module"]},
]

MLIA_TOOL: ToolJson = {"name": "mlia", "version": "0.12.3"}
ZERO_RUN_ID = "00000000-0000-4000-8000-000000000000"
TIMESTAMP = "2026-01-01T00:00:00Z"
MALI_GPU: ComponentJson = {"type": "gpu", "family": "mali"}


# -- the envelope --------------------------------------------------------------------


def nx_target(
    profile_name: str = "nx",
    target_type: str = "neural-accelerator",
    component: ComponentJson = MALI_GPU,
) -> TargetJson:
    """A target of one component, without configuration."""
    return {
        "profile_name": profile_name,
        "target_type": target_type,
        "components": [component.copy()],
        "configuration": {},
    }


def nx_backend(backend_id: str = NX_PRODUCER, *, version: str = "1") -> BackendJson:
    """The ``backends`` item of an NX producer."""
    return {"id": backend_id, "name": "NX", "version": version, "configuration": {}}


def model_file(name: str, model_hash: str = "0" * 64, model_format: str = "vgf") -> ModelJson:
    """The ``model`` object."""
    return {"name": name, "format": model_format, "hash": model_hash}


def envelope(
    results: Sequence[dict[str, Any]],
    *,
    model: ModelJson,
    target: TargetJson | None = None,
    backends: Sequence[BackendJson] | None = None,
    run_id: str = ZERO_RUN_ID,
    tool: ToolJson = MLIA_TOOL,
    timestamp: str = TIMESTAMP,
) -> dict[str, Any]:
    """A whole document around ``results`` (new objects every call: callers may edit it).

    ``target`` defaults to ``nx_target()``, ``backends`` to ``[nx_backend()]``."""
    return {
        "schema_version": "1.2.0",
        "run_id": run_id,
        "timestamp": timestamp,
        "tool": dict(tool),
        "target": copy.deepcopy(target) if target is not None else nx_target(),
        "model": dict(model),
        "context": {},
        "backends": copy.deepcopy(list(backends)) if backends is not None else [nx_backend()],
        "results": list(results),
    }


# -- entities and records ------------------------------------------------------------


class EntityTable:
    """Entities by id in the order first added, with parent-child links.

    A link is written on both sides (``child_ids`` of the parent, then
    ``parent_ids`` of the child), or with ``two_sided=False`` on the parent's
    side only. With ``rng``, every link draws one number: below ``one_sided`` it
    is written on one side, chosen by a second draw, else on both."""

    def __init__(
        self,
        *,
        two_sided: bool = True,
        rng: random.Random | None = None,
        one_sided: float = 0.0,
    ) -> None:
        self.entities: dict[str, dict[str, Any]] = {}
        self._two_sided = two_sided
        self._rng = rng
        self._one_sided = one_sided

    def add(
        self, entity_id: str, kind: str, name: str | None = None, **extra: Any
    ) -> dict[str, Any]:
        """The entity ``entity_id``, added (``name`` defaults to the id) unless it exists."""
        if entity_id not in self.entities:
            self.entities[entity_id] = {
                "id": entity_id,
                "kind": kind,
                "name": entity_id if name is None else name,
                **extra,
            }
        return self.entities[entity_id]

    def link(self, parent: str, child: str) -> None:
        """``parent`` -> ``child``, each id listed once."""
        sides = self._sides()
        if "child" in sides:
            children = self.entities[parent].setdefault("child_ids", [])
            if child not in children:
                children.append(child)
        if "parent" in sides:
            parents = self.entities[child].setdefault("parent_ids", [])
            if parent not in parents:
                parents.append(parent)

    def link_through(self, parent: str, children: Sequence[str], group: str | None) -> None:
        """``parent`` -> each of ``children``; through ``group`` when given (a
        ``performance_group``, added and linked below ``parent`` first)."""
        if group is None:
            for child in children:
                self.link(parent, child)
            return
        self.add(group, "performance_group")
        self.link(parent, group)
        for child in children:
            self.link(group, child)

    def _sides(self) -> tuple[str, ...]:
        if self._rng is None:
            return ("child", "parent") if self._two_sided else ("child",)
        if self._rng.random() >= self._one_sided:
            return ("child", "parent")
        return (self._rng.choice(("child", "parent")),)

    def values(self) -> list[dict[str, Any]]:
        """The entities in the order they were added."""
        return list(self.entities.values())


def sum_metric(name: str, value: int | float, unit: str = "cycles") -> dict[str, Any]:
    """A ``sum`` metric in the key order NX producers write (name, value, unit, aggregation)."""
    return {"name": name, "value": value, "unit": unit, "aggregation": "sum"}


def canonical_sum_metric(name: str, unit: str, value: int | float) -> dict[str, Any]:
    """A ``sum`` metric in the schema's canonical key order (``SUM_METRIC_KEYS``)."""
    return dict(zip(SUM_METRIC_KEYS, (name, unit, value, "sum"), strict=True))


def breakdown(
    entity_id: str, metrics: list[dict[str, Any]], record_id: str | None = None
) -> dict[str, Any]:
    """A breakdown; ``record_id`` is its optional ``id`` (NX sets it to the entity id)."""
    item: dict[str, Any] = {"entity_id": entity_id, "metrics": metrics}
    if record_id is not None:
        item["id"] = record_id
    return item


def entity(entity_id: str, kind: str, **extra: Any) -> dict[str, Any]:
    """One entity named by its id; ``extra`` holds parent_ids, child_ids, attributes, ..."""
    return {"id": entity_id, "kind": kind, "name": entity_id, **extra}


def stage_result(entities: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """A performance result over ``entities`` with ``STAGE_KINDS`` declared."""
    return {
        "kind": "performance",
        "status": "ok",
        "producer": "test",
        "entities": entities,
        "entity_kinds": STAGE_KINDS,
        **extra,
    }


def cycles_metric(value: int) -> dict[str, Any]:
    """``cycles`` in cycles, a ``sum`` (canonical order)."""
    return canonical_sum_metric("cycles", "cycles", value)


def links(output: dict[str, Any]) -> dict[str, tuple[list[str] | None, list[str] | None]]:
    """id -> (parent_ids, child_ids) as stored."""
    return {e["id"]: (e.get("parent_ids"), e.get("child_ids")) for e in output["entities"]}


# -- the NX-shaped benchmark documents ------------------------------------------------

#: The metrics of an NX chain breakdown.
METRICS = (
    "total_cycles",
    "op_cycles",
    "l1_read_bytes",
    "l1_write_bytes",
    "l2_read_bytes",
    "l2_write_bytes",
    "dram_read_bytes",
    "dram_write_bytes",
    "input_reader_cycles",
    "vector_engine_cycles",
)
TORCH = "/opt/venv/lib/python3.12/site-packages/torch/nn/modules/"


def _nx_breakdown(entity_id: str, values: list[int]) -> dict[str, Any]:
    metrics = [
        sum_metric(name, value, "bytes" if "bytes" in name else "cycles")
        for name, value in zip(METRICS, values, strict=True)
    ]
    return breakdown(entity_id, metrics, entity_id)


def _nx_envelope(name: str, result: dict[str, Any]) -> dict[str, Any]:
    return envelope(
        [result],
        model=model_file(name),
        target=nx_target(target_type="nx", component={"type": "npu", "family": "nx"}),
    )


def nx_document(
    chains: int, seed: int = 1, torch_share: float = 0.42, float_values: bool = False
) -> dict[str, Any]:
    """An NX-shaped document with ``chains`` chains (deterministic).

    Three in five chains have a code stack; ``torch_share`` of those stacks end
    in a torch ``site-packages`` frame (the default gives a quarter of the chains).
    ``float_values``: every metric value is a tenth of its integer value, a float.
    """
    rng = random.Random(seed)
    table = EntityTable()
    entities = table.entities
    breakdowns: list[dict[str, Any]] = []
    table.add("nn_module/<root>", "nn_module")
    source_index = 0
    block = ""
    segment = ""
    cascade_chains: list[list[int]] = []
    cascade = ""
    for chain in range(chains):
        if chain % 10 == 0:
            segment = f"segment/{chain // 10}"
            table.add(segment, "segment")
        if not cascade or rng.random() < 0.45:
            cascade = f"cascade/{segment}/{chain}"
            table.add(cascade, "cascade")
            table.link(segment, cascade)
            cascade_chains.append([])
            cascade_breakdown = rng.random() < 0.5
            entities[cascade]["_bd"] = cascade_breakdown
        if chain % 8 == 0:
            block = f"nn_module/block_{chain // 8}"
            table.add(block, "nn_module")
            table.link("nn_module/<root>", block)
        chain_id = f"chain/{segment}/{chain}"
        table.add(chain_id, "chain")
        table.link(cascade, chain_id)
        values = [rng.randint(10, 100_000) for _ in METRICS]
        breakdowns.append(_nx_breakdown(chain_id, values))
        cascade_chains[-1].append(chain)
        entities[cascade].setdefault("_values", []).append(values)
        width = 2 if rng.random() < 0.3 else 1
        sources = []
        for _ in range(width):
            source = f"source_operator/{segment}/spirv-{source_index}"
            source_index += 1
            table.add(source, "source_operator", placement="NX")
            sources.append(source)
        grouped = width == 2 and rng.random() < 0.5
        group = f"performance_group/{segment}/chain_{chain}/0" if grouped else None
        table.link_through(chain_id, sources, group)
        module = f"nn_module/{chain}"
        table.add(module, "nn_module")
        table.link(block, module)
        for source in sources:
            table.link(module, source)
        if rng.random() < 0.6:
            outer = f"code_stack/model.py:40-{chain // 8}"
            table.add(
                outer,
                "code_stack",
                attributes={"file": "/home/dev/proj/model.py", "line": 40 + chain // 8},
            )
            frame = f"code_stack/blocks.py:{chain}"
            table.add(
                frame,
                "code_stack",
                attributes={"file": "/home/dev/proj/blocks.py", "line": 10 + chain},
            )
            table.link(outer, frame)
            leaf = frame
            if rng.random() < torch_share:
                torch = f"code_stack/module.py:1736-{chain}"
                table.add(
                    torch, "code_stack", attributes={"file": TORCH + "module.py", "line": 1736}
                )
                table.link(frame, torch)
                leaf = torch
            for source in sources:
                table.link(leaf, source)
    for item in entities.values():
        if item["kind"] == "cascade":
            values_list = item.pop("_values", [])
            if item.pop("_bd", False) and values_list:
                total = [sum(column) for column in zip(*values_list, strict=True)]
                breakdowns.append(_nx_breakdown(item["id"], total))
    if float_values:
        for record in breakdowns:
            for metric in record["metrics"]:
                metric["value"] = metric["value"] * 0.1
    result = {
        "kind": "performance",
        "status": "ok",
        "producer": NX_PRODUCER,
        "metrics": [{"name": "inference_time", "value": 1.0, "unit": "ms"}],
        "breakdowns": breakdowns,
        "entities": table.values(),
        "entity_kinds": NX_KINDS,
    }
    return _nx_envelope(f"nx-{chains}", result)


def adversarial_document(n: int) -> dict[str, Any]:
    """Row of n chains/sources, n-1 overlapping pair modules, one module over all: the
    family on which the reference's cover search is exponential."""
    entities: list[dict[str, Any]] = []
    breakdowns: list[dict[str, Any]] = []
    source = "source_operator/segment_0/u"
    for i in range(n):
        entities.append(
            {
                "id": f"chain/segment_0/{i}",
                "kind": "chain",
                "name": f"c{i}",
                "child_ids": [f"{source}{i}"],
            }
        )
        entities.append({"id": f"{source}{i}", "kind": "source_operator", "name": f"u{i}"})
        breakdowns.append(breakdown(f"chain/segment_0/{i}", [sum_metric("op_cycles", i + 1)]))
    for i in range(n - 1):
        entities.append(
            {
                "id": f"nn_module/p{i}",
                "kind": "nn_module",
                "name": f"p{i}",
                "child_ids": [f"{source}{i}", f"{source}{i + 1}"],
            }
        )
    entities.append(
        {
            "id": "nn_module/top",
            "kind": "nn_module",
            "name": "top",
            "child_ids": [f"{source}{i}" for i in range(n)],
        }
    )
    result = {
        "kind": "performance",
        "status": "ok",
        "producer": NX_PRODUCER,
        "breakdowns": breakdowns,
        "entities": entities,
        "entity_kinds": NX_KINDS,
    }
    return _nx_envelope(f"adversarial-{n}", result)


# -- small results and documents for tests ---------------------------------------------


def small_result(seed: int) -> dict[str, Any]:
    """One small random NX-shaped result with entities, kinds and authoritative breakdowns.

    Segments over cascades over chains; chains over source operators directly or
    through performance groups, sometimes sharing a source with the previous
    chain; an ``nn_module`` tree and leaf ``code_stack`` frames over the sources.
    Chain ``op_cycles`` values are distinct powers of four, so a sum that counted
    an origin twice would show a base-4 digit of 2 or more."""
    rng = random.Random(seed)
    table = EntityTable(two_sided=False)
    breakdowns: list[dict[str, Any]] = []

    def cycles(value: int) -> dict[str, Any]:
        return canonical_sum_metric("op_cycles", "cycles", value)

    chains = rng.randint(1, 6)
    table.add("segment/0", "segment")
    table.add("nn_module/root", "nn_module")
    cascade = ""
    sources: list[str] = []
    cascade_values: dict[str, int] = {}
    for chain in range(chains):
        if not cascade or rng.random() < 0.4:
            cascade = f"cascade/{chain}"
            table.add(cascade, "cascade")
            table.link("segment/0", cascade)
            cascade_values[cascade] = 0
        chain_id = f"chain/{chain}"
        table.add(chain_id, "chain")
        table.link(cascade, chain_id)
        value = 4**chain
        cascade_values[cascade] += value
        breakdowns.append(breakdown(chain_id, [cycles(value)], chain_id))
        mine = [f"source_operator/{len(sources) + k}" for k in range(rng.choice((1, 1, 2)))]
        for source in mine:
            table.add(source, "source_operator")
        if sources and rng.random() < 0.25:
            mine.append(sources[-1])
        sources.extend(s for s in mine if s not in sources)
        grouped = len(mine) > 1 and rng.random() < 0.4
        table.link_through(chain_id, mine, f"performance_group/{chain}" if grouped else None)
    modules = [f"nn_module/m{k}" for k in range(rng.randint(1, 3))]
    for module in modules:
        table.add(module, "nn_module")
        table.link("nn_module/root", module)
    for source in sources:
        table.link(rng.choice(modules), source)
        if rng.random() < 0.5:
            frame = f"code_stack/f{rng.randint(0, 2)}"
            table.add(frame, "code_stack")
            table.link(frame, source)
    table.add("source_operator/structural", "source_operator")
    table.link("segment/0", "source_operator/structural")
    for cascade_id, total in cascade_values.items():
        if rng.random() < 0.4:
            breakdowns.append(breakdown(cascade_id, [cycles(total)]))
    return {
        "kind": "performance",
        "status": "ok",
        "producer": NX_PRODUCER,
        "breakdowns": breakdowns,
        "entities": table.values(),
        "entity_kinds": NX_KINDS,
    }


def minimal_document() -> dict[str, Any]:
    """A valid schema-1.2.0 document with one result: a chain over one source operator."""
    result = {
        "kind": "performance",
        "status": "ok",
        "producer": "test-producer",
        "metrics": [{"name": "total_cycles", "value": 10, "unit": "cycles"}],
        "breakdowns": [breakdown("chain/0", [sum_metric("op_cycles", 4)])],
        "entities": [
            {
                "id": "chain/0",
                "kind": "chain",
                "name": "Chain 0",
                "child_ids": ["source_operator/a"],
            },
            {"id": "source_operator/a", "kind": "source_operator", "name": "a"},
        ],
        "entity_kinds": copy.deepcopy(CHAIN_KINDS),
    }
    return envelope(
        [result],
        model=model_file("m.vgf", "ab" * 32),
        backends=[{"id": "b", "name": "B", "version": "1", "configuration": {}}],
        run_id="938db8c9-f82c-4cb5-8d3f-3ef4fd250036",
        tool={"name": "perfline", "version": "0.1.0"},
    )


def with_values(document: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    """``document`` with the first metric value of each named entity's breakdown replaced."""
    changed = copy.deepcopy(document)
    for breakdown in changed["results"][0]["breakdowns"]:
        if breakdown["entity_id"] in values:
            breakdown["metrics"][0]["value"] = values[breakdown["entity_id"]]
    return changed
