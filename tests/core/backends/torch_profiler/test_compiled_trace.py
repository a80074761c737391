"""A real trace of a ``torch.compile``d model (inductor, ``models/compiled.py``), captured by
``perfline profile``'s helper: the compiled graph runs whole (no graph break at its
submodules), its time sits on the compiled ``forward``'s line and on the line that calls the
compiled module, and the result counts the graphs' runs and their time, from the raw events."""

from __future__ import annotations

import json

from tests.support.torch_traces import DATA, MODELS, line_figures, processed, trace_path

SOURCE = (DATA / "models" / "compiled.py").read_text().splitlines()


def _line(text: str, after: int = 0) -> int:
    return next(n for n, line in enumerate(SOURCE, 1) if n > after and line.strip() == text)


def test_the_compiled_graph_runs_whole_and_is_said() -> None:
    events = json.loads(trace_path("compiled").read_bytes())["traceEvents"]
    frames = {e["name"] for e in events if e.get("cat") == "python_function"}
    assert not [name for name in frames if "torch_dynamo_resume_in" in name]
    regions = [e for e in events if e["name"].startswith("Torch-Compiled Region: ")]
    total_ms = sum(e["dur"] for e in regions) / 1000

    document = processed(trace_path("compiled"), statements=True)
    (said,) = [w for w in document["results"][0]["warnings"] if "torch.compile" in w]
    assert f"{len(regions)} runs of torch.compile graphs ({total_ms:.4g} ms in all)" in said

    figures = line_figures(document, f"{MODELS}/compiled.py")
    stack_forward = _line(
        "def forward(self, x: torch.Tensor) -> torch.Tensor:", _line("class Stack(nn.Module):")
    )
    block_body = [
        _line("h = self.up(self.norm(x))"),
        _line("return x + self.down(functional.gelu(h))"),
    ]
    call = _line("logits = compiled(x)")
    assert figures[stack_forward] > 0
    assert figures[call] >= figures[stack_forward]
    assert not [line for line in block_body if line in figures]  # compiled: no frames
