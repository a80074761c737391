"""Recovery of the individual labels in an ``api_labels`` cell.

The estimator joins an operation's labels with ``;`` without escaping ``;``
inside a label, so plain splitting would cut TensorFlow names and ExecuTorch
JSON labels apart. Scanning left to right, this module takes at each position:

1. a *known* label (a debug name of the segment's SPIR-V, longest first) when
   it starts here and ends at ``;`` or the end of the text;
2. else, when the text starts with ``{``, ``[`` or ``"``, one JSON value if it
   decodes and is followed (after blanks) by ``;`` or the end;
3. else everything up to the next ``;``.

Separators and blanks between labels are skipped. Cost: O(n * k) for n
characters and k known labels starting with the current character (the known
labels are bucketed by first character).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

_PLACEHOLDER = re.compile(r"_spirv_id_(\d+)$")
_DECODER = json.JSONDecoder()


def split_labels(text: str, known: Iterable[str] = ()) -> tuple[str, ...]:
    """The labels of one ``api_labels`` cell, blanks dropped, in text order."""
    buckets: dict[str, list[str]] = {}
    for label in sorted(set(known), key=len, reverse=True):
        if label:
            buckets.setdefault(label[0], []).append(label)
    labels: list[str] = []
    position = 0
    length = len(text)
    while position < length:
        if text[position] == ";" or text[position].isspace():
            position += 1
            continue
        end = _known_end(text, position, buckets) or _json_end(text, position)
        if end is None:
            next_separator = text.find(";", position)
            end = length if next_separator < 0 else next_separator
        label = text[position:end].strip()
        if label:
            labels.append(label)
        position = end
    return tuple(labels)


def placeholder_result_id(label: str) -> int | None:
    """The SPIR-V result id of a ``TOSA<OP>_spirv_id_<N>`` placeholder label, else ``None``."""
    match = _PLACEHOLDER.search(label)
    return int(match.group(1)) if match else None


def _known_end(text: str, position: int, buckets: dict[str, list[str]]) -> int | None:
    for label in buckets.get(text[position], ()):
        end = position + len(label)
        if text.startswith(label, position) and (end == len(text) or text[end] == ";"):
            return end
    return None


def _json_end(text: str, position: int) -> int | None:
    if text[position] not in '{["':
        return None
    try:
        _, end = _DECODER.raw_decode(text, position)
    except (ValueError, RecursionError):
        return None
    rest = end
    while rest < len(text) and text[rest].isspace():
        rest += 1
    if rest == len(text) or text[rest] == ";":
        return end
    return None
