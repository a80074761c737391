"""Undo perfline's documented deviations (docs/deviations.md) on an output so
it can be compared with the reference's.

D1: perfline adds ``Retaining entity '<id>' because collapsing it would create
an undeclared entity-kind relationship.`` to a result's ``warnings`` for each
collapse candidate it had to retain; the reference only logs it. Stripping
removes those strings and drops a ``warnings`` list left empty.

D3: perfline marks a post-processed document with
``extensions.perfline.postprocessed = true`` (so that it is never processed
twice); stripping removes that mark and an ``extensions`` object left empty.
"""

from __future__ import annotations

import re
from typing import Any

RETAIN_WARNING = re.compile(
    r"Retaining entity '.*' because collapsing it would create an undeclared "
    r"entity-kind relationship\.",
    re.DOTALL,
)


def strip_deviations(document: Any) -> Any:
    """A copy of ``document`` without the warnings (D1) and the mark (D3) perfline adds."""
    if not isinstance(document, dict):
        return document
    extensions = document.get("extensions")
    if isinstance(extensions, dict) and "perfline" in extensions:
        rest = {k: v for k, v in extensions.items() if k != "perfline"}
        document = {k: v for k, v in document.items() if k != "extensions"}
        if rest:
            document["extensions"] = rest
    if not isinstance(document.get("results"), list):
        return document
    results = []
    for item in document["results"]:
        warnings = item.get("warnings") if isinstance(item, dict) else None
        if not isinstance(warnings, list):
            results.append(item)
            continue
        kept = [w for w in warnings if not (isinstance(w, str) and RETAIN_WARNING.fullmatch(w))]
        if len(kept) == len(warnings):
            results.append(item)
            continue
        copy = dict(item)
        if kept:
            copy["warnings"] = kept
        else:
            del copy["warnings"]
        results.append(copy)
    return {**document, "results": results}
