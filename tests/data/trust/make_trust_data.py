"""Make the real test data of "runs that belong together" and "a gate that holds on a busy machine".

    VENV=~/.cache/perfline-trust-venv bash make_trust_data.sh [wide] [mlp2x] [noise]

(``make_trust_data.sh`` creates the venv with pinned PyPI packages, ``torch==2.13.0`` CPU,
``onnx==1.23.2``, ``onnxscript==0.7.2``, ``onnxruntime==1.32.0``, ``numpy==2.4.6``, then runs
this script with it.)

``wide``: the DS-CNN of ``../formats/dscnn/dscnn.py`` built 2x wider (``DSCNN(channels=128)``,
seeded and given BN statistics as ``make_model`` does) and exported as the narrow one was
(dynamo exporter, ``optimize=True``) from ``/home/dev/kws/dscnn.py``, the path the narrow
model's traces record, to ``dscnn_wide.onnx``; then profiled by ONNX Runtime like the narrow
one (one intra-op thread, 10 runs, graph optimisations off: ``dscnn_wide_noopt.json``; on:
``dscnn_wide_opt.json``). Same node names and source lines as ``dscnn.onnx``, every
activation and weight shape twice as wide.

``mlp2x``: ``attention_mlp2x.onnx``, ``attention.py``'s block with its MLP twice as wide
(``hidden=512``; same source lines, exported from ``/home/dev/attn/attention.py`` like
``attention.onnx``), profiled once idle and once beside the hogs
(``attention_mlp2x_{idle,hog}_1.json.gz``; optimisations off, one intra-op thread, 1 warm-up
+ 20 runs).

``noise``: the block at width 256 (4 heads) on 64 tokens, MLP ``hidden=1024``
(``attention_big.onnx``) and ``2048`` (``attention_big_mlp2x.onnx``), weights in
``*.onnx.data`` (not kept in git). Then ONNX Runtime profiles as above of
``../formats/dscnn/dscnn.onnx`` and ``attention_big.onnx``, three *pairs* per model: one
session with the machine as it is (``*_idle_<k>.json.gz``), one with ``HOGS`` busy-looping
processes beside it (``*_hog_<k>.json.gz``, default: one per CPU); and of
``attention_big_mlp2x.onnx`` twice idle and twice loaded
(``attention_big_mlp2x_{idle,hog}_{1,2}.json.gz``). Each session is a process of its own.
The profiles are ONNX Runtime's files, gzip-compressed unchanged (the tests decompress them).

``extra``: ``attention_big_extra.onnx``, the block of ``attention_big.onnx`` with one statement
added to ``forward`` after line 41 (``EXTRA_STATEMENT``, line 42: a second MLP,
``Linear(256, 1024)``, ReLU, ``Linear(1024, 256)``, whose two layers are set on the built model
so that no line above it moves), exported from ``/home/dev/attn/attention.py`` holding that
source; profiled once idle and once beside the hogs
(``attention_big_extra_{idle,hog}_1.json.gz``, as above): a line that only the new run has.

``unet``: ``unet.py`` of this folder (a small U-Net whose pooling, upsampling and
concatenation lines hold a few microseconds each), exported from ``/home/dev/unet/unet.py``
to ``unet.onnx`` and profiled as the noise pairs above, three sessions idle and three beside
the hogs (``unet_{idle,hog}_{1,2,3}.json.gz``), and three *pinned*: the session and two
busy-looping processes all bound to CPU 0 (``unet_pin_{1,2,3}.json.gz``: the session gets
about a third of one CPU, the harshest load).
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE.parent
DSCNN_SOURCE = DATA / "formats" / "dscnn" / "dscnn.py"
DSCNN_ONNX = DATA / "formats" / "dscnn" / "dscnn.onnx"
ATTENTION_SOURCE = DATA / "onnxruntime" / "attention.py"
ATTENTION_ONNX = DATA / "onnxruntime" / "attention.onnx"
UNET_SOURCE = HERE / "unet.py"
KWS_BUILD = Path("/home/dev/kws")
ATTN_BUILD = Path("/home/dev/attn")
UNET_BUILD = Path("/home/dev/unet")
NOISE_RUNS = 20
WIDE_RUNS = 10
PAIRS = 3
BIG_DIM = 256
BIG_HIDDEN = 1024
BIG_TOKENS = 64


def export_wide() -> Path:
    """``dscnn_wide.onnx``: ``DSCNN(channels=128)`` from the narrow model's source file."""
    import torch
    from torch import nn

    KWS_BUILD.mkdir(parents=True, exist_ok=True)
    shutil.copy(DSCNN_SOURCE, KWS_BUILD / "dscnn.py")
    sys.path.insert(0, str(KWS_BUILD))
    from dscnn import DSCNN, example_inputs

    torch.manual_seed(0)
    model = DSCNN(channels=128)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, nn.BatchNorm2d):
                module.running_mean.uniform_(-0.1, 0.1)
                module.running_var.uniform_(0.5, 1.5)
    model.eval()
    program = torch.onnx.export(model, example_inputs(), dynamo=True, optimize=True)
    target = HERE / "dscnn_wide.onnx"
    program.save(str(target))
    return target


