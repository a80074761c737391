"""Digests of perfline's post-processed output over a fixed document set.

The set: the differential generator's seeds ``0 .. count-1`` (each with its
``settings_for`` settings), the benchmark's NX-shaped documents (50, 200 and
1,000 chains, integer and float values) and the adversarial rows (n = 8, 12,
16, 28). Each output is written as the CLI persists it
(``json.dumps(doc, indent=4) + "\\n"``) and hashed; an error is hashed as its
message. A refactoring that must not change behaviour keeps every digest:

    python -m tests.product.differential.digests --out before.txt
    ... change ...
    python -m tests.product.differential.digests --out after.txt && diff before.txt after.txt

``--float-sums reference`` adds floats as the reference does (deviation D6 undone);
its digests are those of the code before D6 (``6693b0dc...``).

Run it from ``/`` with ``PYTHONPATH`` set to the checkout (or installed
builds) to compare the compiled and pure builds. Cost: about a minute for
the default 2,000 seeds on the compiled build.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterator
from typing import Any

from perfline.build_info import core_build
from perfline.core.errors import InputError
from perfline.core.pipeline import PipelineSettings, postprocess
from perfline.core.projection import FloatSums
from tests.support.document_generator import generate, settings_for
from tests.support.documents import adversarial_document, nx_document
from tests.support.oracle_compare import pipeline_settings


def documents(
    count: int, float_sums: FloatSums = "exact"
) -> Iterator[tuple[str, Any, PipelineSettings]]:
    """(label, document, settings) of the digest set, in a fixed order."""
    nx_rule = PipelineSettings(use_backend_defaults=True, float_sums=float_sums)
    for seed in range(count):
        yield f"seed {seed}", generate(seed), pipeline_settings(settings_for(seed), float_sums)
    for chains in (50, 200, 1000):
        for floats in (False, True):
            label = f"nx {chains}{' float' if floats else ''}"
            yield label, nx_document(chains, float_values=floats), nx_rule
    for n in (8, 12, 16, 28):
        yield f"adversarial {n}", adversarial_document(n), nx_rule


def digest_of(document: Any, settings: PipelineSettings) -> str:
    try:
        text = json.dumps(postprocess(document, settings, source="doc"), indent=4) + "\n"
    except InputError as error:
        text = "error: " + error.render()
    return hashlib.sha256(text.encode()).hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=2000, help="generated seeds (default 2000)")
    parser.add_argument("--out", help="write one 'label digest' line per document here")
    parser.add_argument(
        "--float-sums",
        choices=("exact", "reference"),
        default="exact",
        help="how projection adds floats (default exact, deviation D6; reference: as mlia "
        "0.12.3 does, the digests of the code before D6)",
    )
    args = parser.parse_args(argv)
    total = hashlib.sha256()
    lines = []
    for label, document, settings in documents(args.count, args.float_sums):
        digest = digest_of(document, settings)
        total.update(digest.encode())
        lines.append(f"{label}\t{digest}")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")
    print(
        f"{len(lines)} documents, build {core_build()}, float sums {args.float_sums}:"
        f" {total.hexdigest()}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
