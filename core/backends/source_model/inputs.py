"""One input file as the pure backends see it: the path as the user gave it, and its bytes."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class InputFile:
    """One input: the path as the user gave it, and its bytes."""

    path: str
    data: bytes
