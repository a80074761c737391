"""Python text from the user's files, parsed without a word on standard error.

A user's model source (shown in the HTML report, split into blocks for lenses) and the
exporter's name scopes in an ONNX model (a Python literal) are compiled by ``ast``; the
compiler warns about what it accepts but dislikes (``'\\d'`` in a plain string: a
``DeprecationWarning`` on Python 3.11, a ``SyntaxWarning`` from 3.12), and would print that
over perfline's own output. These functions parse as Python does and keep its warnings to
themselves. Cost: a ``warnings.catch_warnings`` block around each parse.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def _compile_warnings_hidden() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        yield


def parse_module(text: str) -> ast.Module:
    """``ast.parse(text)``, its compile warnings not shown (its errors raised as they are)."""
    with _compile_warnings_hidden():
        return ast.parse(text)


def literal(text: str) -> object:
    """``ast.literal_eval(text)``, its compile warnings not shown (its errors raised)."""
    with _compile_warnings_hidden():
        return ast.literal_eval(text)
