"""The sidecar reader (``core/backends/torch_profiler/sidecar.py``) on the real sidecars the
capture helper wrote with torch 2.13 (tests/data/torch_profiler/traces/), and on broken ones."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from perfline.core.backends.torch_profiler.sidecar import (
    SidecarFrame,
    check_trace,
    read_sidecar,
    sidecar_name,
)
from perfline.core.errors import InputError
from tests.support.locations import DATA

TRACES = DATA / "torch_profiler" / "traces"
CAPTURED = ("transformer_block", "cnn", "custom_function", "train_step", "threaded")


def _trace(name: str) -> Path:
    return TRACES / f"{name}.pt.trace.json"


def _sidecar(name: str) -> Path:
    return TRACES / sidecar_name(f"{name}.pt.trace.json")


def _ops_by_id(trace: Path) -> dict[int, str]:
    events = json.loads(trace.read_bytes())["traceEvents"]
    return {
        event["args"]["External id"]: event["name"]
        for event in events
        if event.get("cat") in ("cpu_op", "user_annotation")
    }


@pytest.mark.parametrize("name", CAPTURED)
def test_real_sidecar_joins_its_trace_by_external_id(name: str) -> None:
    trace = _trace(name)
    sidecar = read_sidecar(_sidecar(name).read_bytes(), str(_sidecar(name)))
    check_trace(sidecar, trace.name, hashlib.sha256(trace.read_bytes()).hexdigest())
    assert sidecar.level == "statement" and sidecar.reason is None
    ops = _ops_by_id(trace)
    assert sidecar.stacks_by_external_id
    for key, name_in_sidecar in sidecar.op_names.items():
        assert ops[key] == name_in_sidecar
    # nearly every op of the script's thread(s) has a statement; the rest are the profiler's
    assert len(sidecar.stacks_by_external_id) >= 0.9 * len(ops)


@pytest.mark.parametrize("name", ("transformer_block", "cnn", "train_step"))
def test_stacks_run_outermost_first_from_the_script(name: str) -> None:
    sidecar = read_sidecar(_sidecar(name).read_bytes(), name)
    model = f"models/{name}.py"
    for stack in sidecar.stacks_by_external_id.values():
        # the capture helper's launch (runpy, the helper) is cut: the script's module is first
        assert stack[0].file.endswith(model) and stack[0].function == "<module>"
        assert not any("torch_capture" in frame.file for frame in stack)


def test_operator_statements_are_lines_not_def_lines() -> None:
    """``scores = q @ k.transpose(-2, -1) / math.sqrt(head)`` is line 24 of the model: its
    matmul gets that line, not the ``def forward`` line (the capture's operator mode)."""
    sidecar = read_sidecar(_sidecar("transformer_block").read_bytes(), "t")
    source = (TRACES.parent / "models" / "transformer_block.py").read_text().splitlines()
    lines = set()
    for key, stack in sidecar.stacks_by_external_id.items():
        if sidecar.op_names[key] == "aten::matmul":
            last = stack[-1]
            assert last.file.endswith("transformer_block.py") and not last.entry
            lines.add(last.line)
    assert {source[line - 1].strip().split(" =")[0] for line in lines} == {"scores", "mixed"}


def test_a_custom_backward_run_by_the_engine_marks_unknown_statements_as_entry_lines() -> None:
    sidecar = read_sidecar(_sidecar("custom_function").read_bytes(), "c")
    innermost = {
        [frame for frame in stack if frame.file.endswith("custom_function.py")][-1]
        for stack in sidecar.stacks_by_external_id.values()
    }
    backward = [frame for frame in innermost if frame.function == "backward"]
    # line 16 is where ``backward`` starts (its decorator): tensor operators run there by the
    # engine, outside the capture's operator mode; ``1 - y * y`` (line 19) calls torch's
    # Python ``__rsub__``, so its statement is known
    assert {(frame.line, frame.entry) for frame in backward} == {(16, True), (19, False)}


def _good() -> dict[str, Any]:
    return {
        "perfline_torch_sidecar": 1,
        "trace": {"file": "run.pt.trace.json", "sha256": "ab", "bytes": 1},
        "level": "statement",
        "torch": "2.13.0",
        "steps": {"warmup": 1, "active": 3, "recorded": 3, "step_on": "module"},
        "files": ["/ws/model.py", "torch/nn/modules/module.py"],
        "stacks": [[[0, 10, "<module>"], [1, 1778, "_wrapped_call_impl"], [0, 5, "f", "entry"]]],
        "ops": [[7, 0, "aten::mm"], [8, 0, "aten::resolve_conj"]],
    }


def _read(document: Any) -> Any:
    return read_sidecar(json.dumps(document).encode(), "run.pt.trace.json.perfline.json")


def test_small_sidecar_reads_into_shared_stacks() -> None:
    sidecar = _read(_good())
    stack = sidecar.stacks_by_external_id[7]
    assert stack is sidecar.stacks_by_external_id[8]
    assert stack == (
        SidecarFrame("/ws/model.py", 10, "<module>", False),
        SidecarFrame("torch/nn/modules/module.py", 1778, "_wrapped_call_impl", False),
        SidecarFrame("/ws/model.py", 5, "f", True),
    )


def _broken(change: Any) -> str:
    document = _good()
    change(document)
    with pytest.raises(InputError) as caught:
        _read(document)
    return str(caught.value)


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (lambda d: d["stacks"][0][1].__setitem__(0, 5), "stacks[0][1][0]: file index 5"),
        (lambda d: d["stacks"][0][2].__setitem__(3, "x"), "stacks[0][2][3]: expected 'entry'"),
        (lambda d: d["stacks"][0][0].__setitem__(1, -3), "stacks[0][0][1]: expected a non-neg"),
        (lambda d: d["ops"].append([9, 4, "aten::x"]), "ops[2][1]: stack index 4"),
        (lambda d: d["ops"].append([7, 0, "aten::mm"]), "ops[2][0]: External id 7 appears twice"),
        (lambda d: d["ops"][0].pop(), "ops[0]: expected [External id, stack index, op name]"),
        (lambda d: d.__setitem__("level", "line"), "level: expected 'statement' or 'function'"),
        (lambda d: d.__setitem__("perfline_torch_sidecar", 2), "expected version 1"),
        (lambda d: d["trace"].pop("sha256"), "trace: missing 'sha256'"),
        (lambda d: d.__setitem__("stacks", [[]]), "stacks[0]: expected at least one frame"),
        (lambda d: d.__setitem__("capture_files", ["a.py", 3]), "capture_files[1]: expected a str"),
        (lambda d: d.__setitem__("capture_files", "a.py"), "capture_files: expected an array"),
        (lambda d: d.__setitem__("threads", "some"), "threads: expected 'capturing' or 'all'"),
    ],
)
def test_broken_sidecar_names_the_file_and_the_json_path(change: Any, where: str) -> None:
    message = _broken(change)
    assert message.startswith("run.pt.trace.json.perfline.json: ")
    assert where in message