def export_mlp2x() -> Path:
    """``attention_mlp2x.onnx``: the encoder block with ``hidden=512`` (seed 0)."""
    import torch

    ATTN_BUILD.mkdir(parents=True, exist_ok=True)
    shutil.copy(ATTENTION_SOURCE, ATTN_BUILD / "attention.py")
    sys.path.insert(0, str(ATTN_BUILD))
    from attention import EncoderBlock, example_inputs

    torch.manual_seed(0)
    model = EncoderBlock(hidden=512).eval()
    program = torch.onnx.export(model, example_inputs(), dynamo=True, optimize=True)
    target = HERE / "attention_mlp2x.onnx"
    program.save(str(target))
    return target


def export_big(hidden: int, stem: str) -> Path:
    """``STEM.onnx``: ``attention.py``'s block at width 256 (4 heads, MLP ``hidden``) on 64
    tokens, seed 0, exported from ``/home/dev/attn/attention.py``; its weights go to
    ``STEM.onnx.data`` (not kept in git: the analysis reads the graph only)."""
    import torch

    ATTN_BUILD.mkdir(parents=True, exist_ok=True)
    shutil.copy(ATTENTION_SOURCE, ATTN_BUILD / "attention.py")
    sys.path.insert(0, str(ATTN_BUILD))
    from attention import EncoderBlock

    torch.manual_seed(0)
    model = EncoderBlock(dim=BIG_DIM, heads=4, hidden=hidden).eval()
    torch.manual_seed(1)
    inputs = (torch.randn(1, BIG_TOKENS, BIG_DIM),)
    program = torch.onnx.export(model, inputs, dynamo=True, optimize=True)
    target = HERE / f"{stem}.onnx"
    program.save(str(target), external_data=True)
    return target


#: The statement ``extra`` adds to ``attention.py``'s ``forward`` after line 41.
EXTRA_STATEMENT = "        x = x + self.extra_out(F.relu(self.extra_in(x)))\n"
EXTRA_AFTER = 41


def export_extra() -> Path:
    """``attention_big_extra.onnx``: ``export_big``'s block (MLP ``BIG_HIDDEN``) with
    ``EXTRA_STATEMENT`` added to its source after line 41; its two layers are attributes
    set after construction (``__init__``'s lines stay as they are)."""
    import torch
    from torch import nn

    ATTN_BUILD.mkdir(parents=True, exist_ok=True)
    lines = ATTENTION_SOURCE.read_text().splitlines(keepends=True)
    assert lines[EXTRA_AFTER - 1].strip() == "x = x + self.fc2(h)", lines[EXTRA_AFTER - 1]
    lines.insert(EXTRA_AFTER, EXTRA_STATEMENT)
    (ATTN_BUILD / "attention.py").write_text("".join(lines))
    sys.path.insert(0, str(ATTN_BUILD))
    from attention import EncoderBlock

    torch.manual_seed(0)
    model = EncoderBlock(dim=BIG_DIM, heads=4, hidden=BIG_HIDDEN).eval()
    model.extra_in = nn.Linear(BIG_DIM, BIG_HIDDEN)
    model.extra_out = nn.Linear(BIG_HIDDEN, BIG_DIM)
    model.eval()
    torch.manual_seed(1)
    inputs = (torch.randn(1, BIG_TOKENS, BIG_DIM),)
    program = torch.onnx.export(model, inputs, dynamo=True, optimize=True)
    target = HERE / "attention_big_extra.onnx"
    program.save(str(target), external_data=True)
    return target


def profile_once(model: str, target: str, runs: int, optimise: bool) -> None:
    """One ONNX Runtime session in this process: warm-up + ``runs``, profile to ``target``."""
    import numpy as np
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.enable_profiling = True
    options.profile_file_prefix = target + ".tmp"
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    if not optimise:
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    feeds = {}
    for item in session.get_inputs():
        shape = [d if isinstance(d, int) and d > 0 else 1 for d in item.shape]
        feeds[item.name] = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    for _ in range(1 + runs):
        session.run(None, feeds)
    written = Path(session.end_profiling())
    if target.endswith(".gz"):
        with gzip.open(target, "wb", compresslevel=9) as sink:
            sink.write(written.read_bytes())
        written.unlink()
    else:
        written.replace(target)


def _on_cpu_0() -> None:
    os.sched_setaffinity(0, {0})


def _session(
    model: Path, target: Path, runs: int, *, optimise: bool = False, pinned: bool = False
) -> None:
    """A separate process per session (a new ONNX Runtime session, as on another day);
    ``pinned``: bound to CPU 0."""
    command = [sys.executable, __file__, "--session", str(model), str(target), str(runs)]
    if optimise:
        command.append("--optimise")
    subprocess.run(command, check=True, preexec_fn=_on_cpu_0 if pinned else None)
    events = json.loads(
        gzip.decompress(target.read_bytes()) if target.suffix == ".gz" else target.read_bytes()
    )
    runs_seen = sum(1 for event in events if event.get("name") == "model_run")
    print(f"{target.name}: {runs_seen} runs, {target.stat().st_size} bytes", flush=True)


