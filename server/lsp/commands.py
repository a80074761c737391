"""``workspace/executeCommand``: ``perfline.reanalyze`` (optionally one job) and
``perfline.showBlock`` (the code lens command; clients that show breakdowns implement it,
the server only acknowledges it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from perfline.server.lsp.custom_requests import answer
from perfline.server.lsp.features import Feature

if TYPE_CHECKING:
    from perfline.server.lsp.connection import PerflineServer


def reanalyze(ls: PerflineServer, *args: Any) -> Any:
    job = args[0] if args and isinstance(args[0], str) else None
    return answer(ls, "perfline/reanalyze", {"job": job} if job else {})


def show_block(ls: PerflineServer, *args: Any) -> None:
    return None


FEATURES = (
    Feature("perfline.reanalyze", reanalyze, command=True),
    Feature("perfline.showBlock", show_block, command=True),
)
