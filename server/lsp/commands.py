"""``workspace/executeCommand``: ``perfline.reanalyze`` (optionally one job),
``perfline.setBaseline`` / ``perfline.clearBaseline`` (a job, optional when only one job has
a result; the baseline is written by the comparison service, the answer says it is
scheduled) and ``perfline.showBlock`` (the code lens command; clients that show breakdowns
implement it, the server only acknowledges it). Arguments come as the client sends them."""

from __future__ import annotations

from typing import Any

from perfline.server.lsp.custom_requests import answer
from perfline.server.lsp.features import Feature

# pygls resolves the annotations of command handlers (``typing.get_type_hints``) when it
# runs them, so the connection (``PerflineServer``, an import cycle here) is typed ``Any``.


def _job(args: tuple[Any, ...]) -> dict[str, Any]:
    job = args[0] if args and isinstance(args[0], str) else None
    return {"job": job} if job else {}


def reanalyze(ls: Any, *args: Any) -> Any:
    return answer(ls, "perfline/reanalyze", _job(args))


def set_baseline(ls: Any, *args: Any) -> Any:
    return answer(ls, "perfline/setBaseline", {**_job(args), "wait": False})


def clear_baseline(ls: Any, *args: Any) -> Any:
    return answer(ls, "perfline/clearBaseline", {**_job(args), "wait": False})


def show_block(ls: Any, *args: Any) -> None:
    return None


FEATURES = (
    Feature("perfline.reanalyze", reanalyze, command=True),
    Feature("perfline.setBaseline", set_baseline, command=True),
    Feature("perfline.clearBaseline", clear_baseline, command=True),
    Feature("perfline.showBlock", show_block, command=True),
)
