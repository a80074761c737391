"""Whether two results are runs of one model: what aligns between them, and the verdict.

Comparing two versions of one model after a source edit is what ``compare`` is for (its
files pair by path, its lines through the edited files' line maps); comparing two unrelated
models is a mistake that must not read as "no regression". Three things align or not:

* **source files**: the base's recorded files that pair with the new run's (``align``);
* **operators**: the model's operators (``source_operator`` entities; every kind ending in
  ``operator`` when neither result has one) with the same key *and* the same name and operator
  types (``source_operator/3`` is the fourth node of any ONNX model; a
  node of another model at that position has another name or type);
* **code lines**: lines of the base that land on a line of the new run (``align``'s keys,
  through the line maps).

Nothing aligning (no operator alike, no code line in common) -> ``InputError`` saying what
differs, with examples. Less than half aligning, on either side, for operators or for lines
-> a warning with the counts ("little aligns"). Cost: linear in the entities.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, NamedTuple

from perfline.core.compare.align import CODE_LINE, Key
from perfline.core.errors import InputError, Problem

#: Below this share of a side's operators or lines aligning, a comparison says so.
LITTLE: Final = 0.5
SOURCE_OPERATOR: Final = "source_operator"
_EXAMPLES: Final = 2


class Relatedness(NamedTuple):
    """What aligns: (aligned, base total, new total) of files, operators and code lines."""

    files: tuple[int, int, int]
    operators: tuple[int, int, int]
    lines: tuple[int, int, int]
    differing: tuple[str, ...]
    """The first operators of the same key that differ (``source_operator/0: ... vs ...``)."""
    file_names: tuple[tuple[str, ...], tuple[str, ...]]

    @property
    def unrelated(self) -> bool:
        """No operator alike and no code line in common."""
        return self.operators[0] == 0 and self.lines[0] == 0

    @property
    def little(self) -> bool:
        """Less than ``LITTLE`` of either side's operators or lines align."""
        return any(
            aligned < LITTLE * total
            for aligned, *totals in (self.operators, self.lines)
            for total in totals
            if total
        )


def relatedness(
    base_keys: Mapping[Key, Mapping[str, Any]],
    new_keys: Mapping[Key, Mapping[str, Any]],
    files: Mapping[str, str],
    base_files: Sequence[str],
    new_files: Sequence[str],
) -> Relatedness:
    """What aligns between a base and a new result (keys from ``align.entity_keys``)."""
    kinds = _operator_kinds(base_keys, new_keys)
    base_ops = {key: e for key, e in base_keys.items() if e.get("kind") in kinds}
    new_ops = {key: e for key, e in new_keys.items() if e.get("kind") in kinds}
    alike = 0
    differing: list[str] = []
    for key, entity in base_ops.items():
        other = new_ops.get(key)
        if other is None:
            continue
        if _signature(entity) == _signature(other):
            alike += 1
        elif len(differing) < _EXAMPLES:
            differing.append(
                f"{entity['id']}: the baseline's {_shown(entity)}, the new run's {_shown(other)}"
            )
    base_lines = {key for key, e in base_keys.items() if e.get("kind") == CODE_LINE}
    new_lines = {key for key, e in new_keys.items() if e.get("kind") == CODE_LINE}
    return Relatedness(
        files=(len(files), len(base_files), len(new_files)),
        operators=(alike, len(base_ops), len(new_ops)),
        lines=(len(base_lines & new_lines), len(base_lines), len(new_lines)),
        differing=tuple(differing),
        file_names=(tuple(_name(f) for f in base_files), tuple(_name(f) for f in new_files)),
    )


def check_related(
    related: Relatedness, indices: tuple[int, int], sources: tuple[str, str]
) -> list[str]:
    """Raise ``InputError`` for unrelated results; the "little aligns" warning, if any."""
    if related.unrelated:
        raise InputError(
            sources[1],
            Problem(
                f"results[{indices[1]}]",
                f"a different model from the baseline {sources[0]}: nothing aligns: "
                + _what_aligns(related),
            ),
        )
    if related.little:
        return [
            f"results {indices[0]}/{indices[1]}: little aligns (runs of one model?): "
            + _what_aligns(related)
        ]
    return []


def _what_aligns(related: Relatedness) -> str:
    alike, base_ops, new_ops = related.operators
    common, base_lines, new_lines = related.lines
    paired = related.files[0]
    base_names, new_names = related.file_names
    if paired:
        files = f"{paired} source file(s) in common"
    elif base_names or new_names:
        files = (
            f"no source file in common (the baseline's: {', '.join(base_names) or 'none'}; "
            f"the new run's: {', '.join(new_names) or 'none'})"
        )
    else:
        files = "no source file in either run"
    examples = f" (e.g. {'; '.join(related.differing)})" if related.differing else ""
    return (
        f"{files}; {alike} of the baseline's {base_ops} and the new run's {new_ops} operators "
        f"alike (same id, name and operator types){examples}; {common} of the baseline's "
        f"{base_lines} and the new run's {new_lines} code lines in common"
    )


def _operator_kinds(*sides: Mapping[Key, Mapping[str, Any]]) -> frozenset[str]:
    """``source_operator`` when a side has it (the model's own operators; a runtime's
    ``backend_operator`` entities are its fusions and inserted nodes), else every kind ending
    in ``operator``."""
    kinds = {
        str(entity.get("kind"))
        for side in sides
        for entity in side.values()
        if str(entity.get("kind", "")).endswith("operator")
    }
    return frozenset({SOURCE_OPERATOR} if SOURCE_OPERATOR in kinds else kinds)


def _signature(entity: Mapping[str, Any]) -> tuple[str, str, tuple[str, ...]]:
    attributes = entity.get("attributes") or {}
    types = attributes.get("operator_types") or ()
    return (str(entity.get("kind")), str(entity.get("name", "")), tuple(map(str, types)))


def _shown(entity: Mapping[str, Any]) -> str:
    _, name, types = _signature(entity)
    return f"`{name}`" + (f" ({'/'.join(types)})" if types else "")


def _name(path: str) -> str:
    return path.replace("\\", "/").rsplit("/", 1)[-1]
