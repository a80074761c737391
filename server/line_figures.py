"""A result's figures for the line index: the dominant metric, each code line's metrics,
value and statistic, and the model total a line's share is of.

Made again for every result (they are its values), by the rules of
``core.dominant_metric``. What those rules decide from the result's *layout* alone is kept
per job and result (in the line index's ``index_memo.ResultMemo``) and used again only
once it is checked to hold:

* the **rows**: which breakdown (by position) is each code line's, and which are the
  non-view entities' (what a model total adds), for results with at most one breakdown
  per code line; they hold while the breakdowns name the same entities in the same order
  and the entity graph is the same object;
* the **choice**: the dominant metric, the place of its value among each code line's
  metrics, and the line's statistic; it holds while the configured metric is the same and
  every code line's metrics are *plain* (name, unit, aggregation and a finite number:
  nothing else that ``choose_metric``, ``value_of`` or ``statistic_of`` reads) with the
  same names, units and aggregations, in the same order, as when it was made;
* the **carriers** of the model total (``_model_total``).

The rows and the choice need no check when the pipeline returned, with this result's
output, a breakdown layout (``projection.BreakdownLayout``: each breakdown's entity id and
its metrics' names, units and aggregations, in order) equal to the one they were last
checked against: equal layouts lay out the breakdowns alike. The comparison is explicit
(``==`` on the layouts' data); the values are still checked to be finite numbers.

Anything else (another layout, qualifiers or further fields on a code line's metric, a
value that is not a finite number, several breakdowns on one code line, a malformed
record) is decided by the rules on the spot. Both routes give the same figures: the memo
changes time, never answers (``tests/server/test_line_index_memo.py``).

Cost: with the rows and the choice kept, a few passes at C speed (``map`` with
``operator.itemgetter``) over the breakdowns' entity ids and the code lines' metrics (most
of it checking the code-line metrics' names, units and aggregations, which an equal
breakdown layout spares), and one addition per top-most carrier; otherwise one Python
pass over the breakdowns, and ``choose_metric`` and ``value_of`` over the code lines'
metrics (about twice that).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import chain, repeat
from operator import eq, itemgetter
from typing import TYPE_CHECKING, Any

from perfline.core import dominant_metric
from perfline.core.dominant_metric import MetricKey

if TYPE_CHECKING:
    from perfline.core.projection import BreakdownLayout
    from perfline.server.index_memo import ResultMemo

_ENTITY_ID = itemgetter("entity_id")
_METRICS = itemgetter("metrics")
_IDENTITY = itemgetter("name", "unit", "aggregation")
_VALUE = itemgetter("value")
#: The fields of a plain metric: name, unit, aggregation, value.
_PLAIN_FIELDS = 4
_NUMBER_TYPES = frozenset({int, float})

Metrics = Sequence[Mapping[str, Any]]
#: (entity id, metrics) of a breakdown.
Carrier = tuple[str, Metrics]


class LineGraph:
    """What the figures need of a result's entity graph (the line index's skeleton)."""

    __slots__ = ("children", "line_count", "non_view", "slots")

    def __init__(
        self,
        slots: dict[str, int],
        non_view: frozenset[str],
        children: Mapping[str, Sequence[str]],
    ) -> None:
        #: Code line id -> its slot (place among the result's code lines).
        self.slots = slots
        self.line_count = len(slots)
        #: Ids of the entities that are not views.
        self.non_view = non_view
        self.children = children


class CodeLineFigures:
    """The figures of one result: per code line slot its metrics, value and statistic."""

    __slots__ = ("key", "metrics", "statistics", "total", "values")

    def __init__(
        self,
        key: MetricKey | None,
        total: float | None,
        metrics: list[tuple[Mapping[str, Any], ...]],
        values: list[float | None],
        statistics: list[str | None],
    ) -> None:
        self.key = key
        self.total = total
        self.metrics = metrics
        self.values = values
        self.statistics = statistics


class Rows:
    """Where each code line's breakdown and the non-view entities' breakdowns are."""

    __slots__ = ("entity_ids", "graph", "line_rows", "near", "other_rows")

    def __init__(
        self, graph: LineGraph, entity_ids: list[Any], line_rows: list[int], other_rows: list[int]
    ) -> None:
        self.graph = graph
        self.entity_ids = entity_ids
        #: Per slot, the position of the code line's breakdown (-1: it has none).
        self.line_rows = line_rows
        self.other_rows = other_rows
        #: (below set, the positions in ``other_rows`` of entities outside it).
        self.near: tuple[set[str], list[int]] | None = None


class Choice:
    """The dominant metric decided for one layout of plain code-line metrics."""

    __slots__ = ("configured", "flat_at", "key", "layout", "statistics")

    def __init__(
        self,
        configured: str | None,
        layout: tuple[list[int], list[tuple[Any, ...]]],
        key: MetricKey | None,
        flat_at: list[int],
        statistics: list[str | None],
    ) -> None:
        self.configured = configured
        #: (each code line's number of metrics, every metric's name, unit, aggregation).
        self.layout = layout
        self.key = key
        #: Per slot, the position of its value among all code lines' metrics (-1: none).
        self.flat_at = flat_at
        self.statistics = statistics


class Totals:
    """How the last model total was found: its metric, the top-most carriers (no other
    carrier above them) and every entity below those."""

    __slots__ = ("below", "key", "top")

    def __init__(self, key: MetricKey, top: frozenset[str], below: set[str]) -> None:
        self.key = key
        self.top = top
        self.below = below


def result_figures(
    result: Mapping[str, Any],
    graph: LineGraph,
    configured: str | None,
    memo: ResultMemo,
    layout: BreakdownLayout | None = None,
) -> CodeLineFigures:
    """The figures of ``result`` (whose entity graph is ``graph``); ``layout``: how the
    pipeline laid out its breakdowns, returned with its output (``None``: not known);
    when it equals the layout the kept rows and choice were checked against, they hold
    without the checks."""
    breakdowns = result.get("breakdowns") or ()
    trusted = _trusted(memo, layout, graph, configured, len(breakdowns))
    memo.checked = None
    rows = memo.rows if trusted else _rows(breakdowns, graph, memo)
    lists = _line_lists(breakdowns, rows) if rows is not None else None
    if lists is None or rows is None:
        line_lists, others = _gathered(breakdowns, graph)
        key, values, statistics = _by_rules(line_lists, configured)
        metrics = list(map(tuple, line_lists))
        total = _model_total(result, key, others, None, graph, memo)
        return CodeLineFigures(key, total, metrics, values, statistics)
    key, values, statistics = _chosen(lists, configured, memo, trusted)
    total = _model_total(result, key, breakdowns, rows, graph, memo)
    if memo.choice is not None and memo.rows is rows:
        memo.checked = layout
        memo.trusted += trusted
    return CodeLineFigures(key, total, list(map(tuple, lists)), values, statistics)


def _trusted(
    memo: ResultMemo,
    layout: BreakdownLayout | None,
    graph: LineGraph,
    configured: str | None,
    size: int,
) -> bool:
    """Whether the kept rows and choice hold by the breakdown layout alone: it equals the
    one they were checked against (compared as data)."""
    rows, choice, checked = memo.rows, memo.choice, memo.checked
    return (
        layout is not None
        and checked is not None
        and rows is not None
        and rows.graph is graph
        and len(rows.entity_ids) == size
        and choice is not None
        and choice.configured == configured
        and layout == checked
    )


# -- the full route: the rules over every record ------------------------------------------


def _gathered(breakdowns: Any, graph: LineGraph) -> tuple[list[list[Any]], list[Carrier]]:
    """One Python pass over the breakdowns: each code line's metrics (by slot, in document
    order, Mappings only) and (entity id, metrics) of every non-view entity's breakdown."""
    line_lists: list[list[Any]] = [[] for _ in range(graph.line_count)]
    others: list[Carrier] = []
    slots, non_view = graph.slots, graph.non_view
    for breakdown in breakdowns:
        if type(breakdown) is not dict and not isinstance(breakdown, Mapping):
            continue
        entity_id = breakdown.get("entity_id")
        if type(entity_id) is not str:
            continue
        slot = slots.get(entity_id)
        if slot is not None:
            metrics = breakdown.get("metrics") or ()
            if all(map(isinstance, metrics, repeat(dict))):
                line_lists[slot].extend(metrics)
            else:
                line_lists[slot].extend(m for m in metrics if isinstance(m, Mapping))
        elif entity_id in non_view:
            others.append((entity_id, breakdown.get("metrics") or ()))
    return line_lists, others


