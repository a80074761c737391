"""``core.call_lines``: which code lines call other lines, on the real DS-CNN and on shapes
built to break a careless walk (nesting, recursion, shared stacks, cycles, depth).

The real expectation comes from the ExecuTorch Inspector's own stack traces of the same
ETDump, not from perfline: a line calls the user lines that appear after it in an
operator's trace, and its operators are those whose trace holds the line.
"""

from __future__ import annotations

from typing import Any

from perfline.core.call_lines import calls_marker, calls_text, line_calls, line_ranges
from perfline.core.pipeline import postprocess
from perfline.server.ingest.executorch import load_etdump_document
from tests.support.inspector_stacks import lines_called, user_line_traces
from tests.support.locations import DATA

MEASURED = DATA / "measured" / "portable"
RECORDED = "/home/dev/kws/dscnn.py"


def _inspector_calls() -> tuple[dict[int, set[int]], dict[int, int]]:
    """Per user line: the user lines deeper in the traces that hold it, and how many
    instructions run below it."""
    traces = user_line_traces()
    operators: dict[int, int] = {}
    for frames in traces:
        for line in frames:
            operators[line] = operators.get(line, 0) + 1
    return lines_called(traces), operators


def test_the_dscnn_call_line_is_line_41_calling_the_block_lines() -> None:
    document = postprocess(
        load_etdump_document(
            MEASURED / "dscnn_portable.etrecord", MEASURED / "dscnn_portable.etdump"
        )
    )
    found = line_calls(document["results"][0]["entities"])
    expected_calls, expected_operators = _inspector_calls()
    by_line = {entry.line: entry for entry in found.values()}
    for line, entry in by_line.items():
        assert entry.file == RECORDED
        assert {n for _, n in entry.calls} == expected_calls.get(line, set()), line
    # One instruction per operator in the blocks (line 44's linear is two instructions).
    for line in (24, 25, 26, 27, 41):
        assert len(by_line[line].operators) == expected_operators[line], line
    assert len(by_line[41].operators) == 24
    assert [n for n, e in sorted(by_line.items()) if e.is_call_line] == [41]
    assert calls_text(by_line[41].calls, RECORDED) == "24-27"


def _entity(entity_id: str, kind: str, children: list[str], frame: Any = None) -> dict[str, Any]:
    entity: dict[str, Any] = {"id": entity_id, "kind": kind, "child_ids": children}
    if frame is not None:
        entity["attributes"] = {"file": frame[0], "line": frame[1]}
    return entity


def test_nested_calls_recursion_shared_stacks_and_other_files() -> None:
    """m.py:50 calls 40, which calls lib.py:7 (twice, through two stacks); 40 is also
    called from 60 by another path; line 70 recurses into itself."""
    entities = [
        _entity("line/50", "code_line", ["s/50"], ("m.py", 50)),
        _entity("line/60", "code_line", ["s/60"], ("m.py", 60)),
        _entity("line/40", "code_line", ["s/50>40", "s/60>40"], ("m.py", 40)),
        _entity("line/7", "code_line", ["s/50>40>7", "s/60>40>7"], ("lib.py", 7)),
        _entity("line/70", "code_line", ["s/70", "s/70>70"], ("m.py", 70)),
        _entity("line/bad", "code_line", [], ("m.py", True)),  # not a line number
        _entity("s/50", "code_stack", ["s/50>40", "op/direct"], ("m.py", 50)),
        _entity("s/50>40", "code_stack", ["s/50>40>7", "op/a"], ("m.py", 40)),
        _entity("s/50>40>7", "code_stack", ["op/b"], ("lib.py", 7)),
        _entity("s/60", "code_stack", ["s/60>40"], ("m.py", 60)),
        _entity("s/60>40", "code_stack", ["s/60>40>7"], ("m.py", 40)),
        _entity("s/60>40>7", "code_stack", ["op/c"], ("lib.py", 7)),
        _entity("s/70", "code_stack", ["s/70>70"], ("m.py", 70)),
        _entity("s/70>70", "code_stack", ["op/d"], ("m.py", 70)),
        *(_entity(f"op/{n}", "source_operator", []) for n in ("direct", "a", "b", "c", "d")),
    ]
    found = line_calls(entities)
    assert "line/bad" not in found
    assert found["line/50"].calls == (("lib.py", 7), ("m.py", 40))
    assert found["line/50"].operators == ("op/a", "op/b", "op/direct")
    assert found["line/60"].calls == (("lib.py", 7), ("m.py", 40))
    assert found["line/60"].operators == ("op/c",)
    assert found["line/40"].calls == (("lib.py", 7),)
    assert found["line/40"].operators == ("op/a", "op/b", "op/c")
    assert found["line/40"].stacks == ("s/50>40", "s/60>40")
    assert not found["line/7"].is_call_line and found["line/7"].operators == ("op/b", "op/c")
    assert not found["line/70"].is_call_line  # its own frame deeper down is recursion
    assert calls_text(found["line/50"].calls, "m.py") == "40, lib.py:7"
    assert calls_text(found["line/40"].calls, "m.py") == "lib.py:7"


def test_a_cycle_ends_the_walk_and_depth_needs_no_recursion() -> None:
    cyclic = [
        _entity("line/1", "code_line", ["s/1"], ("m.py", 1)),
        _entity("s/1", "code_stack", ["s/2"], ("m.py", 1)),
        _entity("s/2", "code_stack", ["s/1", "op/x"], ("m.py", 2)),
        _entity("op/x", "source_operator", []),
    ]
    found = line_calls(cyclic)
    assert found["line/1"].calls == (("m.py", 2),) and found["line/1"].operators == ("op/x",)
    depth = 1500  # deeper than the interpreter's recursion limit
    chain = [_entity("line/0", "code_line", ["s/0"], ("m.py", 1))]
    chain += [
        _entity(
            f"s/{k}",
            "code_stack",
            [f"s/{k + 1}"] if k + 1 < depth else ["op/leaf"],
            ("m.py", k + 1),
        )
        for k in range(depth)
    ]
    chain.append(_entity("op/leaf", "source_operator", []))
    deep = line_calls(chain)["line/0"]
    assert len(deep.calls) == depth - 1 and deep.operators == ("op/leaf",)


def test_line_ranges() -> None:
    assert line_ranges([24, 25, 26, 27, 30, 32, 33]) == "24-27, 30, 32-33"
    assert line_ranges([5, 5, 6]) == "5-6"
    assert line_ranges([]) == ""


def test_the_reports_marker_lists_short_lists_and_counts_long_ones() -> None:
    block = [("m.py", n) for n in (24, 25, 26, 27)]
    assert calls_marker(block, "m.py") == "(calls 24-27)"
    assert calls_marker([], "m.py") == ""
    elsewhere = [("lib/blocks.py", n) for n in (3, 5, 7)]
    assert calls_marker(elsewhere, "m.py") == "(calls 3 lines)"  # "(calls blocks.py:3, 5, 7)"
    assert calls_marker(elsewhere, "m.py", room=40) == "(calls blocks.py:3, 5, 7)"
    assert calls_marker([("lib/a_long_module_name.py", 3)], "m.py") == "(calls 1 line)"
