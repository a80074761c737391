"""NX entities and breakdowns of the VGF neural statistics found in an ETDump.

The decoded segments go through the shared NX construction (segments,
cascades, chains, source operators; chain and cascade breakdowns summed over
stripes). Each stripe also becomes a ``stripe`` entity with its own measured
breakdown. Stripes are linked to their chain and cascade by attributes, not
by parent edges: a stripe child carrying a breakdown would shadow its chain's
authoritative figures during projection and block their attribution to
source operators. A payload whose chains name no operation of the companion
model's VGF is rejected, one naming only some warned about
(``nx_common.database_match``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from perfline.core.backends.executorch.vgf_statistics import DecodedPayload
from perfline.core.backends.nx_common.aggregate import sum_stripes
from perfline.core.backends.nx_common.breakdowns import breakdown
from perfline.core.backends.nx_common.database_match import check_matches, view_matches
from perfline.core.backends.nx_common.totals import combine_totals, totals_from_stripes
from perfline.core.backends.nx_common.view import build_segments_view, local_name

STRIPE = "stripe"


@dataclass(frozen=True)
class VgfView:
    """What the VGF statistics add to the runtime result."""

    entities: list[dict[str, Any]]
    breakdowns: list[dict[str, Any]]
    entity_kinds: list[dict[str, Any]]
    total_cycles: int | float | None
    compute_cycles: int | float | None
    warnings: tuple[str, ...] = ()


def vgf_view(decoded: DecodedPayload) -> VgfView:
    """Entities, breakdowns, kinds and cycle totals of the decoded segments."""
    view = build_segments_view(decoded.segments)
    mismatch = check_matches(view_matches(decoded.segments, view.chains), "ETDump VGF chains")
    entities = list(view.entities)
    breakdowns = list(view.breakdowns)
    for segment in decoded.segments:
        prefix = f"segment_{segment.index}"
        for row in segment.stripes:
            entity_id = f"{STRIPE}/{prefix}/{row.stripe_id}"
            chain = segment.links.stripe_chain.get(row.stripe_id)
            cascade = segment.links.stripe_cascade.get(row.stripe_id)
            attributes: dict[str, Any] = {"stripe_id": row.stripe_id}
            if chain is not None:
                attributes["chain_id"] = f"chain/{prefix}/{chain}"
            if cascade is not None:
                attributes["cascade_id"] = f"cascade/{prefix}/{cascade}"
            entities.append(
                {
                    "id": entity_id,
                    "kind": STRIPE,
                    "name": f"{segment.name}/{local_name('stripe', row.stripe_id)}",
                    "placement": "NX",
                    "attributes": attributes,
                }
            )
            breakdowns.append(breakdown(entity_id, sum_stripes([row])))
    totals = combine_totals([totals_from_stripes(t) for t in view.segment_totals])
    return VgfView(
        entities=entities,
        breakdowns=breakdowns,
        entity_kinds=[*view.entity_kinds, {"id": STRIPE}],
        total_cycles=totals.total_cycles,
        compute_cycles=totals.compute_cycles,
        warnings=(mismatch,) if mismatch else (),
    )
