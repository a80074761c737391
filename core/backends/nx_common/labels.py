"""Recovery of the individual labels in an ``api_labels`` cell.

The estimator joins an operation's labels with ``;`` without escaping ``;``
inside a label, so plain splitting would cut TensorFlow names and ExecuTorch
JSON labels apart. Scanning left to right, this module takes at each position:

1. a *known* label (a debug name of the segment's SPIR-V, longest first) when
   it starts here and ends at ``;`` or the end of the text;
2. else, when the text starts with ``{``, ``[`` or ``"``, one JSON value if it
   decodes and is followed (after blanks) by ``;`` or the end;
3. else everything up to the next ``;``.

Separators and blanks between labels are skipped. Cost: per label, one set
look-up for each ``;`` within the longest known label's length (build
``KnownLabels`` once per segment and reuse it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

_PLACEHOLDER = re.compile(r"_spirv_id_(\d+)$")
_DECODER = json.JSONDecoder()


class KnownLabels:
    """A set of known labels prepared for recovery (build once per segment)."""

    def __init__(self, labels: Iterable[str] = ()) -> None:
        self.labels = frozenset(label for label in labels if label)
        self.longest = max((len(label) for label in self.labels), default=0)

    def end_at(self, text: str, position: int) -> int | None:
        """The end of the longest known label starting at ``position`` and ending at ``;``
        or the end of the text, else ``None``."""
        if not self.labels:
            return None
        limit = min(len(text), position + self.longest)
        ends: list[int] = []
        separator = text.find(";", position)
        while 0 <= separator <= limit:
            ends.append(separator)
            separator = text.find(";", separator + 1)
        if limit == len(text):
            ends.append(len(text))
        for end in reversed(ends):
            if text[position:end] in self.labels:
                return end
        return None


def split_labels(text: str, known: KnownLabels | Iterable[str] = ()) -> tuple[str, ...]:
    """The labels of one ``api_labels`` cell, blanks dropped, in text order."""
    index = known if isinstance(known, KnownLabels) else KnownLabels(known)
    labels: list[str] = []
    position = 0
    length = len(text)
    while position < length:
        if text[position] == ";" or text[position].isspace():
            position += 1
            continue
        end = index.end_at(text, position) or _json_end(text, position)
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
