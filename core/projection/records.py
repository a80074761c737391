"""Records and the exposure population (§6.5).

A *record* is a figure set plus the set of authoritative origins it represents
and whether it is *sealed* (built from a complete declared frontier). Records
are values: two exposures with equal figures, origins and sealed flag are one
population entry, remembered with every entity that exposes it.

``faithful`` is internal bookkeeping for the fast cover search: it is true when
the figures are exactly the combination of the record's origins' own figures
(false once contributors with different origins but equal figures were merged).

Records, contributors, figure sets and derivations are values: nothing
mutates one after it is built. They are plain slotted classes with their own
``__init__`` rather than (frozen) dataclasses, because projection builds
hundreds of thousands of them: a frozen dataclass costs several times as much
to construct as a plain one, and in the compiled build a dataclass's generated
``__init__`` runs as interpreted Python.

The population keeps a unit -> entries index so a target finds the entries that
touch its leaves without scanning the whole population. Cost: O(units of the
record) per new entry.
"""

from __future__ import annotations

from typing import Any, cast

from perfline.core.mypyc_idioms import int_objects
from perfline.core.projection.figure_sets import FigureSet
from perfline.core.projection.index import GraphIndex


class Record:  # a value: never mutated (see records.py)
    """Figures with the origins they account for."""

    __slots__ = ("faithful", "figures", "origins", "sealed")

    def __init__(
        self, figures: FigureSet, origins: frozenset[int], sealed: bool, faithful: bool = True
    ) -> None:
        self.figures = figures
        self.origins = origins
        self.sealed = sealed
        self.faithful = faithful

    @property
    def identity(self) -> tuple[str, frozenset[int], bool]:
        """Population identity: figures, origins and sealed flag."""
        return (self.figures.key, self.origins, self.sealed)


class Entry:
    """One population entry: a record, its units and who exposes it."""

    __slots__ = ("record", "serial", "sole", "unit_order", "units")

    def __init__(
        self,
        serial: int,
        record: Record,
        units: frozenset[int],
        sole: int,
        unit_order: tuple[int, ...] = (),
    ) -> None:
        self.serial = serial
        self.record = record
        self.units = units
        self.sole = sole
        """The entity that exposes it when only one does (-1 once several do): all that
        the contributors ask of its exposers (§6.5 rule 1), without a set per entry."""
        self.unit_order = unit_order
        """``units`` as a tuple: cheap to walk from the start with an early exit."""


class Population:
    """Every exposed record, de-duplicated, indexed by unit."""

    def __init__(self, index: GraphIndex) -> None:
        self._index = index
        self._entries: dict[tuple[str, frozenset[int], bool], Entry] = {}
        self._in_order: list[Entry] = []
        """Every entry, by serial."""
        self._by_unit: dict[int, list[Entry]] = {}
        self._origin_units: dict[frozenset[int], frozenset[int]] = {}
        self.version = 0
        self._unit_version: dict[int, int] = {}
        self._sole_changed: dict[int, int] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def units_of(self, origins: frozenset[int]) -> frozenset[int]:
        """Union of the leaves of ``origins`` (memoized)."""
        known = self._origin_units.get(origins)
        if known is not None:
            return known
        leaves = self._index.leaves
        if len(origins) == 1:
            (only,) = origins
            units = leaves[only]
        else:
            gathered: set[int] = set()
            for origin in origins:
                gathered |= leaves[origin]
            units = frozenset(gathered)
        self._origin_units[origins] = units
        return units

    def expose(self, record: Record, exposer: int) -> bool:
        """Add ``record`` as exposed by ``exposer``; True when it is a new entry."""
        identity = record.identity
        entry = self._entries.get(identity)
        if entry is None:
            units = self.units_of(record.origins)
            entry = Entry(len(self._entries), record, units, exposer, tuple(units))
            self._entries[identity] = entry
            self._in_order.append(entry)
            self._touch(entry)
            for unit in int_objects(entry.units):
                self._by_unit.setdefault(unit, []).append(entry)
            return True
        sole = entry.sole
        if sole < 0 or sole == exposer:
            return False  # exposed by several already, or by this one
        # only the former sole exposer can see a difference: it skipped the
        # entry as its own, and may now take it (§6.5 rule 1)
        self.version += 1
        self._sole_changed[sole] = self.version
        entry.sole = -1
        return False

    def _touch(self, entry: Entry) -> None:
        self.version += 1
        version = cast(object, self.version)  # one int object for every unit
        unit_version = cast("dict[Any, object]", self._unit_version)
        for unit in int_objects(entry.units):
            unit_version[unit] = version

    def changed_since(self, target: int, units: frozenset[int], version: int) -> bool:
        """What ``target`` (with leaves ``units``) sees: did an entry touching
        ``units`` appear, or did an entry only ``target`` exposed gain another
        exposer, after ``version``?"""
        if version >= self.version:
            return False
        if self._sole_changed.get(target, 0) > version:
            return True
        get = self._unit_version.get
        return any(get(unit, 0) > version for unit in int_objects(units))

    def touching(self, units: frozenset[int]) -> list[Entry]:
        """Entries whose units meet ``units``, in population order."""
        found: dict[int, Entry] = {}
        by_unit = self._by_unit
        for unit in int_objects(units):
            for entry in by_unit.get(unit, ()):
                found[entry.serial] = entry
        return [found[serial] for serial in sorted(found)]

    def added_since(self, units: frozenset[int], size: int) -> list[Entry]:
        """Entries with serial >= ``size`` whose units meet ``units``, in serial order.

        Walks whichever is shorter: the new entries (each tested against
        ``units``), or ``units`` (each unit's list read from its end).
        """
        fresh = len(self._in_order) - size
        if fresh <= 0:
            return []
        if fresh < len(units):
            return [entry for entry in self._in_order[size:] if not entry.units.isdisjoint(units)]
        found: dict[int, Entry] = {}
        by_unit = self._by_unit
        for unit in int_objects(units):
            entries = by_unit.get(unit)
            if not entries:
                continue
            position = len(entries) - 1
            while position >= 0 and entries[position].serial >= size:
                found[entries[position].serial] = entries[position]
                position -= 1
        return [found[serial] for serial in sorted(found)]
