"""Small random NX-shaped results for property tests (deterministic by seed).

Segments over cascades over chains; chains over source operators directly or
through performance groups, sometimes sharing a source with the previous
chain; an ``nn_module`` tree and leaf ``code_stack`` frames over the sources.
Chain ``op_cycles`` values are distinct powers of four, so a sum that counted
an origin twice would show a base-4 digit of 2 or more.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from perfline.core.backends.nx_common.kinds import performance_entity_kinds
from perfline.core.projection.contributors import Contributor
from perfline.core.projection.figures import OriginSums, origin_figures

NX_KINDS: list[dict[str, Any]] = performance_entity_kinds()


def _metric(value: int, aggregation: str = "sum") -> dict[str, Any]:
    return {"name": "op_cycles", "unit": "cycles", "value": value, "aggregation": aggregation}


def small_result(seed: int) -> dict[str, Any]:
    """One result with entities, kinds and authoritative breakdowns."""
    rng = random.Random(seed)
    entities: dict[str, dict[str, Any]] = {}
    breakdowns: list[dict[str, Any]] = []

    def add(entity_id: str, kind: str) -> None:
        entities.setdefault(entity_id, {"id": entity_id, "kind": kind, "name": entity_id})

    def link(parent: str, child: str) -> None:
        kids = entities[parent].setdefault("child_ids", [])
        if child not in kids:
            kids.append(child)

    chains = rng.randint(1, 6)
    add("segment/0", "segment")
    add("nn_module/root", "nn_module")
    cascade = ""
    sources: list[str] = []
    cascade_values: dict[str, int] = {}
    for chain in range(chains):
        if not cascade or rng.random() < 0.4:
            cascade = f"cascade/{chain}"
            add(cascade, "cascade")
            link("segment/0", cascade)
            cascade_values[cascade] = 0
        chain_id = f"chain/{chain}"
        add(chain_id, "chain")
        link(cascade, chain_id)
        value = 4**chain
        cascade_values[cascade] += value
        breakdowns.append({"entity_id": chain_id, "metrics": [_metric(value)], "id": chain_id})
        mine = [f"source_operator/{len(sources) + k}" for k in range(rng.choice((1, 1, 2)))]
        for source in mine:
            add(source, "source_operator")
        if sources and rng.random() < 0.25:
            mine.append(sources[-1])
        sources.extend(s for s in mine if s not in sources)
        if len(mine) > 1 and rng.random() < 0.4:
            group = f"performance_group/{chain}"
            add(group, "performance_group")
            link(chain_id, group)
            for source in mine:
                link(group, source)
        else:
            for source in mine:
                link(chain_id, source)
    modules = [f"nn_module/m{k}" for k in range(rng.randint(1, 3))]
    for module in modules:
        add(module, "nn_module")
        link("nn_module/root", module)
    for source in sources:
        link(rng.choice(modules), source)
        if rng.random() < 0.5:
            frame = f"code_stack/f{rng.randint(0, 2)}"
            add(frame, "code_stack")
            link(frame, source)
    add("source_operator/structural", "source_operator")
    link("segment/0", "source_operator/structural")
    for cascade_id, total in cascade_values.items():
        if rng.random() < 0.4:
            breakdowns.append({"entity_id": cascade_id, "metrics": [_metric(total)]})
    return {
        "kind": "performance",
        "status": "ok",
        "producer": "nx-performance-estimator",
        "breakdowns": breakdowns,
        "entities": list(entities.values()),
        "entity_kinds": NX_KINDS,
    }


def origin_sums(origins: range) -> OriginSums:
    """Usable origins whose only figure is ``op_cycles`` = origin + 1."""
    figures = {}
    for origin in origins:
        made = origin_figures([{"entity_id": str(origin), "metrics": [_metric(origin + 1)]}])
        assert made is not None
        figures[origin] = made
    return OriginSums(figures)


def faithful_contributor(
    sums: OriginSums,
    origins: Iterable[int],
    covered: Iterable[int],
    extras: Iterable[int] = (),
    sealed: bool = False,
) -> Contributor:
    """A contributor whose figures are the exact total of its origins."""
    figures = sums.total(frozenset(origins))
    assert figures is not None
    return Contributor(
        figures, frozenset(origins), sealed, True, frozenset(covered), frozenset(extras)
    )