def test_function_level_sidecar_carries_its_reason() -> None:
    document = _good()
    document.update(level="function", reason="torch 1.13 is too old", stacks=[], ops=[])
    sidecar = _read(document)
    assert sidecar.level == "function" and sidecar.reason == "torch 1.13 is too old"
    assert not sidecar.stacks_by_external_id
    assert "missing 'reason'" in _broken(lambda d: d.update(level="function", stacks=[], ops=[]))


def test_not_json_and_not_a_sidecar_are_clear() -> None:
    with pytest.raises(InputError, match=r"s\.json: line 1"):
        read_sidecar(b'{"perfline_torch_sidecar": 1,', "s.json")
    with pytest.raises(InputError, match="expected a perfline torch sidecar"):
        read_sidecar(b'{"traceEvents": []}', "s.json")


def test_a_sidecar_beside_another_trace_is_refused() -> None:
    sidecar = _read(_good())
    check_trace(sidecar, "run.pt.trace.json", "ab")
    with pytest.raises(InputError, match=r"written for the trace .run\.pt\.trace\.json."):
        check_trace(sidecar, "other.pt.trace.json", "ab")
    with pytest.raises(InputError, match="SHA-256 differs"):
        check_trace(sidecar, "run.pt.trace.json", "cd")


def test_the_capture_files_and_threads_are_read_and_optional() -> None:
    document = _good()
    document.update(capture_files=["/p/torch_capture/session.py"], threads="all")
    sidecar = _read(document)
    assert sidecar.capture_files == frozenset({"/p/torch_capture/session.py"})
    assert sidecar.threads == "all"
    older = _read(_good())
    assert older.capture_files == frozenset() and older.threads is None
