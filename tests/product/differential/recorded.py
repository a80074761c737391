"""The reference's recorded answers on generated documents where float rounding decides.

Rounding-only conflicts depend on the order in which a cover's figures are
added up. These seeds of the differential generator are the ones on which that
order decides the output (perfline disagreed with mlia 0.12.3 on them until it
added covers up in the reference's order, ``perfline.core.projection.float_covers``),
so the suite keeps the reference's answers for them and runs without the oracle.

    python -m tests.product.differential.recorded --python ORACLE_PYTHON

writes ``tests/data/differential/float_order.json.gz``: for each seed, its
settings label and the reference's output document (canonical JSON), made by
running the reference on the generated document; and
``tests/data/differential/float_nx.json.gz``: the reference's output on the
benchmark's NX-shaped documents of ``FLOAT_NX_CHAINS`` chains with float values
(``benchmarks/core_pipeline.py --float-values``), with the NX default collapse
rule, where the covers of the widest targets are far too many to list.
"""

from __future__ import annotations

import gzip
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tests.support import locations
from tests.support.document_generator import Settings, generate, settings_for
from tests.support.oracle_compare import canonical, run_oracle

DATA = locations.DATA / "differential"
RECORDED = DATA / "float_order.json.gz"
RECORDED_NX = DATA / "float_nx.json.gz"
FLOAT_NX_CHAINS = (50, 200)

FLOAT_ORDER_SEEDS = (
    2, 78, 117, 153, 161, 181, 182, 205, 212, 228, 250, 352, 384, 388, 457, 492, 516, 577, 611,
    612, 670, 747, 755, 782, 806, 814, 837, 852, 853, 859, 863, 869, 919, 927, 951, 997, 1003,
    1014, 1077, 1115, 1133, 1147, 1227, 1280, 1284, 1287, 1321, 1336, 1339, 1354, 1386, 1423,
    1512, 1527, 1529, 1549, 1554, 1569, 1584, 1591, 1616, 1634, 1642, 1645, 1653, 1702, 1705,
    1710, 1745, 1763, 1804, 1828, 1841, 1885, 1942, 1962, 1967, 1992,
)  # fmt: skip
"""The 78 of the first 2,000 seeds whose output changed when covers started being
added up in the reference's order (each now agrees with the reference)."""


def load_recorded(path: Path = RECORDED) -> dict[int, dict[str, Any]]:
    """Seed (or chains) -> {"settings": label, "output": the reference's output document}."""
    with gzip.open(path, "rt", encoding="utf-8") as stream:
        data: dict[str, dict[str, Any]] = json.load(stream)
    return {int(seed): entry for seed, entry in data.items()}


def float_nx_document(chains: int) -> dict[str, Any]:
    """The benchmark's NX-shaped document with float values."""
    from tests.support.documents import nx_document

    document: dict[str, Any] = nx_document(chains, float_values=True)
    return document


def _write(path: Path, recorded: dict[str, dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(recorded, sort_keys=True, separators=(",", ":"))
    with gzip.GzipFile(path, "wb", mtime=0) as stream:
        stream.write(text.encode("utf-8"))
    print(f"{path}: {len(recorded)} documents")


def record(python: str, seeds: Sequence[int]) -> dict[str, dict[str, Any]]:
    """Run the reference on the seeds' documents; fail if it refuses one."""
    requests = [(generate(seed), settings_for(seed)) for seed in seeds]
    answers = run_oracle(python, requests, 1800)
    recorded: dict[str, dict[str, Any]] = {}
    for seed, (_, settings), answer in zip(seeds, requests, answers, strict=True):
        if answer.output is None:
            raise SystemExit(f"seed {seed}: the reference failed: {answer.error}")
        recorded[str(seed)] = {
            "settings": settings.label,
            "output": json.loads(canonical(answer.output)),
        }
    return recorded


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description="record the reference's float-order answers")
    parser.add_argument("--python", required=True, help="a Python with mlia 0.12.3")
    args = parser.parse_args(argv)
    _write(RECORDED, record(args.python, FLOAT_ORDER_SEEDS))
    nx_settings = Settings(collapse=(), use_backend_defaults=True)
    requests = [(float_nx_document(chains), nx_settings) for chains in FLOAT_NX_CHAINS]
    answers = run_oracle(args.python, requests, 3600)
    recorded: dict[str, dict[str, Any]] = {}
    for chains, answer in zip(FLOAT_NX_CHAINS, answers, strict=True):
        if answer.output is None:
            raise SystemExit(f"{chains} chains: the reference failed: {answer.error}")
        output = json.loads(canonical(answer.output))
        recorded[str(chains)] = {"settings": nx_settings.label, "output": output}
    _write(RECORDED_NX, recorded)
    return 0


if __name__ == "__main__":
    sys.exit(main())
