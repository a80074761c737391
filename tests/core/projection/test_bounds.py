"""Projection stays bounded and exact on shapes that used to hang or overflow.

* a row of many chains under overlapping pair modules and one module over all
  (the reference's exponential family, here with 1,100 chains: the partition
  search once recursed once per origin and hit Python's recursion limit);
* partition searches deeper than the recursion limit (no single-origin
  contributors, so no shortcut applies);
* a producer with exponentially many covers exposes at most ``RECIPE_BUDGET``.
"""

from __future__ import annotations

from perfline.core.pipeline import PipelineSettings, postprocess
from perfline.core.projection.contributors import Contributor
from perfline.core.projection.derivations import RECIPE_BUDGET, all_derivations
from perfline.core.projection.scopes import Goal
from perfline.core.projection.searches import partitions

# the benchmark's adversarial family (the reference's exponential case), here far longer
from tests.support.documents import adversarial_document
from tests.support.projection_builders import faithful_contributor, origin_sums


def test_module_over_a_long_row_of_overlapping_views_gets_the_whole_sum() -> None:
    n = 1100
    output = postprocess(adversarial_document(n), PipelineSettings())
    top = [
        b["metrics"][0]["value"]
        for b in output["results"][0]["breakdowns"]
        if b["entity_id"] == "nn_module/top"
    ]
    assert top == [n * (n + 1) // 2]


def test_partition_search_deeper_than_the_recursion_limit() -> None:
    pairs = 1500  # 3,000 origins, only two-origin contributors: no shortcut applies
    sums = origin_sums(range(2 * pairs))
    pool = [
        faithful_contributor(sums, {2 * k, 2 * k + 1}, {2 * k, 2 * k + 1}, set(), sealed=k % 2 == 0)
        for k in range(pairs)
    ]
    available = frozenset(range(2 * pairs))
    # a partition exists (every pair), with an unsealed member; not all sealed
    assert partitions(pool, available) == [False]
    sealed_pool = [
        faithful_contributor(sums, set(c.origins), set(c.covered), set(), sealed=True) for c in pool
    ]
    assert partitions(sealed_pool, available) == [True]


def test_a_producer_exposes_at_most_the_recipe_budget() -> None:
    # ten independent parts, each covered either by its own origin alone or by
    # a wider record carrying an extra unit: 2**10 covers, 1,023 with extras
    parts = 10
    sums = origin_sums(range(2 * parts))
    pool: list[Contributor] = []
    for k in range(parts):
        own, wider = 2 * k, 2 * k + 1
        unit, extra = 1000 + k, 2000 + k
        pool.append(faithful_contributor(sums, {own}, {unit}, set(), sealed=False))
        pool.append(faithful_contributor(sums, {own, wider}, {unit}, {extra}, sealed=False))
    required = frozenset(1000 + k for k in range(parts))
    records = all_derivations(pool, Goal(required, frozenset(), sums))
    assert len(records) == RECIPE_BUDGET
    # copies and the cover without extras come first
    assert records[0].origins == frozenset(range(0, 2 * parts, 2))
    assert len({(r.figures.key, r.origins, r.sealed) for r in records}) == RECIPE_BUDGET
