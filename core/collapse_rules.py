"""Collapse rules and the backend registry of default rules.

A rule ``kind:attribute:glob[,glob...]`` selects entities of exactly that
kind whose ``attributes[attribute]`` is a string matching one of the globs
(case-sensitive fnmatch: ``*`` also matches ``/``). Backends register default
rules by result ``producer``; configured rules are added to them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from perfline.core.errors import InputError, Problem


@dataclass(frozen=True, order=True)
class CollapseRule:
    """Collapse entities of ``kind`` whose ``attribute`` matches one of ``globs``."""

    kind: str
    attribute: str
    globs: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.kind}:{self.attribute}:{','.join(self.globs)}"


NX_FRAMEWORK_FRAMES = CollapseRule(
    kind="code_stack",
    attribute="file",
    globs=("**/site-packages/torch/**", "**/site-packages/executorch/**"),
)

#: torch.profiler traces: frames whose file is not in the workspace (torch, the standard library,
#: installed packages; the backend marks each frame, see ``backends/torch_profiler/result.py``).
TORCH_OUTSIDE_FRAMES = CollapseRule(
    kind="code_stack", attribute="frame_origin", globs=("outside_workspace",)
)

#: producer -> default collapse rules (what MLIA does with the NX plugin installed).
BACKEND_DEFAULT_RULES: Mapping[str, tuple[CollapseRule, ...]] = {
    "nx-performance-estimator": (NX_FRAMEWORK_FRAMES,),
    "neural-technology-profiling-data": (NX_FRAMEWORK_FRAMES,),
    "onnxruntime": (NX_FRAMEWORK_FRAMES,),
    "perfline-static": (NX_FRAMEWORK_FRAMES,),
    "torch-profiler": (TORCH_OUTSIDE_FRAMES,),
}


def parse_rule(text: str, source: str = "--collapse") -> CollapseRule:
    """Parse ``KIND:ATTRIBUTE:GLOB[,GLOB...]``; globs may themselves contain ``:``."""
    parts = text.split(":", 2)
    if len(parts) != 3 or not parts[0] or not parts[1]:
        raise InputError(
            source,
            Problem(
                repr(text),
                "expected KIND:ATTRIBUTE:GLOB[,GLOB...], e.g. "
                "code_stack:file:**/site-packages/torch/**",
            ),
        )
    globs = tuple(glob for glob in parts[2].split(",") if glob)
    if not globs:
        raise InputError(source, Problem(repr(text), "expected at least one non-empty glob"))
    return CollapseRule(parts[0], parts[1], globs)


def effective_rules(
    producer: str,
    configured: Iterable[CollapseRule],
    *,
    use_backend_defaults: bool = True,
) -> tuple[CollapseRule, ...]:
    """Backend defaults for ``producer`` followed by configured rules, duplicates removed."""
    rules: list[CollapseRule] = []
    if use_backend_defaults:
        rules.extend(BACKEND_DEFAULT_RULES.get(producer, ()))
    for rule in configured:
        if rule not in rules:
            rules.append(rule)
    return tuple(rules)