def _by_rules(
    line_lists: Sequence[Metrics], configured: str | None
) -> tuple[MetricKey | None, list[float | None], list[str | None]]:
    """The dominant metric, and each line's value and statistic, by the rules."""
    key = dominant_metric.choose_metric(line_lists, configured)
    if key is None:
        return None, [None] * len(line_lists), [None] * len(line_lists)
    found = [dominant_metric.value_of(metrics, key) for metrics in line_lists]
    return key, [value for value, _ in found], [statistic for _, statistic in found]


# -- the kept route: rows and choice, checked ---------------------------------------------


def _rows(breakdowns: Any, graph: LineGraph, memo: ResultMemo) -> Rows | None:
    """The rows of ``breakdowns`` (kept ones when they still hold), or None when a record
    is not a breakdown with an entity id or a code line has several breakdowns (an id
    that is not text is skipped, as the full route skips it)."""
    kept = memo.rows
    try:
        if (
            kept is not None
            and kept.graph is graph
            and len(kept.entity_ids) == len(breakdowns)
            and all(map(eq, map(_ENTITY_ID, breakdowns), kept.entity_ids))
        ):
            return kept
        entity_ids = list(map(_ENTITY_ID, breakdowns))
    except (KeyError, TypeError):
        return None
    memo.rows = None
    line_rows = [-1] * graph.line_count
    other_rows: list[int] = []
    slots, non_view = graph.slots, graph.non_view
    for position, entity_id in enumerate(entity_ids):
        if type(entity_id) is not str:
            continue  # the full route skips it too
        slot = slots.get(entity_id)
        if slot is not None:
            if line_rows[slot] != -1:
                return None
            line_rows[slot] = position
        elif entity_id in non_view:
            other_rows.append(position)
    memo.rows = Rows(graph, entity_ids, line_rows, other_rows)
    return memo.rows


