"""Value-only refresh of a plain result, as rows of numbers (the fast path of ``value_refresh``).

A *plain* result is one the NX backends write: every breakdown unqualified, on its own
entity, with the same metrics in the same order, each a number with ``sum``
aggregation (``origin_shapes.plain_sum_view``), every column of one number type.
Every figure set of its projection then has one group whose metrics are exactly those
columns, and is a row of numbers: an origin's row is read from its breakdown, a
combination's row is the sum of its parts' rows, column by column (integers exactly;
floats with the run's exact arithmetic, ``exact_sums``), a rounded copy's row is its
part's. Two figure sets are equal iff their rows are (one type per column, and no
negative zero among the values, so equal numbers have equal texts).

``RowPlan`` is made from a full run's ledger when the result is plain; ``refresh`` reads
the new breakdowns, requires them to be written as before up to the values (same
entities, same metrics, same number types), computes every node's row, requires the
rows to be equal exactly where the old figure sets were, and writes the projected
breakdowns as the full run would (an origin's metrics, or ``name``, ``unit``,
``value``, ``aggregation`` sums; an origin's own metric objects for a copy). No figure
set, key or authority is built. Anything
else answers ``None`` and the caller replays with figure sets, or projects in full.

A plan also says, as data, how the breakdowns it writes are laid out (``BreakdownLayout``:
each output breakdown's entity id and its metrics' names, units and aggregations, in
order), made once with the plan: a full run that made one, and every replay by it, write
the input breakdowns as they came (checked, up to the values) and then the plan's targets
with the plan's columns, in the plan's order. The daemon's line index compares it with the
layout it last checked (``server.line_figures``) instead of checking every record again.

Cost: one pass over the breakdowns' metrics, one addition per (part, column), one dict
per projected metric; the layout, one pass over the output breakdowns per plan; no
numpy: the rows are short (the metrics of one breakdown) and one call per node would
cost more than the additions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, cast

from perfline.core.mypyc_idioms import int_objects
from perfline.core.projection.exact_sums import exact_total
from perfline.core.projection.figure_ledger import COMBINED_NODE, ORIGIN_NODE, FigureSetLedger
from perfline.core.projection.figure_sets import FigureSet
from perfline.core.projection.index import GraphIndex
from perfline.core.projection.origin_shapes import plain_sum_view, sum_view_value
from perfline.core.projection.records import Record

INT_COLUMN: Final = 0
FLOAT_COLUMN: Final = 1


class BreakdownLayout:
    """How a projection's output breakdowns are laid out, whatever their values: each
    breakdown's entity id and the identities (name, unit, aggregation) of its metrics, in
    output order. Plain data, compared by value (``==``; the very same layout object is
    equal at once): equal layouts lay out breakdowns alike."""

    __slots__ = ("entity_ids", "metrics")

    def __init__(self, entity_ids: list[str], metrics: list[tuple[Any, ...]]) -> None:
        self.entity_ids = entity_ids
        """Each output breakdown's entity id, in order."""
        self.metrics = metrics
        """Each output breakdown's metric identities: a tuple of (name, unit, aggregation)."""

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, BreakdownLayout):
            return NotImplemented
        return self.entity_ids == other.entity_ids and self.metrics == other.metrics


class RowPlan:
    """What ``refresh`` needs of one full run of a plain result."""

    __slots__ = (
        "columns",
        "entity_ids",
        "kinds",
        "labels",
        "layout",
        "names",
        "order",
        "origin_rows",
        "parents",
        "sources",
        "targets",
        "types",
        "units",
    )

    def __init__(
        self,
        entity_ids: list[str],
        columns: list[tuple[str, str, str]],
        types: list[int],
        order: list[int],
        kinds: list[int],
        parents: list[list[int]],
        origin_rows: list[int],
        sources: list[int],
        labels: list[int],
        targets: list[tuple[str, int]],
    ) -> None:
        self.entity_ids = entity_ids
        """Each breakdown's entity id, in document order."""
        self.columns = columns
        """Each metric's (name, unit, aggregation), in each breakdown's order."""
        self.types = types
        """Each metric's number type (``INT_COLUMN``/``FLOAT_COLUMN``), same order."""
        self.order = order
        """Breakdown positions of the metrics in sorted identity order (a row's order)."""
        self.names = [columns[position][0] for position in order]
        self.units = [columns[position][1] for position in order]
        self.kinds = kinds
        self.parents = parents
        self.origin_rows = origin_rows
        """Each node's breakdown position when it is an origin (-1 otherwise)."""
        self.sources = sources
        """Each node's breakdown position when its metrics are that breakdown's own (an
        origin, or a rounded copy of one), -1 when they are sums."""
        self.labels = labels
        """Each node's class of equal figure sets in the full run."""
        self.targets = targets
        """(entity id, node) of each target that received figures, in output order."""
        self.layout = _layout(self)
        """How the breakdowns written by this plan are laid out."""


