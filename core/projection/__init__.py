"""Breakdown projection (placeholder: returns the result unchanged until implemented)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def project_breakdowns(result: Mapping[str, Any]) -> dict[str, Any]:
    """Project missing breakdowns across the entity graph."""
    return dict(result)