def _line_lists(breakdowns: Any, rows: Rows) -> list[Metrics] | None:
    """Each code line's metrics by slot (its breakdown's list), or None when one holds
    something else than dicts (the full route filters those) or is missing."""
    try:
        if -1 in rows.line_rows:
            lists = [_METRICS(breakdowns[p]) if p != -1 else [] for p in rows.line_rows]
        else:
            lists = list(map(_METRICS, map(breakdowns.__getitem__, rows.line_rows)))
        if not all(map(isinstance, chain.from_iterable(lists), repeat(dict))):
            return None
    except (KeyError, TypeError):
        return None
    return lists


def _chosen(
    lists: list[Metrics], configured: str | None, memo: ResultMemo, trusted: bool = False
) -> tuple[MetricKey | None, list[float | None], list[str | None]]:
    """The dominant metric and each line's value and statistic: the kept choice when its
    layout is this one (``trusted``: known to be), else by the rules (kept for next time
    when the metrics are plain)."""
    flat: list[Mapping[str, Any]] = list(chain.from_iterable(lists))
    numbers = _plain_numbers(flat)
    if numbers is None:
        memo.choice = None
        return _by_rules(lists, configured)
    kept = memo.choice
    if kept is None or not (trusted or _same_layout(kept, configured, lists, flat)):
        try:
            identities = list(map(_IDENTITY, flat))
        except KeyError:  # a metric without an aggregation
            identities = []
        # kept only when every identity is text: then an equal layout is one of text too
        if len(identities) != len(flat) or (
            flat and set(map(type, chain.from_iterable(identities))) != {str}
        ):
            memo.choice = None
            return _by_rules(lists, configured)
        kept = memo.choice = _choice(lists, configured, (list(map(len, lists)), identities))
    flat_at = kept.flat_at
    if -1 in flat_at:
        values = [float(numbers[at]) if at != -1 else None for at in flat_at]
    else:
        values = list(map(float, map(numbers.__getitem__, flat_at)))
    return kept.key, values, list(kept.statistics)


