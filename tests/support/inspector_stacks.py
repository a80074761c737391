"""The ExecuTorch Inspector's stack traces of the example's portable ETDump, read for the tests'
expectations independently of perfline.

``user_line_traces``: every stack trace of an ``OPERATOR_CALL`` event of the ``Execute`` block
(``tests/data/measured/portable/dscnn_portable.inspector.json``) as the lines of the user's
``/home/dev/kws/dscnn.py`` it holds, outermost first. ``lines_called``: per user line met in
them, the user lines deeper than it in the same traces (itself left out; empty for a line that
calls no other): a call line such as ``x = self.blocks(x)`` calls the lines of the block.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from tests.support.locations import DATA

PORTABLE = DATA / "measured" / "portable"
INSPECTOR = PORTABLE / "dscnn_portable.inspector.json"
USER_LINE = re.compile(r'File "/home/dev/kws/dscnn\.py", line (\d+)')


def user_line_traces() -> list[list[int]]:
    """The user lines of each operator call's stack trace, outermost first, in event order."""
    data = json.loads(INSPECTOR.read_text())
    (block,) = [b for b in data["event_blocks"] if b["name"] == "Execute"]
    return [
        [int(n) for n in USER_LINE.findall(trace)]
        for event in block["events"]
        if event["name"] == "OPERATOR_CALL"
        for trace in event["stack_traces"].values()
    ]


def lines_called(traces: Sequence[Sequence[int]]) -> dict[int, set[int]]:
    """Per user line of the traces: the user lines below it (see the module docstring)."""
    calls: dict[int, set[int]] = {}
    for frames in traces:
        for depth, line in enumerate(frames):
            calls.setdefault(line, set()).update(n for n in frames[depth + 1 :] if n != line)
    return calls
