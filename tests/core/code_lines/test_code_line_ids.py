"""The code_line id scheme: basename rule, sanitizing, 12-hex SHA-256 of
``["file",line]``. Expected ids were observed on the reference (mlia 0.12.3)."""

from __future__ import annotations

import hashlib

import pytest

from perfline.core.code_line_ids import (
    code_line_id,
    code_line_name,
    location_basename,
    location_digest,
)

OBSERVED = [
    ("/home/dev/proj/model.py", 12, "model.py:12", "code_line/model.py:12-0c990a50896d"),
    ("/p/helper.py", 7, "helper.py:7", "code_line/helper.py:7-f529c3735ef4"),
    ("./helper.py", 7, "helper.py:7", "code_line/helper.py:7-04a473278c89"),
    ("C:\\Users\\dev\\my model.py", 3, "my model.py:3", "code_line/my_model.py:3-d66757064944"),
    ("/p/@@.py", 4, "@@.py:4", "code_line/.py:4-59d53a589c8f"),
    ("/p/modèle.py", 3, "modèle.py:3", "code_line/mod_le.py:3-fe1e32b752fd"),
    ("/p/日本.py", 8, "日本.py:8", "code_line/.py:8-653904e398f7"),
    ("dir/", 2, "dir:2", "code_line/dir:2-d8a2f8691bd2"),
    ("C:foo.py", 1, "foo.py:1", "code_line/foo.py:1-28810893b001"),
    ("/x/a\\b.py", 5, "b.py:5", "code_line/b.py:5-9af9c2a82563"),
    ("a\\bb/c.py", 6, "c.py:6", "code_line/c.py:6-e6f2f1c033bd"),
    ("\\\\srv\\share\\m.py", 7, "m.py:7", "code_line/m.py:7-cd31056bb0de"),
    ("___", 9, "___:9", "code_line/:9-b00f00bc5ed4"),
    ("/p/a b  c.py", 10, "a b  c.py:10", "code_line/a_b_c.py:10-1ac54b3717f0"),
    ("C:\\", 11, ":11", "code_line/:11-8e486f3cbaeb"),
    ("/p/x.py", 2**40, "x.py:1099511627776", "code_line/x.py:1099511627776-4ba7fce22a82"),
]


@pytest.mark.parametrize(("file", "line", "name", "entity_id"), OBSERVED)
def test_ids_and_names_match_the_reference(file: str, line: int, name: str, entity_id: str) -> None:
    assert code_line_name(file, line) == name
    assert code_line_id(file, line) == entity_id


def test_basename_takes_the_shorter_reading_ties_to_posix() -> None:
    assert location_basename("C:\\x\\y.py") == "y.py"
    assert location_basename("/a/b.py") == "b.py"
    assert location_basename("plain.py") == "plain.py"


def test_digest_is_over_compact_json_with_non_ascii_unescaped() -> None:
    text = '["/p/modèle.py",3]'
    assert location_digest("/p/modèle.py", 3) == hashlib.sha256(text.encode()).hexdigest()[:12]
