"""What the post-processing may be told (``PipelineSettings``).

A frozen dataclass, kept out of the compiled modules (``setup.py``; they define
no dataclasses, see ``ARCHITECTURE.md``): it is built once per run, compared and
hashed by the daemon and the CLI. ``perfline.core.pipeline`` re-exports it.
"""

from __future__ import annotations

from dataclasses import dataclass

from perfline.core.collapse_rules import CollapseRule
from perfline.core.projection.exact_sums import FloatSums


@dataclass(frozen=True)
class PipelineSettings:
    """What the post-processing may be told: extra collapse rules, whether the
    producers' default rules apply (``--no-default-collapse`` turns them off), and
    how projection adds float values (``float_sums``: ``"exact"``, deviation D6, the
    default; ``"reference"``: as mlia 0.12.3 does, byte for byte)."""

    collapse_rules: tuple[CollapseRule, ...] = ()
    use_backend_defaults: bool = True
    float_sums: FloatSums = "exact"
