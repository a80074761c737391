"""What ``perfline profile``'s capture costs the profiled program, next to torch.profiler alone.

For each test model of ``tests/data/torch_profiler/models/`` (transformer block and CNN
inference, the training step), in one process, torch on one thread, the fastest and the median
CPU time of one step (this process's CPU time: other programs on the machine do not count):

1. plain: no profiler;
2. torch.profiler with ``with_stack``, ``record_shapes``, ``profile_memory`` (what a user
   recording a trace with stacks runs anyway);
3. the same plus the capture's pass-through ``TorchFunctionMode`` (what ``perfline profile``
   adds so that tensor operators get their statement);

and the (wall) time to read the event tree into statement stacks once the recording stops. The trace
figures perfline reports are the ops' own durations, which the mode does not wrap in extra
work; the step times here say how much slower the program runs while it is captured.

Usage: ``PY benchmarks/torch_capture.py [--steps 20]`` with a Python that has torch
(``bash scripts/torch-venv.sh`` prints one). Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
MODELS = REPO / "tests" / "data" / "torch_profiler" / "models"
CAPTURE = REPO / "clients" / "torch_capture"


def _load(path: Path, name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _workloads(torch: Any) -> dict[str, Callable[[], Any]]:
    sys.path.insert(0, str(MODELS))
    block_module = _load(MODELS / "transformer_block.py", "transformer_block")
    cnn_module = _load(MODELS / "cnn.py", "cnn")
    train_module = _load(MODELS / "train_step.py", "train_step")
    torch.manual_seed(0)
    block, tokens = block_module.Block().eval(), torch.randn(2, 32, 64)
    net, images = cnn_module.SmallCNN().eval(), torch.randn(4, 3, 32, 32)
    classifier = train_module.Classifier()
    optimizer = torch.optim.AdamW(classifier.parameters(), lr=1e-3)
    features, labels = torch.randn(64, 128), torch.randint(0, 10, (64,))

    def infer(model: Any, x: Any) -> Callable[[], Any]:
        def run() -> Any:
            with torch.no_grad():
                return model(x)

        return run

    return {
        "transformer block (inference)": infer(block, tokens),
        "cnn (inference)": infer(net, images),
        "train step (forward, backward, AdamW)": lambda: train_module.train_step(
            classifier, optimizer, features, labels
        ),
    }


def _step_time(work: Callable[[], Any], steps: int, around: Any) -> tuple[float, float]:
    """(fastest, median) CPU time of one step: this process's CPU time, with torch on one
    thread, so that other programs on a busy machine do not count."""
    times = []
    with around():
        for _ in range(3):
            work()
        for _ in range(steps):
            start = time.process_time()
            work()
            times.append(time.process_time() - start)
    return min(times), statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20)
    options = parser.parse_args()
    import torch

    package = "_perfline_torch_capture"
    _load(CAPTURE / "__init__.py", package)
    session = _load(CAPTURE / "session.py", package + ".session")
    event_tree = sys.modules[package + ".event_tree"]

    def profiler() -> Any:
        activities = [torch.profiler.ProfilerActivity.CPU]
        return torch.profiler.profile(
            activities=activities, with_stack=True, record_shapes=True, profile_memory=True
        )

    @contextlib.contextmanager
    def with_mode() -> Iterator[None]:
        with profiler(), session._OperatorLines():
            yield

    print(f"torch {torch.__version__}, python {sys.version.split()[0]}, {options.steps} steps")
    torch.set_num_threads(1)
    for name, work in _workloads(torch).items():
        plain, plain_median = _step_time(work, options.steps, contextlib.nullcontext)
        traced, traced_median = _step_time(work, options.steps, profiler)
        lines, lines_median = _step_time(work, options.steps, with_mode)
        with profiler() as prof, session._OperatorLines():
            for _ in range(3):
                work()
        start = time.perf_counter()
        found = event_tree.statement_stacks(prof, frozenset(), frozenset())
        walk = time.perf_counter() - start
        print(
            f"{name}: CPU per step, fastest (median): {plain * 1e3:.2f} ({plain_median * 1e3:.2f}) "
            f"ms plain, {traced * 1e3:.2f} ({traced_median * 1e3:.2f}) ms under torch.profiler "
            f"(x{traced / plain:.2f}), {lines * 1e3:.2f} ({lines_median * 1e3:.2f}) ms with the "
            f"operator mode (x{lines / traced:.2f} of the profiler alone); event tree of 3 "
            f"steps to {len(found.ops)} op stacks in {walk * 1e3:.1f} ms"
        )


if __name__ == "__main__":
    main()
