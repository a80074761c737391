"""Memoized two-stage runs: a raw document (keyed by the inputs' content) and its
post-processed form (keyed by that plus the pipeline settings), keeping at most
``RAW_STAGE_KEEP`` and ``FINAL_STAGE_KEEP`` of them per stage (superseded versions
are only worth keeping for an edit undone). Cost: two memo lookups per run.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from perfline.server.jobs.context import JobContext
from perfline.server.jobs.stage_memo import FINAL_STAGE_KEEP, RAW_STAGE_KEEP


def processed_stage(
    context: JobContext,
    stage: str,
    key: tuple[Any, ...],
    raw: Callable[[], dict[str, Any]],
    source: str | None,
) -> dict[str, Any]:
    """The raw document memoized by ``key``, then post-processed (memoized with the settings)."""
    document = context.memo.get_or_compute(
        f"{stage}.raw", key, raw, refresh=context.fresh, keep=RAW_STAGE_KEEP
    )
    context.check_cancelled()
    processed: dict[str, Any] = context.memo.get_or_compute(
        f"{stage}.processed",
        (*key, context.settings_key()),
        lambda: context.postprocess(document, source),
        refresh=context.fresh,
        keep=FINAL_STAGE_KEEP,
    )
    return processed


def options_key(options: Any) -> str:
    """The job's options as one comparable text."""
    return json.dumps(options, sort_keys=True, default=str)
