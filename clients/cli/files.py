"""Whole files the CLI commands read and write, through ``perfline.server.file_access``,
with errors that name the file.

``read_file``: a file's bytes (input documents, through ``common.read_json``); ``read_model``:
a model file's (``perfline operators``, ``perfline export --model``); ``read_config``: a
``perfline.toml``. The paths are those a person typed (``Root.user_given()``): read as
given, regular files only, bounded, with a deadline. ``replace_text``: a text file written
to a fresh random name beside its target and renamed over it when complete, so a reader
never sees half a file, a failed write leaves the previous one, and a planted link (at
the target or at any temporary name) is never written through (the HTML report, Model
Explorer node data, SARIF and JUnit). Cost: one read or one write of the file.
"""

from __future__ import annotations

import os
from pathlib import Path

from perfline.core.errors import InputError
from perfline.server.file_access import Root, read_bytes, read_text, write_text


def read_file(path: str, expected: str) -> bytes:
    """The bytes of the file at ``path``; a folder there is not the ``expected`` file
    (``"a JSON file"``)."""
    try:
        return read_bytes(path, root=Root.user_given(), source=path)
    except InputError:
        if not os.path.lexists(path):
            raise InputError(path, "no such file") from None
        if os.path.isdir(path):
            raise InputError(path, f"is a folder, expected {expected}") from None
        raise


def read_model(path: str) -> bytes:
    """The bytes of the model file at ``path``."""
    return read_file(path, "a model file")


def read_config(path: Path) -> str:
    """The text of a ``perfline.toml`` (UTF-8, strictly)."""
    return read_text(path, root=Root.user_given(), kind="config", errors="strict")


def replace_text(target: str, text: str, *, parents: bool = False) -> Path:
    """Write ``text`` (UTF-8) to ``target`` through a new file renamed over it (``parents``:
    make the missing folders above it); returns the written path."""
    return write_text(target, text, root=Root.user_given(), parents=parents, source=target)
