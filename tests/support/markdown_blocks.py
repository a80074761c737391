"""Fenced code blocks of the user documentation, with the marker comment before each.

A block may be preceded (on the line just above its fence) by an HTML comment
``<!-- perfline-doc: WORDS -->``, invisible when the Markdown is rendered, that tells the
tests what to do with it (``workspace NAME``: the ``perfline.toml`` of a workspace;
``run NAME``: commands to run there; ``neovim``: the snippet the headless Neovim test runs).
Also the shell commands of a block (continuation lines joined, comments dropped).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tests.support.locations import REPO

DOCS = REPO / "docs"

_FENCE = re.compile(r"^```([A-Za-z0-9_+-]*)\s*$")
_MARKER = re.compile(r"^<!--\s*perfline-doc:\s*(.*?)\s*-->\s*$")


@dataclass(frozen=True)
class Block:
    """A fenced block: its language, text, 1-based line of the opening fence and marker."""

    language: str
    text: str
    line: int
    marker: tuple[str, ...] = ()


def blocks(path: Path) -> list[Block]:
    """Every fenced block of ``path``; an unclosed fence is an error (the test says where)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    index = 0
    while index < len(lines):
        match = _FENCE.match(lines[index])
        if not match:
            index += 1
            continue
        start = index
        marker: tuple[str, ...] = ()
        if start > 0:
            comment = _MARKER.match(lines[start - 1])
            if comment:
                marker = tuple(comment.group(1).split())
        index += 1
        body: list[str] = []
        while index < len(lines) and lines[index].rstrip() != "```":
            body.append(lines[index])
            index += 1
        if index == len(lines):
            raise AssertionError(f"{path.name}:{start + 1}: code block never closed")
        found.append(Block(match.group(1), "\n".join(body) + "\n", start + 1, marker))
        index += 1
    return found


def markers(path: Path) -> list[tuple[int, tuple[str, ...]]]:
    """Every marker comment of ``path`` with its line (to catch one left before no block)."""
    result = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = _MARKER.match(line)
        if match:
            result.append((number, tuple(match.group(1).split())))
    return result


def shell_commands(block: Block) -> list[str]:
    """The commands of a shell block: ``\\`` continuations joined, comment lines dropped."""
    commands: list[str] = []
    pending = ""
    for raw in block.text.splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        commands.append(pending + line)
        pending = ""
    if pending:
        commands.append(pending.strip())
    return commands
