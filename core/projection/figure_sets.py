"""Figure sets, the values of the projection (§6.1): canonical metrics grouped by qualifiers.

A *figure set* is what a record would print on a target: one group per distinct
breakdown-qualifier object (groups sorted by canonical qualifier JSON), each
holding metrics de-duplicated by identity (name, unit, canonical qualifiers) and
sorted by it. Two figure sets are equal iff their canonical key (sorted-key,
compact JSON, written by ``figure_keys``) is equal, so ``5`` and ``5.0`` differ.

Every figure set is made by one builder (``build_group`` for each group,
``build_figures`` for the set), whatever asks for it: an origin's breakdowns
(``origin_shapes``) or a combination (``figure_arithmetic``). A group knows its
*addends*: the metrics that may take part in a sum on their own. Cost: linear in
the number of metrics involved; keys are built once per figure set.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from perfline.core.projection.exact_sums import Partials
from perfline.core.projection.figure_keys import (
    canonical_json,
    figures_key,
    metric_text,
    value_prefix,
)

MAX_SAFE_INTEGER: Final = 2**53 - 1


Identity = tuple[str, ...]
"""(name, unit, canonical qualifiers): the correspondence key of a metric. Typed
as a tuple of any length on purpose: mypyc holds a fixed-length tuple in a C
struct and builds a new tuple object each time one is stored in a container or
used as a dict key, while identities are only stored, looked up and compared."""


def metric_identity(metric: Mapping[str, Any]) -> Identity:
    """(name, unit, canonical qualifiers): the correspondence key of a metric."""
    qualifiers = metric.get("qualifiers")
    text = canonical_json(qualifiers) if qualifiers else "{}"
    return (str(metric.get("name")), str(metric.get("unit")), text)


class Group:  # a value: never mutated (see records.py)
    """One breakdown-qualifier group of a figure set.

    ``addends`` holds the metrics that may take part in a sum on their own
    (numeric, available, ``sum`` aggregation, valid ``samples``), by identity.
    """

    __slots__ = (
        "addend_metrics",
        "addend_order",
        "addend_partials",
        "addend_prefixes",
        "addends",
        "metrics",
        "plain",
        "qualifier_key",
        "qualifiers",
    )

    def __init__(
        self,
        qualifier_key: str,
        qualifiers: Mapping[str, Any],
        metrics: tuple[Mapping[str, Any], ...],
        addends: dict[Identity, Mapping[str, Any]],
        addend_prefixes: tuple[str, ...],
        addend_partials: tuple[Partials | None, ...] | None = None,
    ) -> None:
        self.qualifier_key = qualifier_key
        self.qualifiers = qualifiers
        self.metrics = metrics
        """The metrics, sorted by identity."""
        self.addends: Mapping[Identity, Mapping[str, Any]] = addends
        self.addend_order = tuple(addends)
        """The addends' identities in sorted order (``metrics`` order)."""
        self.addend_metrics = tuple(addends.values())
        """The addends in that order."""
        self.addend_prefixes = addend_prefixes
        """Their ``figure_keys.value_prefix`` in that order ("" where there is none)."""
        self.plain = all(addend_prefixes)
        """Every addend is plain (has a value prefix: a number, no samples or qualifiers)."""
        self.addend_partials = addend_partials
        """Exact sums only (``exact_sums``): each addend's exact value where its printed
        value rounds it (``None`` where the value is exact; ``None`` for the whole group
        when every value is)."""


class FigureSet:  # a value: never mutated (see records.py)
    """A canonical figure set with its comparison key."""

    __slots__ = ("by_qualifier", "exact", "groups", "key")

    def __init__(
        self, groups: tuple[Group, ...], key: str, by_qualifier: Mapping[str, Group], exact: bool
    ) -> None:
        self.groups = groups
        self.key = key
        self.by_qualifier = by_qualifier
        self.exact = exact
        """True when sums of these figures do not depend on the order of addition: with
        exact sums always; in the reference's arithmetic when every summable value is
        exact in binary floating point under any order (integers are; floats are when
        integral and small, < 2**40, so a sum of up to 2**13 of them is exact)."""

    def rounded(self, always_new: bool = False) -> FigureSet:
        """These figures taken at their printed values (exact values dropped): what a
        contributor merged from several records with these figures stands for. The
        same object when nothing is dropped, unless ``always_new``."""
        if not always_new and all(group.addend_partials is None for group in self.groups):
            return self
        groups = tuple(
            [
                Group(g.qualifier_key, g.qualifiers, g.metrics, dict(g.addends), g.addend_prefixes)
                for g in self.groups
            ]
        )
        return FigureSet(groups, self.key, {g.qualifier_key: g for g in groups}, self.exact)


