"""What a feature module declares: the LSP methods (or commands) it handles.

Each module of this package that handles requests or notifications lists them in a
module-level ``FEATURES`` tuple; ``connection.PerflineServer`` registers them with pygls
(handlers take the connection as their first parameter, named ``ls``). No cost.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Feature:
    """``method`` handled by ``handler`` (with pygls ``options``, or as a command)."""

    method: str
    handler: Callable[..., Any]
    options: Any = None
    command: bool = False
