"""Which build of the core post-processing is running: compiled by mypyc or pure Python.

``setup.py`` compiles the post-processing modules when asked (``PERFLINE_COMPILE=1``);
the version banner and the benchmarks say which build they ran.
"""

from __future__ import annotations

import importlib.machinery


def core_build() -> str:
    """``"compiled (mypyc)"`` when the pipeline module is an extension module, else
    ``"pure Python"``."""
    from perfline.core import pipeline

    location = getattr(pipeline, "__file__", "") or ""
    compiled = location.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))
    return "compiled (mypyc)" if compiled else "pure Python"
