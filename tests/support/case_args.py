"""The settings a conformance case's ``*.args`` file asks for."""

from __future__ import annotations

from pathlib import Path

from perfline.core.collapse_rules import parse_rule
from perfline.core.pipeline import PipelineSettings


def case_settings(stem: Path, defaults: bool = False) -> PipelineSettings:
    """``--collapse`` rules and ``--nt-defaults`` of ``<stem>.args`` (absent: none);
    ``defaults`` turns the backend defaults on regardless."""
    args_path = stem.with_suffix(".args")
    args = args_path.read_text(encoding="utf-8").split() if args_path.exists() else []
    rules = tuple(parse_rule(args[i + 1]) for i, arg in enumerate(args) if arg == "--collapse")
    return PipelineSettings(
        collapse_rules=rules, use_backend_defaults=defaults or "--nt-defaults" in args
    )
