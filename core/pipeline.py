"""The core post-processing pipeline of a standardized-output document.

validate -> per result with entities: collapse -> derive code lines ->
project breakdowns -> validate again. Every stage is a pure function from a
normalized result dict to a new one; the input document is never mutated. A
result that no stage changed is returned exactly as it came in (unknown keys,
key order and empty lists kept); a changed one is re-serialized in the
schema's key order, taking as they are the records no stage replaced (they
are the normalized input's own objects) and rechecking only the others.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from perfline.core.code_lines import derive_code_lines
from perfline.core.collapse import collapse_result
from perfline.core.collapse_rules import CollapseRule, effective_rules
from perfline.core.collection import collection_paused
from perfline.core.document import normalize_result
from perfline.core.document_canonical import canonical_result
from perfline.core.errors import InputError, Problem, StageError
from perfline.core.projection import project_breakdowns
from perfline.core.validation import validate_document


@dataclass(frozen=True)
class PipelineSettings:
    """What the post-processing may be told: extra collapse rules, and whether
    the producers' default rules apply (``--no-default-collapse`` turns them off)."""

    collapse_rules: tuple[CollapseRule, ...] = ()
    use_backend_defaults: bool = True


def postprocess(
    document: Mapping[str, Any],
    settings: PipelineSettings = PipelineSettings(),
    *,
    source: str | None = None,
) -> dict[str, Any]:
    """Validate, collapse, derive code lines, project, validate again.

    A document that perfline has already post-processed (it carries the
    ``extensions.perfline.postprocessed`` mark) is validated and returned
    unchanged: processing it again could only add figures derived from
    figures that were themselves derived.

    Raises ``InputError`` naming ``source`` and the JSON path of every problem.
    """
    with collection_paused():
        _raise_if_invalid(document, source)
        if is_postprocessed(document):
            return dict(document)
        results = document["results"]
        processed: list[Any] = []
        for index, raw in enumerate(results):
            processed.append(_process_result(raw, index, settings, source))
        output = dict(document)
        output["results"] = processed
        _raise_if_invalid(output, source)
        return _with_mark(output)


#: ``extensions`` key under which perfline records that a document is post-processed.
EXTENSION_KEY = "perfline"


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


def _process_result(raw: Any, index: int, settings: PipelineSettings, source: str | None) -> Any:
    where = f"results[{index}]"
    try:
        typed = normalize_result(raw)
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
        return raw
    rules = effective_rules(
        str(typed["producer"]),
        settings.collapse_rules,
        use_backend_defaults=settings.use_backend_defaults,
    )
    try:
        current = collapse_result(typed, rules)
        current = derive_code_lines(current)
        current = project_breakdowns(current)
    except StageError as error:
        raise InputError(
            source,
            Problem(where, f"Unable to postprocess standardized result {index}: {error}"),
        ) from None
    if current == typed:
        return raw
    return _canonical_output(current, typed)


def _canonical_output(current: dict[str, Any], typed: dict[str, Any]) -> dict[str, Any]:
    """``normalize_result(current)``, rechecking only what the stages changed.

    ``typed`` is canonical and no stage mutates its input, so records of
    ``current`` that are the very objects of ``typed`` are taken as they are.
    """
    fast = canonical_result(current, canonical_before=typed)
    return fast if fast is not None else normalize_result(current)


def _join(prefix: str, location: str) -> str:
    if not location:
        return prefix
    return f"{prefix}{location}" if location.startswith("[") else f"{prefix}.{location}"


def _raise_if_invalid(document: Mapping[str, Any], source: str | None) -> None:
    problems: Sequence[Problem] = validate_document(document)
    if problems:
        raise InputError(source, problems)
