"""From runtime debug handles to exported-program operators, with a confidence.

An instruction's debug handles select edge-dialect nodes; each edge node is
traced back to the exported program's node it was made from (its ``from_node``
entry carrying the exported graph's id, else the deepest ``from_node`` entry
whose name is an exported node). The exported node's name is the PT2
identity ``source_operator/<fx node name>``.

Confidence of one observation (decided here, never guessed further):

* ``exact``: every handle resolves and they all lead to one source operator,
  and no other observation of the same kind covers that operator;
* ``partial``: some handle does not resolve, or the operator is covered by
  several observations (each sees only part of it);
* ``shared``: the handles lead to several source operators (one timing for
  all of them, e.g. a delegate call);
* ``unmapped``: nothing resolves (no handles, or a delegate-internal event
  the ETRecord does not map).

Edge nodes that trace back to no exported node (e.g. quantize/dequantize
nodes inserted by a quantizer) are ignored rather than counted as missing.
Cost: O(edge nodes x from_node depth) once, then O(handles) per observation.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from perfline.core.backends.executorch.etrecord import ETRecord, GraphNode

EXACT = "exact"
SHARED = "shared"
PARTIAL = "partial"
UNMAPPED = "unmapped"


@dataclass(frozen=True)
class HandleIndex:
    """Debug handle -> exported source-operator names, for one method."""

    handle_sources: Mapping[int, tuple[str, ...]]
    known_handles: frozenset[int]


@dataclass(frozen=True)
class Resolution:
    """What a set of debug handles resolves to."""

    handles: tuple[int, ...]
    sources: tuple[str, ...]
    missing_handles: tuple[int, ...]

    def confidence(self) -> str:
        """``unmapped``, ``partial``, ``shared`` or ``exact`` by the rules above."""
        if not self.sources:
            return UNMAPPED
        if self.missing_handles:
            return PARTIAL
        if len(self.sources) > 1:
            return SHARED
        return EXACT


def source_name(node: GraphNode, exported: frozenset[str], graph_id: int | None) -> str | None:
    """The exported-program node an edge node was made from, if any."""
    if graph_id is not None:
        for name, origin_graph in node.origins:
            if origin_graph == graph_id and name in exported:
                return name
    for name, _ in reversed(node.origins):
        if name in exported:
            return name
    return node.name if node.name in exported else None


def build_handle_index(record: ETRecord, method: str) -> HandleIndex:
    """The handle -> source-operator index of ``method``'s edge graph."""
    exported = frozenset(node.name for node in record.exported_nodes)
    sources: dict[int, list[str]] = {}
    known: set[int] = set()
    for node in record.edge_graphs.get(method, ()):
        name = source_name(node, exported, record.export_graph_id)
        for handle in node.debug_handles:
            known.add(handle)
            names = sources.setdefault(handle, [])
            if name is not None and name not in names:
                names.append(name)
    return HandleIndex(
        handle_sources={handle: tuple(names) for handle, names in sources.items()},
        known_handles=frozenset(known),
    )


def resolve(index: HandleIndex, handles: Iterable[int]) -> Resolution:
    """Resolve debug handles (duplicates removed, first-seen order kept)."""
    unique = tuple(dict.fromkeys(handles))
    sources: list[str] = []
    missing: list[int] = []
    for handle in unique:
        if handle not in index.known_handles:
            missing.append(handle)
            continue
        for name in index.handle_sources.get(handle, ()):
            if name not in sources:
                sources.append(name)
    return Resolution(handles=unique, sources=tuple(sources), missing_handles=tuple(missing))
