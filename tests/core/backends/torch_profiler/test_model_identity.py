"""The result's ``model``: named after the program's outermost ``nn.Module`` (its
``forward``'s workspace file and its class), hashed from the workspace code the trace
records, not from file names (qa T3)."""

from __future__ import annotations

from typing import Any

import pytest

from perfline.core.backends.torch_profiler.document import analyze_traces
from tests.support.torch_analysis import read
from tests.support.torch_build import Trace, frame, op, step
from tests.support.torch_traces import CAPTURED, processed, trace_path


def _model(trace: Trace, resolved: dict[str, str | None] | None = None) -> dict[str, Any]:
    document = analyze_traces(
        [read(trace)],
        resolved or {"pkg/model.py": "pkg/model.py", "pkg/helpers.py": "pkg/helpers.py"},
        timestamp="2026-01-01T00:00:00Z",
        workspace="ws",
    )
    model: dict[str, Any] = document["model"]
    return model


def _program(function: str, scale: float = 1.0) -> Trace:
    """helpers.py (alphabetically first) and the model's file; a loss module after it."""
    return Trace(
        [
            step(1, 0.0, 100.0),
            frame("pkg/helpers.py(3): main", 0.0, 100.0),
            frame("torch/nn/modules/module.py(1778): _wrapped_call_impl", 1.0, 60.0),
            frame("nn.Module: TextModel_0", 2.0, 58.0),
            frame("torch/nn/modules/module.py(1789): _call_impl", 3.0, 56.0),
            frame(f"pkg/model.py(30): {function}", 4.0, 54.0),
            frame("nn.Module: Linear_0", 5.0, 20.0 * scale),
            op("aten::linear", 6.0, 18.0 * scale, external=1),
            frame("pkg/helpers.py(9): normalize", 30.0, 10.0),
            op("aten::sub", 31.0, 8.0, external=2),
            frame("nn.Module: CrossEntropyLoss_0", 70.0, 10.0),
            op("aten::cross_entropy_loss", 71.0, 8.0, external=3),
        ]
    )


def test_the_model_is_named_after_its_outermost_module() -> None:
    assert _model(_program("forward"))["name"] == "model.py (TextModel)"
    # the module's forward file is not in the workspace: its class alone
    assert _model(_program("forward"), {"pkg/helpers.py": "pkg/helpers.py"})["name"] == (
        "TextModel"
    )
    # no module call: the trace's file name
    plain = Trace([step(1, 0.0, 10.0), frame("pkg/helpers.py(3): main", 0.0, 10.0)])
    assert _model(plain)["name"] == "t.json"


def test_the_hash_is_of_the_code_the_trace_records_not_of_file_names() -> None:
    first = _model(_program("forward"))["hash"]
    assert _model(_program("forward", scale=1.5))["hash"] == first  # same code, other times
    assert _model(_program("encode"))["hash"] != first  # same file names, other code


@pytest.mark.parametrize(
    "wrapper",
    ["OptimizedModule", "DataParallel", "DistributedDataParallel", "FullyShardedDataParallel"],
)
def test_a_wrapper_of_torch_is_looked_through_to_the_model_it_wraps(wrapper: str) -> None:
    events = list(_program("forward").events)
    wrapped = [frame(f"nn.Module: {wrapper}_0", 0.5, 61.0), *events]
    assert _model(Trace(wrapped))["name"] == "model.py (TextModel)"
    # a wrapper class of the user's own, named otherwise, is the model
    own = [frame("nn.Module: Trainer_0", 0.5, 61.0), *events]
    assert _model(Trace(own))["name"] == "Trainer"


@pytest.mark.parametrize("name", CAPTURED)
def test_real_traces_name_their_model(name: str) -> None:
    function = processed(trace_path(name), statements=False)["model"]
    statement = processed(trace_path(name), statements=True)["model"]
    expected = {
        "transformer_block": "transformer_block.py (Block)",
        "cnn": "cnn.py (SmallCNN)",
        "custom_function": "custom_function.py (Gated)",
        "train_step": "train_step.py (Classifier)",
        "threaded": "Sequential",  # each thread's model is an nn.Sequential
        "compiled": "compiled.py (Stack)",  # not torch.compile's OptimizedModule around it
    }[name]
    assert function["name"] == statement["name"] == expected
    assert function["hash"] == statement["hash"]
