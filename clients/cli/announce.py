"""``wrote PATH``: every file a command writes is announced on stderr, one line each.

The writers (``output``, ``files``, ``html_output``, the CI reports of ``check``) write; the
commands call ``wrote`` once a file is in place, so stdout stays the report (or the JSON of
``--json``). Cost: one line on stderr per file.
"""

from __future__ import annotations

from pathlib import Path

import click


def wrote(path: str | Path, detail: str = "") -> None:
    """Say on stderr that ``path`` was written (``detail``: what it holds, after a colon)."""
    click.echo(f"wrote {path}: {detail}" if detail else f"wrote {path}", err=True)
