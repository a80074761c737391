"""False alarms of ``perfline check`` on real noise pairs, and detection of a real change.

    python benchmarks/gate_noise.py [--limit 5]

Reads the profiles of ``tests/data/trust`` (see its README: the DS-CNN and the attention
block at width 256, three sessions each with the machine as it was and three beside two busy
processes; the block with a 2x-wide MLP, twice idle and twice loaded). For every pair of
sessions of one model
(idle against loaded, and idle against idle, loaded against loaded across pairs: separate
sessions under different or equal load) it compares the two runs as ``perfline check`` does
and prints, per pair, the model-wide estimate, the lines the gate fails, and the lines the
plain per-line gate (each line against the baseline, no model-wide factor: before this gate)
fails. Then the false-alarm rate over all pairs: the share of judged lines failed, and the
share of pairs with any failed line. Last, the 2x MLP (base: the attention block's sessions;
new: the 2x-MLP sessions, idle and loaded, and the idle one with every timing scaled by 1.25,
a uniform 25% slowdown): the lines each gate fails, which should be the MLP's (lines 40, 41)
and no others. Figures vary from run to run of the sessions, never from run to run of this
script (the profiles are committed).
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from perfline.core.backends.onnxruntime.document import analyze_profiles  # noqa: E402
from perfline.core.backends.source_model.inputs import InputFile  # noqa: E402
from perfline.core.compare import compare_documents  # noqa: E402
from perfline.core.compare.deltas import REGRESSION  # noqa: E402
from perfline.core.compare.gate import describe_model_wide, judge  # noqa: E402
from perfline.core.pipeline import postprocess  # noqa: E402

DATA = ROOT / "tests" / "data"
TRUST = DATA / "trust"
MODELS = {
    "dscnn": DATA / "formats" / "dscnn" / "dscnn.onnx",
    "attention_big": TRUST / "attention_big.onnx",
}
MLP2X = TRUST / "attention_big_mlp2x.onnx"
MLP_LINES = {40, 41}


def profile_bytes(path: Path, scale: float = 1.0) -> bytes:
    """The profile's bytes; ``scale`` multiplies every timestamp and duration (a uniform
    slowdown of the whole session)."""
    data = gzip.decompress(path.read_bytes())
    if scale == 1.0:
        return data
    events: list[dict[str, Any]] = json.loads(data)
    for event in events:
        for key in ("ts", "dur"):
            if isinstance(event.get(key), (int, float)):
                event[key] = event[key] * scale
    return json.dumps(events).encode()


def document(model: Path, profile: Path, scale: float = 1.0) -> dict[str, Any]:
    """The processed document of one session."""
    raw = analyze_profiles(
        InputFile(str(model), model.read_bytes()),
        [InputFile(profile.name, profile_bytes(profile, scale))],
        timestamp="2026-01-01T00:00:00Z",
    )
    return postprocess(raw)


def failed_lines(base: dict[str, Any], new: dict[str, Any], limit: float) -> tuple[Any, ...]:
    """(gate verdict, lines the gate fails, lines the plain per-line gate fails)."""
    comparison = compare_documents(base, new)
    verdict = judge(comparison, limit)
    gate = sorted(line.entity.new_line or 0 for line in verdict.regressions)
    plain = sorted(
        line.entity.new_line or 0
        for line in verdict.lines
        if line.delta.significant
        and line.delta.verdict == REGRESSION
        and (line.delta.relative is None or line.delta.relative > limit)
    )
    return verdict, gate, plain


def _load(name: str) -> str:
    """``idle`` or ``hog`` of a session name (``dscnn_hog_2``)."""
    return name.split("_")[-2]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=float, default=5.0, help="--max-regression in %%")
    limit = parser.parse_args().limit / 100
    totals = {
        "pairs": 0,
        "lines": 0,
        "gate_lines": 0,
        "plain_lines": 0,
        "gate_pairs": 0,
        "plain_pairs": 0,
    }
    sessions: dict[str, dict[str, dict[str, Any]]] = {}
    for stem, model in MODELS.items():
        sessions[stem] = {
            path.name.removesuffix(".json.gz"): document(model, path)
            for load in ("idle", "hog")
            for path in sorted(TRUST.glob(f"{stem}_{load}_[0-9].json.gz"))
        }
    print(f"limit {limit:.0%}")
    for runs in sessions.values():
        for base_name, new_name in itertools.permutations(sorted(runs), 2):
            if _load(base_name) == "hog" and _load(new_name) == "idle":
                continue  # each unordered idle/hog pair once, base idle
            if base_name > new_name and _load(base_name) == _load(new_name):
                continue
            verdict, gate, plain = failed_lines(runs[base_name], runs[new_name], limit)
            totals["pairs"] += 1
            totals["lines"] += len(verdict.lines)
            totals["gate_lines"] += len(gate)
            totals["plain_lines"] += len(plain)
            totals["gate_pairs"] += bool(gate)
            totals["plain_pairs"] += bool(plain)
            wide = "; ".join(describe_model_wide(item, limit) for item in verdict.model_wide)
            print(
                f"{base_name:>16} -> {new_name:<16} lines {len(verdict.lines):>2}  gate fails "
                f"{gate or '-'}  plain fails {plain or '-'}  | {wide}"
            )
    lines, pairs = totals["lines"], totals["pairs"]
    print(
        f"false alarms over {pairs} pairs, {lines} judged lines: gate {totals['gate_lines']} "
        f"lines ({totals['gate_lines'] / lines:.1%}), {totals['gate_pairs']} pairs "
        f"({totals['gate_pairs'] / pairs:.0%}); plain {totals['plain_lines']} lines "
        f"({totals['plain_lines'] / lines:.1%}), {totals['plain_pairs']} pairs "
        f"({totals['plain_pairs'] / pairs:.0%})"
    )
    attention = sessions["attention_big"]
    changed = {}
    for pair in (1, 2):
        for load in ("idle", "hog"):
            profile = TRUST / f"attention_big_mlp2x_{load}_{pair}.json.gz"
            changed[f"mlp2x {load} {pair}"] = document(MLP2X, profile)
        changed[f"mlp2x idle {pair} x1.25"] = document(
            MLP2X, TRUST / f"attention_big_mlp2x_idle_{pair}.json.gz", 1.25
        )
    found = missed = extra = 0
    for base_name in sorted(name for name in attention if "idle" in name):
        for new_name, new in changed.items():
            verdict, gate, plain = failed_lines(attention[base_name], new, limit)
            found += len(MLP_LINES & set(gate))
            missed += len(MLP_LINES - set(gate))
            extra += len(set(gate) - MLP_LINES)
            wide = "; ".join(describe_model_wide(item, limit) for item in verdict.model_wide)
            print(
                f"{base_name:>16} -> {new_name:<16} gate fails {gate or '-'}  plain fails "
                f"{plain or '-'}  | {wide}"
            )
    print(f"2x MLP: {found} of {found + missed} MLP lines failed, {extra} other lines failed")


if __name__ == "__main__":
    main()
