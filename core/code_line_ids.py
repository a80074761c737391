"""The identity of a derived ``code_line``: its id and display name.

For an exact location (``file``, ``line``):

* basename B: the shorter of the Windows-style and the POSIX-style final path
  component (ties go to POSIX), so ``C:\\x\\my model.py`` gives ``my model.py``
  and ``dir/`` gives ``dir``;
* name: ``B:line`` as is;
* id: ``code_line/S-H`` where S is ``B:line`` with every run of characters
  outside ``[A-Za-z0-9_.:-]`` replaced by ``_`` and leading/trailing ``_``
  stripped (``line`` if nothing is left), and H the first 12 hex digits of the
  SHA-256 of the UTF-8 compact JSON text ``["file",line]`` (non-ASCII kept).

No path normalization: ``./a.py`` and ``/p/a.py`` are different files.
"""

from __future__ import annotations

import hashlib
import json
import re
from json.encoder import encode_basestring
from pathlib import PurePosixPath, PureWindowsPath
from typing import Final

_UNSAFE = re.compile(r"[^A-Za-z0-9_.:-]+")

CODE_LINE_PREFIX: Final = "code_line/"
"""How every derived id begins."""


def location_basename(file: str) -> str:
    """The final path component, read both as a Windows and as a POSIX path.

    A plain relative or absolute POSIX path (no backslash, no colon, not
    starting with two slashes, ending in an ordinary component) reads the same
    both ways: its last component, taken directly; anything else goes through
    ``pathlib``.
    """
    if "\\" not in file and ":" not in file and not file.startswith("//"):
        last = file.rpartition("/")[2]
        if last and last != "." and last != "..":
            return last
    windows = PureWindowsPath(file).name
    posix = PurePosixPath(file).name
    return windows if len(windows) < len(posix) else posix


def code_line_name(file: str, line: int) -> str:
    """Display name ``<basename>:<line>``."""
    return f"{location_basename(file)}:{line}"


def location_digest(file: str, line: int) -> str:
    """First 12 hex digits of SHA-256 over the compact JSON ``["file",line]``."""
    if type(file) is str and type(line) is int:
        # What json.dumps gives for these two types, without building an encoder.
        text = f"[{encode_basestring(file)},{int.__repr__(line)}]"
    else:
        text = json.dumps([file, line], separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def code_line_id(file: str, line: int, name: str | None = None) -> str:
    """The derived entity id of the location (``name``: its ``code_line_name``,
    when the caller already has it)."""
    if name is None:
        name = code_line_name(file, line)
    safe = _UNSAFE.sub("_", name).strip("_") or "line"
    return f"{CODE_LINE_PREFIX}{safe}-{location_digest(file, line)}"
