"""code_line derivation (placeholder: returns the result unchanged until implemented)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def derive_code_lines(result: Mapping[str, Any]) -> dict[str, Any]:
    """Derive one code_line per exact (file, line) of retained code_stack entities."""
    return dict(result)
