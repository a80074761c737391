"""Whether a run belongs to the model it is read with: the one verdict every backend gives.

A backend lists what its run records, item by item (a profile's executed nodes, an ETDump's
events, an estimator's chains), each with what comparing it with the model showed
(``Evidence``): it *agrees* (what the run records of it is what the model says), it
*disagrees* (``mismatch`` says what differs: ``profile records input shape [1,128,25,5], the
model [1,64,25,5]``), or it tells nothing (``judged=False``: nothing recorded to compare). Its
``weight`` is what it accounts for in the run (ms per run, cycles). ``judge_run`` decides:

* **all wrong** (no judged item agrees, at least one disagrees), or one ``decisive`` mismatch
  (an item that cannot belong to the model at all, such as an instruction the program does not
  have) -> ``InputError`` naming the run's file and the first mismatches, with the counts;
* **partly wrong** -> ``RunMatch.disagreeing`` (the positions the backend leaves unattributed:
  figures only where the evidence agrees) and a warning with the counts, the unattributed total
  and share, and the heaviest mismatches;
* **all right** (or nothing judged) -> no warning.

The wording (what the items and the model are called, the unit of the weights) is the
backend's (``Wording``); the decision and the message shapes are this module's. Pure; cost
linear in the items (plus sorting the disagreeing ones by weight).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from perfline.core.errors import InputError, Problem

SHOWN = 5
EXAMPLES = 3


@dataclass(frozen=True)
class Evidence:
    """One recorded item of the run and what comparing it with the model showed."""

    label: str
    """How messages name the item (``node 3 `node_Conv_2` (Conv)``)."""
    weight: float = 0.0
    """What it accounts for in the run, in ``Wording.unit`` (left unattributed if it disagrees)."""
    mismatch: str | None = None
    """``None``: the evidence agrees; else what differs between the run and the model."""
    judged: bool = True
    """``False``: the run records nothing to compare for this item (counted neither way)."""
    decisive: bool = False
    """A mismatch that alone shows the run is of another model or program."""
    place: str | None = None
    """Where in the run's file the item is (for the error of a decisive mismatch)."""


@dataclass(frozen=True)
class Wording:
    """What a backend calls the parts of its messages."""

    run: str
    """The run's file (the error names it): ``profile.json``, ``run.etdump``."""
    items: str
    """The items, plural: ``profile nodes``, ``ETDump events``, ``estimator chains``."""
    model: str
    """What an agreeing item matches: ``a node of model.onnx``."""
    conclusion: str
    """The error's last words: ``the profile is of another model``."""
    unit: str
    """The weights' unit as the warning shows it: ``ms per run on average``, ``cycles``."""
    item_unit: str = ""
    """The unit after one item's weight in the list (``ms``); empty: weights not listed."""


@dataclass(frozen=True)
class RunMatch:
    """The verdict: the positions of the disagreeing items, and the warning (partly wrong)."""

    disagreeing: frozenset[int]
    warning: str | None
    agreed: int
    judged: int


def judge_run(evidence: Sequence[Evidence], wording: Wording) -> RunMatch:
    """Decide (see the module docstring); raise ``InputError`` when the run is not the model's."""
    judged = [item for item in evidence if item.judged]
    wrong = [index for index, item in enumerate(evidence) if item.judged and item.mismatch]
    decisive = [evidence[index] for index in wrong if evidence[index].decisive]
    if decisive:
        first = decisive[0]
        raise InputError(
            wording.run,
            Problem(
                first.place or wording.items,
                f"{first.label}: {first.mismatch}; {wording.conclusion} ({len(decisive)} of "
                f"{len(judged)} {wording.items} like it)",
            ),
        )
    agreed = len(judged) - len(wrong)
    if not wrong:
        return RunMatch(frozenset(), None, agreed, len(judged))
    if agreed == 0:
        examples = "; ".join(_described(evidence[index]) for index in wrong[:EXAMPLES])
        more = f"; ... ({len(wrong) - EXAMPLES} more)" if len(wrong) > EXAMPLES else ""
        raise InputError(
            wording.run,
            f"0 of {len(judged)} {wording.items} matched {wording.model} (e.g. {examples}{more}); "
            f"{wording.conclusion}",
        )
    return RunMatch(
        frozenset(wrong),
        _warning(evidence, wrong, agreed, len(judged), wording),
        agreed,
        len(judged),
    )


def _warning(
    evidence: Sequence[Evidence], wrong: list[int], agreed: int, judged: int, wording: Wording
) -> str:
    total = sum(item.weight for item in evidence)
    left = sum(evidence[index].weight for index in wrong)
    share = f", {left / total * 100:.3g}%" if total else ""
    heaviest = sorted(wrong, key=lambda index: -evidence[index].weight)
    listed = "; ".join(_described(evidence[index], wording.item_unit) for index in heaviest[:SHOWN])
    if len(heaviest) > SHOWN:
        listed += f"; ... ({len(heaviest) - SHOWN} more omitted)"
    verb = "is" if len(wrong) == 1 else "are"
    return (
        f"{agreed} of {judged} {wording.items} matched {wording.model}; {len(wrong)} of them "
        f"({number_text(left)} of {number_text(total)} {wording.unit}{share}) {verb} left "
        f"unattributed: {listed}."
    )


def _described(item: Evidence, unit: str = "") -> str:
    weight = f" ({number_text(item.weight)} {unit})" if unit else ""
    return f"{item.label}{weight}: {item.mismatch}"


def number_text(value: float) -> str:
    """``1,234`` for whole numbers, ``0.1235`` (4 significant digits) otherwise."""
    if float(value).is_integer() and abs(value) >= 1:
        return f"{int(value):,}"
    return f"{value:.4g}"
