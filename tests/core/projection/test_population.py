"""The exposure population finds the entries that touch a target's units."""

from __future__ import annotations

import random

from perfline.core.projection.index import build_graph_index
from perfline.core.projection.origin_shapes import origin_figures
from perfline.core.projection.records import Population, Record


def test_added_since_lists_new_touching_entries_in_serial_order() -> None:
    """Both ways of finding them (walking the new entries, or the units' lists)
    give every entry with serial >= size that meets the units, in serial order."""
    rng = random.Random(7)
    count = 40
    index = build_graph_index(
        [{"id": f"u/{n:02d}", "kind": "source_operator"} for n in range(count)]
    )
    metric = {"name": "op_cycles", "unit": "cycles", "value": 1, "aggregation": "sum"}
    figures = origin_figures([{"entity_id": "u/00", "metrics": [metric]}])
    assert figures is not None
    population = Population(index)
    for _ in range(120):
        origins = frozenset(rng.sample(range(count), rng.randint(1, 6)))
        population.expose(Record(figures, origins, rng.random() < 0.3), rng.randrange(count))
    everything = population.added_since(frozenset(range(count)), 0)
    assert [entry.serial for entry in everything] == list(range(len(population)))
    for _ in range(300):
        units = frozenset(rng.sample(range(count), rng.randint(1, count)))
        size = rng.randrange(len(population) + 1)
        expected = [e for e in everything if e.serial >= size and not e.units.isdisjoint(units)]
        assert population.added_since(units, size) == expected
