"""The core post-processing pipeline of a standardized-output document.

validate -> per result with entities: collapse -> derive code lines ->
project breakdowns -> validate again. Every stage is a pure function from a
normalized result dict to a new one; the input document is never mutated. A
result that no stage changed is returned exactly as it came in (unknown keys,
key order and empty lists kept); a changed one is re-serialized in the
schema's key order, taking as they are the records no stage replaced (they
are the normalized input's own objects) and rechecking only the others.

Stages exchange normalized results (``document_shapes.ResultJson``). A result
is normalized by the checked fast path (``document_canonical``); the pydantic
models (``document``) are imported only when a result fails it, to report the
precise problem, so post-processing a valid document never imports pydantic
(``tests/core/pipeline/test_lazy_models.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from perfline.core.code_lines import code_line_entities, derive_code_lines
from perfline.core.collapse import apply_collapse, collapse_result, plan_collapse
from perfline.core.collapse_rules import CollapseRule, effective_rules
from perfline.core.collection import collection_paused
from perfline.core.document_canonical import canonical_result
from perfline.core.document_shapes import PERFLINE_EXTENSION, EntityJson, ResultJson
from perfline.core.errors import InputError, Problem, StageError
from perfline.core.graph import NumberedGraph, numbered_graph
from perfline.core.pipeline_memo import STRUCTURE_FIELDS, PipelineMemo
from perfline.core.pipeline_settings import PipelineSettings
from perfline.core.projection import (
    BreakdownLayout,
    FloatSums,
    ProjectionMemo,
    project_breakdowns,
)
from perfline.core.projection.index import GraphIndex, index_of_graph
from perfline.core.read_forms import ReadForms
from perfline.core.validation import KnownGraphs, validate_document

__all__ = [
    "EXTENSION_KEY",
    "PipelineSettings",
    "Processed",
    "is_postprocessed",
    "postprocess",
    "postprocess_with_layouts",
]

_DEFAULT_SETTINGS = PipelineSettings()


def postprocess(
    document: Mapping[str, Any],
    settings: PipelineSettings = _DEFAULT_SETTINGS,
    *,
    source: str | None = None,
    memo: PipelineMemo | None = None,
    read_forms: ReadForms | None = None,
) -> dict[str, Any]:
    """Validate, collapse, derive code lines, project, validate again.

    A document that perfline has already post-processed (it carries the
    ``extensions.perfline.postprocessed`` mark) is validated and returned
    unchanged: processing it again could only add figures derived from
    figures that were themselves derived.

    ``memo`` (one per job, kept by the caller between runs) lets a run whose
    results have the same entity graph as the last run's reuse what was derived
    from it; the output is the same with or without it. ``read_forms``: what the
    reader of ``document`` handed over in canonical form (``core.read_forms``).

    Raises ``InputError`` naming ``source`` and the JSON path of every problem.
    """
    return postprocess_with_layouts(
        document, settings, source=source, memo=memo, read_forms=read_forms
    ).document


class Processed:
    """A post-processed document and, per result, how its output breakdowns are laid out
    when the projection's memo knows it (``BreakdownLayout``, data returned with the output
    it describes; ``None``: not known), for a reader of the output that would otherwise
    check the layout record by record (the daemon's line index)."""

    __slots__ = ("document", "layouts")

    def __init__(self, document: dict[str, Any], layouts: list[BreakdownLayout | None]) -> None:
        self.document = document
        self.layouts = layouts


def postprocess_with_layouts(
    document: Mapping[str, Any],
    settings: PipelineSettings = _DEFAULT_SETTINGS,
    *,
    source: str | None = None,
    memo: PipelineMemo | None = None,
    read_forms: ReadForms | None = None,
) -> Processed:
    """``postprocess``, and the layout of each result's output breakdowns (see
    ``Processed``; every layout is ``None`` without ``memo``)."""
    with collection_paused():
        if memo is not None:
            document = _interned(document, memo)
        # the input's numbered graphs: validation builds them, collapse reuses them
        read: KnownGraphs = {}
        _raise_if_invalid(document, source, memo, "validate-input", read, build=True)
        if is_postprocessed(document):
            if read_forms is not None:
                document = read_forms.document_as_written(document)
            return Processed(dict(document), [])
        results = document["results"]
        processed: list[Any] = []
        layouts: list[BreakdownLayout | None] = []
        graphs: KnownGraphs = {}
        for index, raw in enumerate(results):
            output, layout = _process_result(
                raw, index, settings, source, memo, read_forms, read, graphs
            )
            processed.append(output)
            layouts.append(layout)
        output_document = dict(document)
        output_document["results"] = processed
        _raise_if_invalid(output_document, source, memo, "validate-output", graphs)
        return Processed(_with_mark(output_document), layouts)


def _interned(document: Mapping[str, Any], memo: PipelineMemo) -> Mapping[str, Any]:
    """``document`` with each result's structure lists replaced by last run's equal ones."""
    results = document.get("results")
    if not isinstance(results, list):
        return document
    renewed: list[Any] = []
    changed = False
    for index, result in enumerate(results):
        if isinstance(result, dict):
            known = {
                field: memo.same(index, field, values)
                for field in STRUCTURE_FIELDS
                if type(values := result.get(field)) is list
            }
            if any(known[field] is not result[field] for field in known):
                changed = True
                result = {**result, **known}
        renewed.append(result)
    if not changed:
        return document
    interned = dict(document)
    interned["results"] = renewed
    return interned


#: ``extensions`` key under which perfline records that a document is post-processed.
EXTENSION_KEY: Final = PERFLINE_EXTENSION


def is_postprocessed(document: Mapping[str, Any]) -> bool:
    """Whether ``document`` carries perfline's post-processed mark."""
    extensions = document.get("extensions")
    if not isinstance(extensions, dict):
        return False
    own = extensions.get(EXTENSION_KEY)
    return isinstance(own, dict) and own.get("postprocessed") is True


def _with_mark(document: dict[str, Any]) -> dict[str, Any]:
    extensions = document.get("extensions", {})
    if not isinstance(extensions, dict):
        return document  # not ours to rewrite; the document is still valid
    own = extensions.get(EXTENSION_KEY, {})
    own = {**own, "postprocessed": True} if isinstance(own, dict) else own
    document["extensions"] = {**extensions, EXTENSION_KEY: own}
    return document


def _process_result(
    raw: Any,
    index: int,
    settings: PipelineSettings,
    source: str | None,
    memo: PipelineMemo | None,
    read_forms: ReadForms | None,
    read: KnownGraphs,
    graphs: KnownGraphs,
) -> tuple[Any, BreakdownLayout | None]:
    """The output of result ``index`` and the layout of its output breakdowns (``None``
    when unknown, and when the result is returned as it came in)."""
    where = f"results[{index}]"
    try:
        typed = _normalized(raw, index, memo, read_forms)
    except InputError as error:
        raise InputError(
            source,
            [
                Problem(
                    _join(where, p.location),
                    f"Unable to postprocess standardized result {index}: {p.message}",
                )
                for p in error.problems
            ],
        ) from None
    if not typed.get("entities"):
        return _as_it_came(raw, index, read_forms), None
    rules = effective_rules(
        typed["producer"],
        settings.collapse_rules,
        use_backend_defaults=settings.use_backend_defaults,
    )
    current: dict[str, Any]
    try:
        layout: BreakdownLayout | None = None
        if memo is None:
            current = _stages(typed, rules, settings.float_sums, index, read, graphs)
        else:
            current, layout = _stages_with_memo(
                typed, rules, settings.float_sums, index, memo, read, graphs
            )
    except StageError as error:
        raise InputError(
            source,
            Problem(where, f"Unable to postprocess standardized result {index}: {error}"),
        ) from None
    if current == typed:
        graphs.pop(index, None)
        return _as_it_came(raw, index, read_forms), None
    output = _canonical_output(current, typed, index, memo)
    final = graphs.get(index)
    if final is not None:
        entities = output.get("entities")
        if type(entities) is list and _graph_fields_shared(final[0], entities):
            graphs[index] = (entities, final[1])
        else:
            del graphs[index]
    return output, layout


def _as_it_came(raw: Any, index: int, read_forms: ReadForms | None) -> Any:
    """A result no stage changed, as the file writes it."""
    return raw if read_forms is None else read_forms.as_written(index, raw)


_GRAPH_FIELDS: Final = ("id", "kind", "parent_ids", "child_ids")
"""What an entity's node in the numbered graph (and its validation) is made of."""


def _graph_fields_shared(before: list[Any], after: list[Any]) -> bool:
    """Does ``after`` (the canonical form of ``before``) hold, position by position, the
    very objects ``before`` holds in every graph field? Then it has ``before``'s graph:
    canonicalization reorders keys and keeps the values (anything else: no)."""
    if before is after:
        return True
    if len(before) != len(after):
        return False
    for position in range(len(before)):
        old = before[position]
        new = after[position]
        if old is new:
            continue
        if type(old) is not dict or type(new) is not dict:
            return False
        for field in _GRAPH_FIELDS:
            if old.get(field) is not new.get(field):
                return False
    return True


def _normalized(
    raw: Any, index: int, memo: PipelineMemo | None, read_forms: ReadForms | None
) -> ResultJson:
    """``normalize_result(raw)``, taking the entity graph's form from ``memo`` when known
    and the breakdowns as they are when the reader handed them over in canonical form."""
    known: dict[str, tuple[list[Any], list[Any]]] = (
        {} if memo is None else memo.known_lists(index, "canonical-input")
    )
    if (
        read_forms is not None
        and type(raw) is dict
        and read_forms.is_canonical(index, raw.get("breakdowns"))
    ):
        # handed over in canonical form by the reader (``known_structure_reading``)
        known = {**known, "breakdowns": (raw["breakdowns"], raw["breakdowns"])}
    if memo is None and not known:
        fast = canonical_result(raw)
        return _models_form(raw) if fast is None else fast
    fast = canonical_result(raw, known_lists=known)
    if fast is None:
        return _models_form(raw)
    if memo is not None:
        memo.keep_lists(index, "canonical-input", raw, fast)
    return fast


def _models_form(raw: Any) -> ResultJson:
    """``document.normalize_result(raw)``: the canonical form of a result the fast path
    was not sure of, or the ``InputError`` that says what is wrong with it. The models
    are imported here, when first needed: a valid document never loads pydantic."""
    from perfline.core.document import normalize_result

    return normalize_result(raw)


def _input_graph(read: KnownGraphs, index: int, typed: ResultJson) -> NumberedGraph | None:
    """The numbered graph of ``typed``'s entities that the input's validation built
    (taken out of ``read``), when the canonical form kept every graph field."""
    known = read.pop(index, None)
    listed = typed.get("entities")
    if known is None or listed is None or not _graph_fields_shared(known[0], listed):
        return None
    return known[1]


def _stages(
    typed: ResultJson,
    rules: tuple[CollapseRule, ...],
    float_sums: FloatSums,
    index: int,
    read: KnownGraphs,
    graphs: KnownGraphs,
) -> dict[str, Any]:
    """Collapse, code lines and projection (``read``: the input's numbered graphs, from
    its validation; this result's is taken out, and freed once collapse has used it). The
    final entity list's numbered graph, which the projection's index is built from, is
    kept in ``graphs`` for the output's validation (the output holds that very list when
    the stages changed the result)."""
    graph = _input_graph(read, index, typed)
    lined = derive_code_lines(collapse_result(typed, rules, graph))
    entities = lined.get("entities")
    if not entities:
        return project_breakdowns(lined, float_sums=float_sums)
    if entities is not typed.get("entities"):
        graph = None  # the input's graph, no longer needed: freed before the next is built
    graph_index = _final_index(entities, graph, graphs, index)
    return project_breakdowns(lined, graph_index, float_sums=float_sums)


def _stages_with_memo(
    typed: ResultJson,
    rules: tuple[CollapseRule, ...],
    float_sums: FloatSums,
    index: int,
    memo: PipelineMemo,
    read: KnownGraphs,
    graphs: KnownGraphs,
) -> tuple[dict[str, Any], BreakdownLayout | None]:
    """Collapse, code lines and projection, reusing what ``memo`` has of the graph; and
    the layout of the projection's output breakdowns (``ProjectionMemo.layout``; ``None``
    when the projection had no row plan to go by). What the memo does not have is computed
    as ``_stages`` computes it: from the input's numbered graph when its validation
    built one (``read``), and the final list's numbered graph kept in ``graphs`` for the
    output's validation."""
    kinds = typed.get("entity_kinds")
    entities = typed.get("entities")
    input_graph = _input_graph(read, index, typed)
    plan = memo.recall(
        index, "collapse", (entities, kinds, rules), plan_collapse, typed, rules, input_graph
    )
    current = apply_collapse(typed, plan)
    collapsed = current.get("entities")
    if collapsed is None:
        return project_breakdowns(current, float_sums=float_sums), None
    derived = memo.recall(index, "code-lines", (collapsed,), code_line_entities, collapsed)
    graph: list[EntityJson] = collapsed if derived is None else derived
    current["entities"] = graph
    if not graph:
        return project_breakdowns(current, float_sums=float_sums), None
    if graph is not entities:
        input_graph = None  # no longer needed: freed before the next is built
    graph_index = memo.recall(
        index, "projection-index", (graph,), _final_index, graph, input_graph, graphs, index
    )
    input_graph = None  # not held through the projection
    replay = memo.state(index, "projection", ProjectionMemo)
    projected = project_breakdowns(current, graph_index, float_sums=float_sums, memo=replay)
    return projected, replay.layout()


def _final_index(
    entities: list[EntityJson],
    numbered: NumberedGraph | None,
    graphs: KnownGraphs,
    index: int,
) -> GraphIndex:
    """The projection's index of the final entity list, from its numbered graph
    (``numbered``: the input's, when the stages kept the input's list; else built here),
    which is kept in ``graphs`` for the output's validation."""
    if numbered is None:
        numbered = numbered_graph(entities)
    graphs[index] = (entities, numbered)
    return index_of_graph(numbered)


def _canonical_output(
    current: dict[str, Any], typed: ResultJson, index: int, memo: PipelineMemo | None
) -> ResultJson:
    """``normalize_result(current)``, rechecking only what the stages changed.

    ``typed`` is canonical and no stage mutates its input, so records of
    ``current`` that are the very objects of ``typed`` are taken as they are;
    with ``memo``, so are the structure lists canonicalized last run. The
    breakdowns are taken whole: each is one of ``typed``'s or was built in
    canonical form by the projection (``projection.stages.projected_breakdowns``;
    ``tests/core/pipeline/test_output_form.py`` holds that).
    """
    known = memo.known_lists(index, "canonical-output") if memo is not None else None
    before = {**typed, "breakdowns": current.get("breakdowns")}
    fast = canonical_result(current, canonical_before=before, known_lists=known)
    if fast is None:
        return _models_form(current)
    if memo is not None:
        memo.keep_lists(index, "canonical-output", current, fast)
    return fast


def _join(prefix: str, location: str) -> str:
    if not location:
        return prefix
    return f"{prefix}{location}" if location.startswith("[") else f"{prefix}.{location}"


def _raise_if_invalid(
    document: Mapping[str, Any],
    source: str | None,
    memo: PipelineMemo | None = None,
    stage: str = "validate",
    graphs: KnownGraphs | None = None,
    *,
    build: bool = False,
) -> None:
    problems: Sequence[Problem] = validate_document(
        document, memo, stage, graphs, build_graphs=build
    )
    if problems:
        raise InputError(source, problems)
