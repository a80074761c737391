"""Regenerate the ONNX Runtime test data of this folder (run it with the venv of regen.sh).

    python regen.py BUILD_DIR [STEM...]

Exports ``attention.py`` (this folder) with the dynamo exporter (stack traces in the node
metadata) to ``attention.onnx`` and with ``torch.export`` to ``attention.pt2``, then profiles it
and the DS-CNN (``../formats/dscnn/dscnn.onnx``) with onnxruntime's profiler, 10 runs each, one
intra-op thread, with graph optimisations off (``*_noopt.json``) and on (``*_opt.json``, with ORT's
saved optimised model ``*_opt.optimized.onnx``), and writes ``dscnn_external.onnx``, the DS-CNN
with its weights moved to an external data file that is then deleted. ``mixer.py`` (a Conv1d
stem and three LayerNorm / Linear / GELU / Linear residual blocks) is exported the same way to
``mixer.onnx`` (weights in ``mixer.onnx.data``, as the exporter writes them) and profiled the
same way (``mixer_noopt.json``, ``mixer_opt.json``, ``mixer_opt.optimized.onnx``). The model
sources are copied into BUILD_DIR first and imported from there, so the traces name
``BUILD_DIR/attention.py`` and ``BUILD_DIR/mixer.py`` (regen.sh uses ``/home/dev/attn``, the
path the committed files record). STEMs (``attention``, ``dscnn``, ``mixer``) limit the run to
those models (the DS-CNN's includes ``dscnn_external.onnx``); none: all of them.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
import torch

HERE = Path(__file__).resolve().parent
DSCNN_ONNX = HERE.parent / "formats" / "dscnn" / "dscnn.onnx"
RUNS = 10


def export_attention(build: Path) -> None:
    build.mkdir(parents=True, exist_ok=True)
    shutil.copy(HERE / "attention.py", build / "attention.py")
    sys.path.insert(0, str(build))
    from attention import example_inputs, make_model

    model = make_model()
    inputs = example_inputs()
    program = torch.onnx.export(model, inputs, dynamo=True, optimize=True, verbose=False)
    program.save(str(HERE / "attention.onnx"))
    exported = torch.export.export(model, inputs)
    torch.export.save(exported, str(HERE / "attention.pt2"))


def export_mixer(build: Path) -> None:
    """``mixer.onnx``: ``mixer.Net`` (seed 0) on one (2, 8, 64) input, dynamo exporter."""
    build.mkdir(parents=True, exist_ok=True)
    shutil.copy(HERE / "mixer.py", build / "mixer.py")
    sys.path.insert(0, str(build))
    from mixer import Net

    torch.manual_seed(0)
    model = Net().eval()
    program = torch.onnx.export(model, (torch.randn(2, 8, 64),), dynamo=True, verbose=False)
    program.save(str(HERE / "mixer.onnx"), external_data=True)


def profile(model: Path, name: str, *, optimise: bool) -> None:
    options = ort.SessionOptions()
    options.enable_profiling = True
    options.profile_file_prefix = str(HERE / f"{name}_tmp")
    options.intra_op_num_threads = 1
    if optimise:
        options.optimized_model_filepath = str(HERE / f"{name}.optimized.onnx")
    else:
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
    feeds = {}
    for item in session.get_inputs():
        shape = [d if isinstance(d, int) and d > 0 else 1 for d in item.shape]
        feeds[item.name] = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    for _ in range(RUNS):
        session.run(None, feeds)
    written = Path(session.end_profiling())
    target = HERE / f"{name}.json"
    written.replace(target)
    events = json.loads(target.read_text())
    nodes = sum(1 for e in events if e.get("cat") == "Node")
    print(f"{target.name}: {len(events)} events, {nodes} node events")


def external_data_model() -> None:
    """``dscnn_external.onnx``: the DS-CNN with its weights in ``dscnn_external.weights`` (not
    kept: the tests need a model whose external data is missing)."""
    import onnx

    model = onnx.load(str(DSCNN_ONNX))
    onnx.save_model(
        model,
        str(HERE / "dscnn_external.onnx"),
        save_as_external_data=True,
        all_tensors_to_one_file=True,
        location="dscnn_external.weights",
        size_threshold=1024,
    )
    (HERE / "dscnn_external.weights").unlink()


def main() -> None:
    build = Path(sys.argv[1] if len(sys.argv) > 1 else "/home/dev/attn")
    stems = set(sys.argv[2:]) or {"attention", "dscnn", "mixer"}
    if "attention" in stems:
        export_attention(build)
    if "mixer" in stems:
        export_mixer(build)
    models = (
        ("attention", HERE / "attention.onnx"),
        ("dscnn", DSCNN_ONNX),
        ("mixer", HERE / "mixer.onnx"),
    )
    for stem, model in models:
        if stem in stems:
            profile(model, f"{stem}_noopt", optimise=False)
            profile(model, f"{stem}_opt", optimise=True)
    if "dscnn" in stems:
        external_data_model()
    print("torch", torch.__version__, "onnxruntime", ort.__version__, "numpy", np.__version__)


if __name__ == "__main__":
    main()
