"""Batch runner for the reference (mlia 0.12.3), executed by the oracle's Python.

Standalone: standard library plus mlia, nothing from perfline. Reads JSON lines
``{"document": {...}, "collapse": ["KIND:ATTR:GLOB[,GLOB]", ...]}`` on stdin and
writes one JSON line per request: ``{"output": {...}}`` or ``{"error": "..."}``
(the reference's message) or ``{"crash": "..."}`` (any other exception). The
NX default rule is passed as a configured rule, which for NX producers is what
mlia's registry lookup would add.
"""

from __future__ import annotations

import json
import logging
import sys

from mlia.core.output_postprocessing import (  # type: ignore[import-not-found]
    postprocess_standardized_output,
)
from mlia.core.output_validation import SchemaValidationError  # type: ignore[import-not-found]
from mlia.core.settings import (  # type: ignore[import-not-found]
    ApplicationSettings,
    CollapseRule,
    FilteringSettings,
)


def rule(text: str) -> CollapseRule:
    kind, attribute, globs = text.split(":", 2)
    return CollapseRule(
        kind=kind, attribute=attribute, globs=tuple(g for g in globs.split(",") if g)
    )


def main() -> int:
    logging.disable(logging.CRITICAL)
    settings_cache: dict[tuple[str, ...], ApplicationSettings] = {}
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        key = tuple(request.get("collapse", ()))
        settings = settings_cache.get(key)
        if settings is None:
            settings = ApplicationSettings(
                filtering=FilteringSettings(collapse=tuple(rule(t) for t in key))
            )
            settings_cache[key] = settings
        try:
            reply = {"output": postprocess_standardized_output(request["document"], settings)}
        except SchemaValidationError as error:
            reply = {"error": str(error)}
        except Exception as error:
            reply = {"crash": f"{type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