def _start_hogs(count: int, *, pinned: bool = False) -> list[subprocess.Popen[bytes]]:
    hogs = [
        subprocess.Popen(
            [sys.executable, "-c", "while True:\n    pass"],
            preexec_fn=_on_cpu_0 if pinned else None,
        )
        for _ in range(count)
    ]
    time.sleep(1.0)
    return hogs


def _stop_hogs(hogs: list[subprocess.Popen[bytes]]) -> None:
    for hog in hogs:
        hog.kill()
    for hog in hogs:
        hog.wait()


def _loaded(model: Path, target: Path, hogs: int) -> None:
    started = _start_hogs(hogs)
    try:
        _session(model, target, NOISE_RUNS)
    finally:
        _stop_hogs(started)


def make_wide() -> None:
    wide = export_wide()
    _session(wide, HERE / "dscnn_wide_noopt.json", WIDE_RUNS)
    _session(wide, HERE / "dscnn_wide_opt.json", WIDE_RUNS, optimise=True)


def make_mlp2x(hogs: int) -> None:
    mlp2x = export_mlp2x()
    _session(mlp2x, HERE / "attention_mlp2x_idle_1.json.gz", NOISE_RUNS)
    _loaded(mlp2x, HERE / "attention_mlp2x_hog_1.json.gz", hogs)


def make_noise(hogs: int) -> None:
    big = export_big(BIG_HIDDEN, "attention_big")
    big_mlp2x = export_big(2 * BIG_HIDDEN, "attention_big_mlp2x")
    for pair in range(1, PAIRS + 1):
        for stem, model in (("dscnn", DSCNN_ONNX), ("attention_big", big)):
            _session(model, HERE / f"{stem}_idle_{pair}.json.gz", NOISE_RUNS)
            _loaded(model, HERE / f"{stem}_hog_{pair}.json.gz", hogs)
    for pair in (1, 2):
        _session(big_mlp2x, HERE / f"attention_big_mlp2x_idle_{pair}.json.gz", NOISE_RUNS)
        _loaded(big_mlp2x, HERE / f"attention_big_mlp2x_hog_{pair}.json.gz", hogs)


def export_unet() -> Path:
    """``unet.onnx``: ``unet.py``'s U-Net (seed 0), exported from ``/home/dev/unet/unet.py``."""
    import torch

    UNET_BUILD.mkdir(parents=True, exist_ok=True)
    shutil.copy(UNET_SOURCE, UNET_BUILD / "unet.py")
    sys.path.insert(0, str(UNET_BUILD))
    from unet import example_inputs, make_model

    program = torch.onnx.export(make_model(), example_inputs(), dynamo=True, optimize=True)
    target = HERE / "unet.onnx"
    program.save(str(target))
    return target


def make_unet(hogs: int) -> None:
    unet = export_unet()
    for pair in range(1, PAIRS + 1):
        _session(unet, HERE / f"unet_idle_{pair}.json.gz", NOISE_RUNS)
        _loaded(unet, HERE / f"unet_hog_{pair}.json.gz", hogs)
    for number in range(1, PAIRS + 1):
        started = _start_hogs(2, pinned=True)
        try:
            _session(unet, HERE / f"unet_pin_{number}.json.gz", NOISE_RUNS, pinned=True)
        finally:
            _stop_hogs(started)


def make_extra(hogs: int) -> None:
    extra = export_extra()
    _session(extra, HERE / "attention_big_extra_idle_1.json.gz", NOISE_RUNS)
    _loaded(extra, HERE / "attention_big_extra_hog_1.json.gz", hogs)


def main() -> None:
    if sys.argv[1:2] == ["--session"]:
        model, target, runs = sys.argv[2], sys.argv[3], int(sys.argv[4])
        profile_once(model, target, runs, "--optimise" in sys.argv)
        return
    parts = set(sys.argv[1:]) or {"wide", "mlp2x", "noise", "extra", "unet"}
    hogs = int(os.environ.get("HOGS", os.cpu_count() or 2))
    if "wide" in parts:
        make_wide()
    if "mlp2x" in parts:
        make_mlp2x(hogs)
    if "noise" in parts:
        make_noise(hogs)
    if "extra" in parts:
        make_extra(hogs)
    if "unet" in parts:
        make_unet(hogs)
    import numpy
    import onnxruntime
    import torch

    print(
        "torch",
        torch.__version__,
        "onnxruntime",
        onnxruntime.__version__,
        "numpy",
        numpy.__version__,
        "hogs",
        hogs,
        "cpus",
        os.cpu_count(),
    )


if __name__ == "__main__":
    main()
