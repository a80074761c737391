"""Whole files the CLI commands read and write, with errors that name the file.

``read_file``: a file's bytes (input documents, through ``common.read_json``); ``read_model``:
a model file's (``perfline operators``, ``perfline export --model``).
``replace_text``: a text file written beside its target (``.NAME.tmp``) and renamed over it
when complete, so a reader never sees half a file and a failed write leaves the previous one
(the HTML report, Model Explorer node data); the target's folder must exist. Cost: one read or
one write of the file.
"""

from __future__ import annotations

from pathlib import Path

from perfline.core.errors import InputError


def read_file(path: str, expected: str) -> bytes:
    """The bytes of the file at ``path``; a folder there is not the ``expected`` file
    (``"a JSON file"``)."""
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    except IsADirectoryError:
        raise InputError(path, f"is a folder, expected {expected}") from None
    except OSError as error:
        raise InputError(path, f"cannot read: {error.strerror}") from None


def read_model(path: str) -> bytes:
    """The bytes of the model file at ``path``."""
    return read_file(path, "a model file")


def replace_text(target: str, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``target`` through a temporary file renamed over it; returns
    the written path."""
    path = Path(target)
    if not path.parent.is_dir():
        raise InputError(target, f"folder {path.parent} does not exist")
    temporary = path.with_name(f".{path.name}.tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
        temporary.replace(path)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise InputError(target, f"cannot write: {error.strerror or error}") from None
    return path