GroupTexts = tuple[Group, tuple[str, ...]]
"""A group with each of its metrics' canonical JSON text (``figure_keys.metric_text``),
in order: what ``build_figures`` writes the figure key from. A figure set keeps only the
key: kept, the texts would add about a tenth to the projection's memory."""


def build_group(
    qualifier_key: str,
    qualifiers: Mapping[str, Any],
    identities: list[Identity],
    metrics: list[Mapping[str, Any]],
    prefixes: list[str | None] | None = None,
    sums: list[bool] | None = None,
    prefix_memo: dict[tuple[str, str, str], str] | None = None,
    partials: list[Partials | None] | None = None,
) -> GroupTexts:
    """A group with its addends and texts worked out (``metrics`` sorted by identity,
    ``identities`` theirs).

    What the caller already knows is taken as it is: ``prefixes``, the metrics'
    ``value_prefix`` (a metric with a prefix is written from it and is an addend iff
    its aggregation is ``sum``); ``sums``, whether each metric is an addend (with
    ``prefixes`` that are all strings). Otherwise each prefix is written, through
    ``prefix_memo`` (prefixes already written, by (aggregation, name, unit)).
    ``partials``: each metric's exact value where its value rounds it (exact sums).
    """
    addends: dict[Identity, Mapping[str, Any]] = {}
    addend_prefixes: list[str] = []
    exact_values: list[Partials | None] = []
    texts: list[str] = []
    for position in range(len(metrics)):
        metric = metrics[position]
        prefix = value_prefix(metric, prefix_memo) if prefixes is None else prefixes[position]
        if prefix is None:
            texts.append(metric_text(metric))
            addend = _addend(metric)
        else:
            texts.append(prefix + repr(metric["value"]) + "}")
            # a plain metric (a number, no samples or availability) adds iff it is a sum
            addend = metric["aggregation"] == "sum" if sums is None else sums[position]
        if addend:
            addends[identities[position]] = metric
            addend_prefixes.append("" if prefix is None else prefix)
            if partials is not None:
                exact_values.append(partials[position])
    kept_partials: tuple[Partials | None, ...] | None = None
    if any(value is not None for value in exact_values):
        kept_partials = tuple(exact_values)
    group = Group(
        qualifier_key, qualifiers, tuple(metrics), addends, tuple(addend_prefixes), kept_partials
    )
    return group, tuple(texts)


def _qualifier_key_of(group: GroupTexts) -> str:
    return group[0].qualifier_key


def build_figures(groups: Sequence[GroupTexts], exact_sums: bool = False) -> FigureSet:
    """The figure set of ``groups`` (distinct qualifier keys): sorted, with its key
    (``exact_sums``: the run adds exactly, so every figure set is order-free)."""
    ordered = sorted(groups, key=_qualifier_key_of) if len(groups) > 1 else groups
    kept = tuple([group for group, _ in ordered])
    exact = exact_sums or all(_exact(metric) for group in kept for metric in group.addends.values())
    return FigureSet(
        kept,
        figures_key((group.qualifier_key, texts) for group, texts in ordered),
        {group.qualifier_key: group for group in kept},
        exact,
    )


def _addend(metric: Mapping[str, Any]) -> bool:
    value = metric.get("value")
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    if "availability" in metric or "reason" in metric or metric.get("aggregation") != "sum":
        return False
    if "samples" in metric:
        samples = metric["samples"]
        if not isinstance(samples, int) or isinstance(samples, bool):
            return False
        if samples < 0 or samples > MAX_SAFE_INTEGER:
            return False
    return True


def _exact(metric: Mapping[str, Any]) -> bool:
    value = metric["value"]
    return not isinstance(value, float) or (value.is_integer() and abs(value) < 2**40)
