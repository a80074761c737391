"""Normalisation of estimator memory and section names to lowercase snake case.

``SystemCache`` -> ``system_cache``, ``DRAM`` -> ``dram``, ``L1`` -> ``l1``,
``InputReader`` -> ``input_reader``, ``nx_active`` -> ``nx_active``. An
underscore goes before an upper-case letter that starts a capitalised word or
follows a lower-case letter or digit; runs of other characters become one
underscore; the result is trimmed of underscores and lower-cased.
"""

from __future__ import annotations

import re

_WORD_START = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NON_ALNUM = re.compile(r"[^A-Za-z0-9]+")


def snake_case(name: str) -> str:
    """``name`` in lowercase snake case (see the module docstring)."""
    spaced = _WORD_START.sub("_", name)
    return _NON_ALNUM.sub("_", spaced).strip("_").lower()
