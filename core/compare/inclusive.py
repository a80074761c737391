"""Call lines in a comparison: which of a call line's changes the lines it calls account for.

A call line (``x = self.blocks(x)``, ``core.call_lines``) carries an *inclusive* figure:
the sum over every operator below it, the operators of the lines it calls included. A
change there is the change of those lines, so it is reported (marked inclusive) but judged
where it happens: a regression on line 26 is one regressing line, not two.

The rule, per call line and metric (name and qualifiers), in each run where the line has
that figure: the change is *explained* when every source operator below the line lies
below one of the lines it calls that

* has a figure of the same metric in that run, and
* has no operator outside the call line (a line reached from several call lines mixes
  their operators: a change diluted there might be visible only on the call line).

It must hold in every run that has the line's figure. Otherwise -- an operator on the
line itself (``x = self.blocks(x) + heavy(x)``), called lines without figures (library
frames collapsed away, no sample), a called line shared with another caller -- the call
line is judged like any line. So a change is never hidden, and counted once wherever the
called lines carry it.

Pure. Cost: for each call line, its operators plus those of the lines it calls.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from perfline.core.call_lines import Frame, LineCalls
from perfline.core.compare.align import CODE_LINE
from perfline.core.compare.deltas import EntityDelta

Identity = tuple[str, str]
"""A metric's identity in a comparison: (name, qualifier key)."""


class _Side:
    """One run (0: the baseline, 1: the new run): its call lines, its code lines by
    (file, line), and the metrics each code line has a figure of there."""

    __slots__ = ("_side", "at", "calls", "figured")

    def __init__(self, calls: Mapping[str, LineCalls], side: int) -> None:
        self.calls = calls
        self.at: dict[Frame, str] = {(c.file, c.line): c.entity_id for c in calls.values()}
        #: code line id -> identities of the metrics it has a figure of in this run
        self.figured: dict[str, frozenset[Identity]] = {}
        self._side = side

    def note(self, entity_id: str, entity: EntityDelta) -> None:
        values = (
            (d.name, d.qualifiers)
            for d in entity.metrics
            if (d.base if self._side == 0 else d.new) is not None
        )
        self.figured[entity_id] = frozenset(values)

    def covered(self, line: LineCalls, identity: Identity) -> bool:
        """Whether the lines ``line`` calls account for every operator below it."""
        own = set(line.operators)
        if not line.calls or not own:
            return False
        reached: set[str] = set()
        for frame in line.calls:
            called_id = self.at.get(frame)
            if called_id is None or identity not in self.figured.get(called_id, ()):
                continue
            called = self.calls[called_id].operators
            if own.issuperset(called):
                reached.update(called)
        return len(reached) == len(own)


def explained_changes(
    entities: Sequence[EntityDelta],
    base: Mapping[str, LineCalls],
    new: Mapping[str, LineCalls],
) -> dict[int, frozenset[Identity]]:
    """Position of a call line's delta in ``entities`` -> the metric identities whose change
    the lines it calls account for (see the module docstring). ``base`` and ``new``: each
    run's ``core.call_lines.line_calls``."""
    if not any(c.calls for c in base.values()) and not any(c.calls for c in new.values()):
        return {}
    sides = (_Side(base, 0), _Side(new, 1))
    lines: list[tuple[int, EntityDelta]] = []
    for position, entity in enumerate(entities):
        if entity.kind != CODE_LINE:
            continue
        lines.append((position, entity))
        for side, entity_id in zip(sides, (entity.base_id, entity.new_id), strict=True):
            if entity_id is not None:
                side.note(entity_id, entity)
    found: dict[int, frozenset[Identity]] = {}
    for position, entity in lines:
        ids = (entity.base_id, entity.new_id)
        calls = [
            side.calls.get(i) if i is not None else None for side, i in zip(sides, ids, strict=True)
        ]
        if not any(c is not None and c.calls for c in calls):
            continue
        explained = set()
        for delta in entity.metrics:
            identity = (delta.name, delta.qualifiers)
            runs = [
                (side, line)
                for side, line, value in zip(sides, calls, (delta.base, delta.new), strict=True)
                if value is not None
            ]
            if runs and all(
                line is not None and side.covered(line, identity) for side, line in runs
            ):
                explained.add(identity)
        if explained:
            found[position] = frozenset(explained)
    return found
