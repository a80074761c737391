"""Shared parsers of stack traces, module stacks and ExecuTorch JSON labels."""

from __future__ import annotations

import json

from perfline.core.formats.identity import (
    ModuleFrame,
    SourceFrame,
    SourceOperator,
    parse_json_label,
    parse_module_stack,
    parse_stack_trace,
    source_operator_id,
)

TRACE = (
    'File "/home/dev/kws/dscnn.py", line 41, in forward\n'
    "    x = self.blocks(x)\n"
    '  File "/venv/site-packages/torch/nn/modules/container.py", line 253, in forward\n'
    "    input = module(input)\n"
    '  File "C:\\\\work\\\\model.py", line 7\n'
    "No stack trace available\n"
)


def test_stack_trace_text_and_lines() -> None:
    frames = parse_stack_trace(TRACE)
    assert frames == (
        SourceFrame("/home/dev/kws/dscnn.py", 41, "forward"),
        SourceFrame("/venv/site-packages/torch/nn/modules/container.py", 253, "forward"),
        SourceFrame("C:\\\\work\\\\model.py", 7, None),
    )
    assert parse_stack_trace(TRACE.splitlines()) == frames
    assert parse_stack_trace(None) == ()
    assert parse_stack_trace("no frames here") == ()


def test_user_frames_drop_library_frames() -> None:
    operator = SourceOperator("source_operator/x", "Conv", "x", parse_stack_trace(TRACE))
    assert [f.line for f in operator.user_frames()] == [41, 7]
    assert operator.local_id == "x"
    assert source_operator_id("segment_0/spirv-1") == "source_operator/segment_0/spirv-1"


def test_module_stack_shapes() -> None:
    expected = (
        ModuleFrame("L__self__", "", "dscnn.DSCNN"),
        ModuleFrame("L__self__conv1", "conv1", "torch.nn.modules.conv.Conv2d"),
    )
    mapping = {
        "L__self__": ["", "dscnn.DSCNN"],
        "L__self__conv1": ["conv1", "torch.nn.modules.conv.Conv2d"],
    }
    assert parse_module_stack(mapping) == expected
    assert parse_module_stack([[k, *v] for k, v in mapping.items()]) == expected
    assert (
        parse_module_stack(
            [
                {"tracer_key": "L__self__", "qualified_name": "", "module_type": "dscnn.DSCNN"},
                {"key": "L__self__conv1", "name": "conv1", "type": "torch.nn.modules.conv.Conv2d"},
            ]
        )
        == expected
    )
    assert (
        parse_module_stack(
            "L__self__,,dscnn.DSCNN;L__self__conv1,conv1,torch.nn.modules.conv.Conv2d"
        )
        == expected
    )
    assert parse_module_stack(42) == ()


def test_json_label() -> None:
    label = json.dumps(
        {
            "event_id": 3,
            "aten_info": {
                "node_name": "tosa_conv2d_default",
                "operator_name": "tosa.CONV2D.default",
            },
            "torch_info": {
                "stack_trace": TRACE.splitlines(),
                "nn_module_stack": {"L__self__": ["", "M"]},
            },
        }
    )
    provenance = parse_json_label(label)
    assert provenance is not None
    assert (provenance.node_name, provenance.operator_name, provenance.event_id) == (
        "tosa_conv2d_default",
        "tosa.CONV2D.default",
        3,
    )
    assert [f.line for f in provenance.frames] == [41, 253, 7]
    assert provenance.modules == (ModuleFrame("L__self__", "", "M"),)
    assert parse_json_label("model/re_lu/Relu") is None
    assert parse_json_label("[1, 2]") is None
    assert parse_json_label("{broken") is None
