"""Build script. The package metadata lives in ``pyproject.toml``; this file only adds the
optional compiled build of the core post-processing.

With ``PERFLINE_COMPILE=1`` (and mypy, which ships mypyc, importable in the build
environment: ``pip install --no-build-isolation``), the pure modules the post-processing
runs through are compiled to C extension modules by mypyc from the very same, type-checked
sources, and the daemon's arena cache (``server/arena_cache.c``), the JSON writer's text
check (``core/json_scan.c``) and the JSON reader's string sharing (``core/shared_strings.c``)
are built beside them.
Nothing else changes: the ``.py`` files are installed too, and each compiled module gives
exactly what its source gives (``tests/`` runs against both builds in CI).
Without the variable, or where no C compiler is found, the install is pure Python.

Editable installs stay pure Python whatever the variable says: compiled modules next
to the sources would shadow every later edit of them.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

#: The modules compiled in the compiled build: the core post-processing end to end.
COMPILED_MODULES = [
    "perfline/core/pipeline.py",
    "perfline/core/validation.py",
    "perfline/core/document_canonical.py",
    "perfline/core/pipeline_memo.py",
    "perfline/core/graph.py",
    "perfline/core/mypyc_idioms.py",
    "perfline/core/kinds.py",
    "perfline/core/collapse.py",
    "perfline/core/collapse_contract.py",
    "perfline/core/collapse_match.py",
    "perfline/core/code_lines.py",
    "perfline/core/code_line_plan.py",
    "perfline/core/code_line_ids.py",
    "perfline/core/code_line_processed.py",
    "perfline/core/projection/__init__.py",
    "perfline/core/projection/authority.py",
    "perfline/core/projection/closed_covers.py",
    "perfline/core/projection/components.py",
    "perfline/core/projection/contributors.py",
    "perfline/core/projection/derivations.py",
    "perfline/core/projection/exact_sums.py",
    "perfline/core/projection/figure_arithmetic.py",
    "perfline/core/projection/figure_keys.py",
    "perfline/core/projection/figure_ledger.py",
    "perfline/core/projection/figure_sets.py",
    "perfline/core/projection/float_covers.py",
    "perfline/core/projection/frontiers.py",
    "perfline/core/projection/index.py",
    "perfline/core/projection/origin_shapes.py",
    "perfline/core/projection/recipes.py",
    "perfline/core/projection/records.py",
    "perfline/core/projection/scopes.py",
    "perfline/core/projection/searches.py",
    "perfline/core/projection/stages.py",
    "perfline/core/projection/value_refresh.py",
    "perfline/core/projection/value_rows.py",
]


def _editable() -> bool:
    return any(arg in ("editable_wheel", "develop") for arg in sys.argv)


def _compiled_extensions() -> list[Any]:
    if os.environ.get("PERFLINE_COMPILE") != "1" or _editable():
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        print("perfline: mypyc not importable; building pure Python", file=sys.stderr)
        return []
    return [
        *mypycify(COMPILED_MODULES, opt_level="3"),
        _arena_cache(),
        _json_scan(),
        _shared_strings(),
    ]


def _arena_cache() -> Any:
    """The daemon's arena cache (``perfline/server/arena_retention.py`` says why), a
    small C module built with the compiled core."""
    from setuptools import Extension

    return Extension("perfline.server._arena_cache", ["perfline/server/arena_cache.c"])


def _json_scan() -> Any:
    """The JSON writer's one-pass check of msgspec's text (``perfline/core/json_codec.py``
    says what it checks), a small C module built with the compiled core."""
    from setuptools import Extension

    return Extension("perfline.core._json_scan", ["perfline/core/json_scan.c"])


def _shared_strings() -> Any:
    """The JSON reader's sharing of equal string values (``perfline/core/json_codec.py``,
    ``read_json_input``), a small C module built with the compiled core."""
    from setuptools import Extension

    return Extension("perfline.core._shared_strings", ["perfline/core/shared_strings.c"])


class _OptionalBuildExt(build_ext):
    """Falls back to the pure-Python modules when the C build fails (no compiler)."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # setuptools raises several kinds here
            print(f"perfline: compiled build failed ({error}); pure Python", file=sys.stderr)
            self.extensions = []


setup(ext_modules=_compiled_extensions(), cmdclass={"build_ext": _OptionalBuildExt})
