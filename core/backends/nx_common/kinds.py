"""The entity kinds an NX performance result declares (estimator and measured alike).

All five declarations are always present, even when a kind is unused, so the
same relationships are allowed for every NX result. ``source_operator`` and
``code_stack`` are well-known kinds and are not declared.
"""

from __future__ import annotations

from typing import Any

SEGMENT = "segment"
CASCADE = "cascade"
CHAIN = "chain"
PERFORMANCE_GROUP = "performance_group"
NN_MODULE = "nn_module"


def performance_entity_kinds() -> list[dict[str, Any]]:
    """A fresh list of the five NX kind declarations."""
    return [
        {"id": SEGMENT, "child_kinds": [CASCADE, "source_operator"]},
        {"id": CASCADE, "parent_kinds": [SEGMENT], "child_kinds": [CHAIN]},
        {
            "id": CHAIN,
            "parent_kinds": [CASCADE],
            "child_kinds": ["source_operator", PERFORMANCE_GROUP],
        },
        {"id": PERFORMANCE_GROUP, "parent_kinds": [CHAIN], "child_kinds": ["source_operator"]},
        {
            "id": NN_MODULE,
            "parent_kinds": [NN_MODULE],
            "child_kinds": [NN_MODULE, "source_operator"],
        },
    ]
