"""A user's Python text is parsed without the compiler's warnings reaching stderr."""

from __future__ import annotations

import ast
import warnings

import pytest

from perfline.core.python_syntax import literal, parse_module
from perfline.core.report_html.source_text import function_names

#: A model file as people write them: a regular expression in a plain string.
SOURCE = 'import re\n\n\ndef forward(x):\n    pattern = re.compile("\\d+")\n    return x\n'


def _quiet(action: object) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert callable(action)
        action()
    return [f"{w.category.__name__}: {w.message}" for w in caught]


def test_plain_ast_warns_on_this_source() -> None:
    # the premise: without the guard the compiler does warn (else the tests below prove nothing)
    assert _quiet(lambda: ast.parse(SOURCE)) != []


def test_parse_module_keeps_the_tree_and_drops_the_warning() -> None:
    assert _quiet(lambda: parse_module(SOURCE)) == []
    tree = parse_module(SOURCE)
    assert [type(node).__name__ for node in tree.body] == ["Import", "FunctionDef"]


def test_literal_reads_as_python_does() -> None:
    assert _quiet(lambda: literal("['a\\_b', 'c']")) == []
    assert literal("['a\\_b', 'c']") == ["a\\_b", "c"]


def test_errors_are_still_raised() -> None:
    with pytest.raises(SyntaxError):
        parse_module("def (:\n")
    with pytest.raises(ValueError):
        literal("f(x)")


def test_the_html_report_names_functions_quietly() -> None:
    assert _quiet(lambda: function_names(SOURCE)) == []
    assert function_names(SOURCE)[5] == "forward"