def _layout(plan: RowPlan) -> BreakdownLayout:
    """The layout of what ``refresh`` writes: the input breakdowns (each with the plan's
    columns), then each target's metrics (an origin's own, in row order, or the sums)."""
    columns = plan.columns
    written: tuple[Any, ...] = tuple(columns)
    copied: tuple[Any, ...] = tuple([columns[position] for position in plan.order])
    summed: tuple[Any, ...] = tuple(
        [(plan.names[column], plan.units[column], "sum") for column in range(len(plan.order))]
    )
    entity_ids = list(plan.entity_ids)
    metrics: list[tuple[Any, ...]] = [written] * len(entity_ids)
    for entity, node in plan.targets:
        entity_ids.append(entity)
        metrics.append(copied if plan.sources[node] >= 0 else summed)
    return BreakdownLayout(entity_ids, metrics)


def row_plan(
    index: GraphIndex,
    breakdowns: Sequence[Any],
    ledger: FigureSetLedger,
    decided: dict[int, Record],
    exact_sums: bool,
) -> RowPlan | None:
    """The row plan of a full run, or ``None`` when the result is not plain."""
    first = _skeleton(breakdowns)
    if first is None:
        return None
    entity_ids, columns, types = first
    if len(set(entity_ids)) != len(entity_ids) or (not exact_sums and FLOAT_COLUMN in types):
        return None
    identities = [(name, unit) for name, unit, _ in columns]
    if len(set(identities)) != len(identities):
        return None
    order = sorted(range(len(columns)), key=identities.__getitem__)
    rows_by_entity = {index.position[entity]: row for row, entity in enumerate(entity_ids)}
    labels_by_key: dict[str, int] = {}
    labels: list[int] = []
    origin_rows: list[int] = []
    sources: list[int] = []
    for node in range(len(ledger.figures)):
        figures = ledger.figures[node]
        if figures is None or not _one_full_group(figures, len(columns)):
            return None
        labels.append(labels_by_key.setdefault(figures.key, len(labels_by_key)))
        kind = ledger.kinds[node]
        if kind == ORIGIN_NODE:
            origin_rows.append(rows_by_entity[ledger.origins[node]])
            sources.append(origin_rows[-1])
        else:
            origin_rows.append(-1)
            sources.append(-1 if kind == COMBINED_NODE else sources[ledger.parents[node][0]])
    targets: list[tuple[str, int]] = []
    for target in sorted(decided):
        number = ledger.numbers.get(id(decided[target].figures))
        if number is None:
            return None
        targets.append((index.ids[target], number))
    return RowPlan(
        entity_ids,
        columns,
        types,
        order,
        ledger.kinds,
        ledger.parents,
        origin_rows,
        sources,
        labels,
        targets,
    )


def _one_full_group(figures: FigureSet, width: int) -> bool:
    """One unqualified group whose every metric is a plain addend."""
    if len(figures.groups) != 1:
        return False
    group = figures.groups[0]
    return (
        group.qualifier_key == "{}"
        and group.plain
        and len(group.metrics) == width
        and len(group.addend_order) == width
    )


def _skeleton(
    breakdowns: Sequence[Any],
) -> tuple[list[str], list[tuple[str, str, str]], list[int]] | None:
    """Entity ids, metric columns and number types of plain breakdowns (else ``None``)."""
    entity_ids: list[str] = []
    columns: list[tuple[str, str, str]] | None = None
    types: list[int] = []
    for breakdown in breakdowns:
        if type(breakdown) is not dict:
            return None
        fields = cast(dict[str, Any], breakdown)
        entity = fields.get("entity_id")
        metrics = fields.get("metrics")
        if type(entity) is not str or type(metrics) is not list or fields.get("qualifiers"):
            return None
        if columns is None:
            columns = []
            for metric in metrics:
                if not plain_sum_view(metric):
                    return None
                columns.append((metric["name"], metric["unit"], metric["aggregation"]))
                types.append(_type_of(metric["value"]))
            if not columns:
                return None
        elif _column_values(metrics, columns, types) is None:
            return None
        entity_ids.append(entity)
    if columns is None or -1 in types:
        return None
    return entity_ids, columns, types


def _type_of(value: Any) -> int:
    if type(value) is int:
        return INT_COLUMN
    if type(value) is float and not (value == 0.0 and str(value)[0] == "-"):
        return FLOAT_COLUMN
    return -1  # a negative zero, or not a number: not plain


def _column_values(
    metrics: list[Any], columns: list[tuple[str, str, str]], types: list[int]
) -> list[Any] | None:
    """The values of ``metrics`` when they are plain sum views with the plan's columns
    and number types, in breakdown order; ``None`` otherwise.

    ``plain_sum_view`` and the column comparison in one pass (``sum_view_value``: the
    columns come from plain metrics, so their aggregations are non-empty), and
    ``_type_of`` asks more of the value (an ``int``, or a ``float`` not ``-0.0``)."""
    if len(metrics) != len(columns):
        return None
    values: list[Any] = []
    for position in range(len(metrics)):
        name, unit, aggregation = columns[position]
        value = sum_view_value(metrics[position], name, unit, aggregation)
        if value is None or _type_of(value) != types[position]:
            return None
        values.append(value)
    return values


