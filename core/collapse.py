"""Entity collapse (placeholder: returns the result unchanged until implemented)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from perfline.core.collapse_rules import CollapseRule


def collapse_result(result: Mapping[str, Any], rules: Sequence[CollapseRule]) -> dict[str, Any]:
    """Collapse the entities selected by ``rules``."""
    return dict(result)
