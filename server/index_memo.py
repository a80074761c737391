"""The line index's cache: per job and result, what the last index decided from the
result's graph and layout, reused while it still holds.

``IndexMemo`` (one per job, owned by ``scheduler.memo_policy``) keeps a ``ResultMemo`` per
result index:

* the graph part (``line_graph.Skeleton`` and the lines' ``LineFacts`` under a resolver),
  reused while the result's entity list is the very same object (a run whose graph did
  not change is handed last run's list: ``core.pipeline_memo``), the result's labels and
  the resolver are the same;
* the figures' decisions (``line_figures``): where each code line's breakdown is (the
  rows), the dominant metric and the place of each line's value (the choice), the model
  total's top-most carriers (the totals), and the breakdown layout the rows and choice
  were last checked against (``BreakdownLayout``, data the pipeline returns with its
  output): each is checked to hold before it is used.

Changes time, never answers: ``tests/server/test_line_index_memo.py``. Cost: a dictionary
look-up per result.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perfline.server.line_graph import LineLayout, ResultLabels, Skeleton, skeleton_of

if TYPE_CHECKING:
    from perfline.core.projection import BreakdownLayout
    from perfline.server.line_figures import Choice, Rows, Totals


class ResultMemo:
    """What the last index of one result decided (see the module docstring)."""

    __slots__ = (
        "checked",
        "choice",
        "entities",
        "layout",
        "rows",
        "skeleton",
        "totals",
        "trusted",
    )

    def __init__(self) -> None:
        self.entities: Any = None
        self.skeleton: Skeleton | None = None
        self.layout: LineLayout | None = None
        self.rows: Rows | None = None
        self.choice: Choice | None = None
        self.totals: Totals | None = None
        #: The breakdown layout the rows and choice were last checked against, or None.
        self.checked: BreakdownLayout | None = None
        #: Runs whose layout checks an equal breakdown layout made unnecessary (tests
        #: observe it).
        self.trusted = 0

    def skeleton_of(self, entities: Any) -> Skeleton:
        """The skeleton of ``entities``: the kept one while it is the very same list (a
        new list forgets every decision kept for the last one)."""
        if self.skeleton is None or self.entities is not entities:
            self.skeleton = skeleton_of(entities)
            self.entities = entities
            self.layout = None
            self.rows = self.choice = self.totals = self.checked = None
        return self.skeleton

    def layout_of(
        self, skeleton: Skeleton, labels: ResultLabels, resolve: Callable[[str], Path | None]
    ) -> LineLayout:
        """The lines' facts: the kept ones while skeleton, labels and resolver are the same."""
        if self.layout is None or not self.layout.fits(skeleton, labels, resolve):
            self.layout = LineLayout(skeleton, labels, resolve)
        return self.layout


class IndexMemo:
    """A job's ``ResultMemo`` per result index."""

    def __init__(self) -> None:
        self._kept: dict[int, ResultMemo] = {}

    def kept(self, result_index: int) -> ResultMemo:
        found = self._kept.get(result_index)
        if found is None:
            found = self._kept[result_index] = ResultMemo()
        return found