def refresh(plan: RowPlan, breakdowns: Sequence[Any]) -> list[dict[str, Any]] | None:
    """The projected breakdowns of ``breakdowns`` (the new values of the plan's result),
    or ``None`` when they are not written as before up to their values, a float sum is
    not finite, or figure sets that were equal (or different) no longer are."""
    if len(breakdowns) != len(plan.entity_ids):
        return None
    metrics_of: list[list[Any]] = []
    values_of: list[list[Any]] = []
    for row in range(len(breakdowns)):
        breakdown = breakdowns[row]
        if type(breakdown) is not dict:
            return None
        fields = cast(dict[str, Any], breakdown)
        metrics = fields.get("metrics")
        if (
            fields.get("entity_id") != plan.entity_ids[row]
            or type(metrics) is not list
            or fields.get("qualifiers")
        ):
            return None
        values = _column_values(metrics, plan.columns, plan.types)
        if values is None:
            return None
        metrics_of.append(metrics)
        values_of.append(values)
    rows = _node_values(plan, values_of)
    if rows is None or not _same_classes(plan.labels, rows, FLOAT_COLUMN in plan.types):
        return None
    return _breakdowns(plan, metrics_of, rows)


def _node_values(plan: RowPlan, values_of: list[list[Any]]) -> list[list[Any]] | None:
    """Every node's row, in sorted identity order (``None``: a float sum not finite).

    A float column holds each value's exact form for the next sum: its partials
    (a tuple) where the printed value rounds it; ``_printed`` reads the values."""
    order = plan.order
    width = len(order)
    floats = [plan.types[position] == FLOAT_COLUMN for position in order]
    rows: list[list[Any]] = []
    for node in range(len(plan.kinds)):
        origin_row = plan.origin_rows[node]
        if origin_row >= 0:
            values = values_of[origin_row]
            rows.append([values[position] for position in order])
            continue
        parents = plan.parents[node]
        if plan.kinds[node] != COMBINED_NODE:
            # a rounded copy: the printed numbers (exact forms dropped)
            rows.append([_printed(value) for value in rows[parents[0]]])
            continue
        row: list[Any] = []
        for column in range(width):
            if floats[column]:
                terms = [rows[parent][column] for parent in int_objects(parents)]
                partials: list[float] = []
                total = exact_total(terms, partials)
                if total is None:
                    return None
                row.append(tuple(partials) if len(partials) > 1 else total)
            else:
                whole = 0
                for parent in int_objects(parents):
                    whole += rows[parent][column]
                row.append(whole)
        rows.append(row)
    return rows


def _printed(value: Any) -> Any:
    """The printed value of a row entry (partials are rounded)."""
    if type(value) is tuple:
        total = exact_total([value], [])
        assert total is not None  # partials of a finite sum
        return total
    return value


def _same_classes(labels: list[int], rows: list[list[Any]], floats: bool) -> bool:
    """Are the rows equal exactly where the full run's figure sets were? (``floats``:
    whether a column is of floats, so that a row may hold partials.)"""
    new_labels: dict[tuple[Any, ...], int] = {}
    old_for_new: list[int] = []
    seen_old: dict[int, int] = {}
    for node in range(len(rows)):
        row = tuple([_printed(value) for value in rows[node]]) if floats else tuple(rows[node])
        label = new_labels.setdefault(row, len(new_labels))
        if label == len(old_for_new):
            old_for_new.append(labels[node])
        if old_for_new[label] != labels[node]:
            return False  # equal rows where the figure sets differed
        if seen_old.setdefault(labels[node], label) != label:
            return False  # different rows where the figure sets were equal
    return True


def _breakdowns(
    plan: RowPlan, metrics_of: list[list[Any]], rows: list[list[Any]]
) -> list[dict[str, Any]]:
    """The projected breakdowns, as ``stages.projected_breakdowns`` writes them."""
    out: list[dict[str, Any]] = []
    order = plan.order
    # one metric per column, copied for each sum (a dict copy and one store are cheaper
    # than building the four keys again; the key order is the template's)
    templates = [
        {"name": plan.names[column], "unit": plan.units[column], "value": 0, "aggregation": "sum"}
        for column in range(len(order))
    ]
    for entity, node in plan.targets:
        source = plan.sources[node]
        if source >= 0:
            own = metrics_of[source]
            copied: list[dict[str, Any]] = [own[position] for position in order]
        else:
            row = rows[node]
            copied = []
            for column in range(len(templates)):
                metric = templates[column].copy()
                metric["value"] = _printed(row[column])
                copied.append(metric)
        out.append({"entity_id": entity, "metrics": copied})
    return out