def _same_layout(
    kept: Choice, configured: str | None, lists: list[Metrics], flat: list[Mapping[str, Any]]
) -> bool:
    """Whether ``flat`` (the metrics of ``lists``, line after line) has the kept choice's
    layout (compared metric by metric, nothing built)."""
    if kept.configured != configured or kept.layout[0] != list(map(len, lists)):
        return False
    try:
        return all(map(eq, map(_IDENTITY, flat), kept.layout[1]))
    except KeyError:
        return False


def _plain_numbers(flat: list[Mapping[str, Any]]) -> list[Any] | None:
    """The value of every metric when each has four fields (name, unit, aggregation and
    value are what the rules read; a fourth other than a value means no value) and a
    finite number (``math.isfinite`` raises on an integer too large for a float, as
    ``dominant_metric.numeric`` does); else None."""
    if flat and set(map(len, flat)) != {_PLAIN_FIELDS}:
        return None
    try:
        numbers = list(map(_VALUE, flat))
    except KeyError:
        return None
    if not set(map(type, numbers)) <= _NUMBER_TYPES or not all(map(math.isfinite, numbers)):
        return None
    return numbers


def _choice(
    lists: list[Metrics], configured: str | None, layout: tuple[list[int], list[tuple[Any, ...]]]
) -> Choice:
    """The choice for plain ``lists``, by the rules."""
    key = dominant_metric.choose_metric(lists, configured)
    flat_at: list[int] = []
    statistics: list[str | None] = []
    start = 0
    for metrics in lists:
        at = dominant_metric.position_of(metrics, key) if key is not None else -1
        flat_at.append(start + at if at != -1 else -1)
        statistics.append(dominant_metric.statistic_of(metrics[at]) if at != -1 else None)
        start += len(metrics)
    return Choice(configured, layout, key, flat_at, statistics)


# -- the model total ------------------------------------------------------------------------


def _model_total(
    result: Mapping[str, Any],
    key: MetricKey | None,
    source: Any,
    rows: Rows | None,
    graph: LineGraph,
    memo: ResultMemo,
) -> float | None:
    """``dominant_metric.model_total`` over the non-view breakdowns: ``source`` is their
    (entity id, metrics) list, or with ``rows`` the breakdowns these rows are of.

    When last run's top-most carriers ``T`` of the same metric still carry it and no entity
    outside ``T`` and below(``T``) carries it, the top-most carriers are ``T`` again (every
    carrier is then in ``T`` or below it), so only the breakdowns of entities outside
    below(``T``) are read. Else every carrier is read and ``T`` found again. Both add the
    same figures in the same (document) order."""
    if key is None:
        return None
    own = dominant_metric.result_total(result, key)
    if own is not None:
        return own
    known = memo.totals
    if known is not None and known.key == key:
        near = dominant_metric.carried_figures(_outside(source, rows, known.below), key)
        if near.keys() == known.top:
            return dominant_metric.positive_sum(near.values())
    others = source if rows is None else _carriers(source, rows, rows.other_rows)
    carrying = dominant_metric.carried_figures(others, key)
    children = graph.children
    covered = dominant_metric.entities_below(carrying, children)
    top = [entity_id for entity_id in carrying if entity_id not in covered]
    memo.totals = Totals(key, frozenset(top), dominant_metric.entities_below(top, children))
    return dominant_metric.positive_sum(carrying[entity_id] for entity_id in top)


def _outside(source: Any, rows: Rows | None, below: set[str]) -> list[Carrier]:
    """The carriers of ``source`` whose entity is not in ``below``."""
    if rows is None:
        return [carrier for carrier in source if carrier[0] not in below]
    if rows.near is None or rows.near[0] is not below:
        ids = rows.entity_ids
        rows.near = (below, [p for p in rows.other_rows if ids[p] not in below])
    return _carriers(source, rows, rows.near[1])


def _carriers(breakdowns: Any, rows: Rows, positions: list[int]) -> list[Carrier]:
    ids = rows.entity_ids
    return [(ids[p], breakdowns[p].get("metrics") or ()) for p in positions]
