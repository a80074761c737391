"""Two onnxruntime profiles of the same model, run interleaved in one process.

    python make_interleaved.py MODEL.onnx OUT_DIR [PAIRS]

Environment: CPython 3.11, ``pip install onnxruntime==1.32.0 numpy==2.4.6`` (CPU build).
Two sessions of MODEL with the same options (graph optimisations off, so node indices
are the ONNX file's; one intra-op and one inter-op thread; profiling on) are fed the
same input. Each runs once as a warm-up, then PAIRS pairs of runs in the order
A B B A A B B A ... (each session goes first in half of the pairs, so a drift of the
machine during the run falls on both sessions alike). The profiles are written to
OUT_DIR/dscnn_interleaved_a.json and OUT_DIR/dscnn_interleaved_b.json, unchanged.
Both hold 1 + PAIRS runs; the first is the warm-up.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort


def _session(model: str, prefix: Path) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.enable_profiling = True
    options.profile_file_prefix = str(prefix)
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])


def main() -> None:
    model, out = sys.argv[1], Path(sys.argv[2])
    pairs = int(sys.argv[3]) if len(sys.argv) > 3 else 30
    out.mkdir(parents=True, exist_ok=True)
    sessions = {name: _session(model, out / f"tmp_{name}") for name in ("a", "b")}
    first = sessions["a"].get_inputs()[0]
    shape = [d if isinstance(d, int) and d > 0 else 1 for d in first.shape]
    feeds = {first.name: np.random.default_rng(1).standard_normal(shape).astype(np.float32)}
    for session in sessions.values():
        session.run(None, feeds)
    for pair in range(pairs):
        order = ("a", "b") if pair % 2 == 0 else ("b", "a")
        for name in order:
            sessions[name].run(None, feeds)
    for name, session in sessions.items():
        written = Path(session.end_profiling())
        shutil.move(str(written), out / f"dscnn_interleaved_{name}.json")
        print(out / f"dscnn_interleaved_{name}.json")


if __name__ == "__main__":
    main()
