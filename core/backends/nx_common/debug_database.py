"""The debug database of a structured capture (``debug_database.bin``).

Payload (after the optional frame, see ``info``): UTF-8 text, trailing NULs
removed, sections separated by ``----`` lines; each section is a header line
(tab-separated, or blank-separated without tabs) and tab-separated rows. The
seven sections, in order: ``tosa_ops`` (id, tosa_op, api_labels),
``api_labels``, ``fused_ops`` (id, tosa_op_ids), ``cascade_ops`` (id,
fused_op_ids; these are *chains*), ``cascade_groups``, ``stripe_ops`` (id,
op_id, cascade_op_id) and ``stripe_indexes`` (id, stripe_op_id, or id,
stripe_op_indexs). ``api_labels`` and ``cascade_groups`` are not used.

Links: statistics block (stripe) -> ``stripe_indexes`` -> ``stripe_ops`` row ->
chain (``op_id``) and cascade (``cascade_op_id``); chain -> fused operations ->
TOSA operations (type and raw label cell). Every link still missing gets a
synthetic id: chain ``chain_<stripe>``, cascade ``cascade_<stripe>``, fused
``fused_<stripe>``, TOSA ``tosa_<stripe>`` (type ``NeuralOp``, label
``profiling-stripe/<stripe>``). The result is the shared NX ``DebugLinks``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from perfline.core.backends.nx_common.records import DebugLinks, TosaOperation
from perfline.core.backends.nx_common.statistics_info import DEBUG_DATABASE_MAGIC, unframe
from perfline.core.errors import InputError, Problem

#: The label of a synthetic TOSA operation (``<prefix><stripe>``): names no operation.
SYNTHETIC_LABEL_PREFIX = "profiling-stripe/"

SECTIONS = (
    "tosa_ops",
    "api_labels",
    "fused_ops",
    "cascade_ops",
    "cascade_groups",
    "stripe_ops",
    "stripe_indexes",
)


@dataclass(frozen=True)
class Section:
    """One table: its columns and rows (with their 1-based line numbers in the payload)."""

    name: str
    columns: tuple[str, ...]
    rows: tuple[tuple[int, tuple[str, ...]], ...]


def read_sections(data: bytes, source: str) -> dict[str, Section]:
    """The seven sections of a capture debug database."""
    payload = unframe(data, DEBUG_DATABASE_MAGIC, source).rstrip(b"\0")
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(source, Problem(f"byte {error.start}", "not UTF-8 text")) from None
    chunks: list[list[tuple[int, str]]] = [[]]
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip() == "----":
            chunks.append([])
        elif line.strip():
            chunks[-1].append((number, line))
    if len(chunks) < len(SECTIONS):
        raise InputError(
            source,
            Problem(
                "sections",
                f"expected {len(SECTIONS)} sections separated by '----' lines "
                f"({', '.join(SECTIONS)}), found {len(chunks)}",
            ),
        )
    sections: dict[str, Section] = {}
    for name, chunk in zip(SECTIONS, chunks, strict=False):
        if not chunk:
            raise InputError(source, Problem(f"section {name}", "missing its header line"))
        header_line = chunk[0][1]
        columns = tuple(
            c.strip()
            for c in (header_line.split("\t") if "\t" in header_line else header_line.split())
        )
        rows: list[tuple[int, tuple[str, ...]]] = []
        for number, line in chunk[1:]:
            cells = tuple(cell.strip() for cell in line.split("\t"))
            if len(cells) != len(columns):
                raise InputError(
                    source,
                    Problem(
                        f"line {number} (section {name})",
                        f"expected {len(columns)} tab-separated cells ({', '.join(columns)}), "
                        f"found {len(cells)}",
                    ),
                )
            rows.append((number, cells))
        sections[name] = Section(name, columns, tuple(rows))
    return sections


def _list(cell: str) -> tuple[str, ...]:
    return tuple(item.strip() for item in cell.split(";") if item.strip())


def _column(section: Section, wanted: str, source: str) -> int:
    if wanted not in section.columns:
        raise InputError(
            source,
            Problem(
                f"section {section.name}",
                f"missing column {wanted!r} (columns: {', '.join(section.columns)})",
            ),
        )
    return section.columns.index(wanted)


def _table(section: Section, value: str, source: str) -> dict[str, str]:
    key_at = _column(section, "id", source)
    value_at = _column(section, value, source)
    return {cells[key_at]: cells[value_at] for _, cells in section.rows}


def _block_index(cell: str, source: str, where: str) -> int:
    try:
        return int(cell)
    except ValueError:
        raise InputError(
            source, Problem(where, f"expected an integer index, got {cell!r}")
        ) from None


def debug_links(data: bytes, stripes: Sequence[str], source: str) -> DebugLinks:
    """The stripe -> chain/cascade -> fused -> TOSA links of ``stripes``."""
    sections = read_sections(data, source)
    tosa = sections["tosa_ops"]
    tosa_type = _table(tosa, "tosa_op", source)
    tosa_labels = _table(tosa, "api_labels", source)
    fused_tosa_cells = _table(sections["fused_ops"], "tosa_op_ids", source)
    chain_fused_cells = _table(sections["cascade_ops"], "fused_op_ids", source)
    stripe_ops = sections["stripe_ops"]
    op_at = _column(stripe_ops, "op_id", source)
    cascade_at = _column(stripe_ops, "cascade_op_id", source)
    id_at = _column(stripe_ops, "id", source)
    stripe_rows = {cells[id_at]: (cells[op_at], cells[cascade_at]) for _, cells in stripe_ops.rows}
    indexes = sections["stripe_indexes"]
    index_map: dict[int, str] = {}
    if "stripe_op_id" in indexes.columns:
        key_at = _column(indexes, "id", source)
        target_at = indexes.columns.index("stripe_op_id")
        for number, cells in indexes.rows:
            block = _block_index(cells[key_at], source, f"line {number} (section stripe_indexes)")
            index_map[block] = cells[target_at]
    elif "stripe_op_indexs" in indexes.columns:
        listed_at = indexes.columns.index("stripe_op_indexs")
        for number, cells in indexes.rows:
            for item in _list(cells[listed_at]):
                block = _block_index(item, source, f"line {number} (section stripe_indexes)")
                index_map.setdefault(block, item)
    else:
        raise InputError(
            source,
            Problem(
                "section stripe_indexes", "expected a 'stripe_op_id' or 'stripe_op_indexs' column"
            ),
        )
    stripe_chain: dict[str, str] = {}
    stripe_cascade: dict[str, str] = {}
    chain_fused: dict[str, tuple[str, ...]] = {}
    fused_tosa: dict[str, tuple[str, ...]] = {}
    operations: dict[str, TosaOperation] = {}
    for stripe in stripes:
        row = stripe_rows.get(index_map.get(int(stripe), ""))
        chain = row[0] if row and row[0] else f"chain_{stripe}"
        cascade = row[1] if row and row[1] else f"cascade_{stripe}"
        stripe_chain[stripe] = chain
        stripe_cascade[stripe] = cascade
        if chain in chain_fused:
            continue
        fused_ids = _list(chain_fused_cells.get(chain, "")) or (f"fused_{stripe}",)
        chain_fused[chain] = fused_ids
        for fused in fused_ids:
            if fused in fused_tosa:
                continue
            tosa_ids = _list(fused_tosa_cells.get(fused, "")) or (f"tosa_{stripe}",)
            fused_tosa[fused] = tosa_ids
            for tosa_id in tosa_ids:
                if tosa_id in operations:
                    continue
                if tosa_id in tosa_type:
                    operations[tosa_id] = TosaOperation(
                        tosa_id, tosa_type[tosa_id] or None, tosa_labels[tosa_id]
                    )
                else:
                    operations[tosa_id] = TosaOperation(
                        tosa_id, "NeuralOp", f"{SYNTHETIC_LABEL_PREFIX}{stripe}"
                    )
    return DebugLinks(
        stripe_chain=stripe_chain,
        stripe_cascade=stripe_cascade,
        chain_fused=chain_fused,
        fused_tosa=fused_tosa,
        nx_operations=operations,
    )
