"""False alarms of ``perfline check`` on real noise pairs, its floor, and detection of real changes.

    python benchmarks/gate_noise.py [--limit 5] [--min-share 0.5]

Reads the profiles of ``tests/data/trust`` (see its README): the DS-CNN and the attention
block at width 256, three sessions each with the machine as it was and three beside two busy
processes; a small U-Net whose pooling, upsampling and concatenation lines hold a few
microseconds each, three idle, three beside the busy processes and three pinned with two busy
processes to one CPU; the block with a 2x-wide MLP, twice idle and twice loaded; the block with
a statement added (line 42), once idle and once loaded. For every pair of sessions of one model
(separate sessions under different or equal load, each unordered pair once) it compares the
two runs as ``perfline check`` does and prints, per pair, the model-wide estimate, the lines
the gate fails, the lines it fails without its floor (``--min-share 0``: before the floor),
and the lines the plain per-line gate (each line against the baseline, no model-wide factor:
before the model-wide gate) fails. Then the false-alarm rate over all pairs for each: the
share of judged lines failed, and the share of pairs with any failed line; and for a range of
floors. Last, the 2x MLP (base: the attention block's idle sessions; new: the 2x-MLP sessions,
and the idle ones with every timing scaled by 1.25, a uniform 25% slowdown): the lines each
gate fails, which should be the MLP's (lines 40, 41) and no others; and the added statement
against every session of the block: the new line fails, nothing else. Figures vary from run to
run of the sessions, never from run to run of this script (the profiles are committed).
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
from perfline.core.compare import Comparison, compare_documents  # noqa: E402
from perfline.core.compare.deltas import REGRESSION  # noqa: E402
from perfline.core.compare.gate import describe_model_wide, judge  # noqa: E402
from perfline.core.pipeline import postprocess  # noqa: E402

DATA = ROOT / "tests" / "data"
TRUST = DATA / "trust"
MODELS = {
    "dscnn": DATA / "formats" / "dscnn" / "dscnn.onnx",
    "attention_big": TRUST / "attention_big.onnx",
    "unet": TRUST / "unet.onnx",
}
LOADS = ("idle", "hog", "pin")
MLP2X = TRUST / "attention_big_mlp2x.onnx"
MLP_LINES = {40, 41}
EXTRA = TRUST / "attention_big_extra.onnx"
EXTRA_LINE = 42
FLOORS = (0.0, 0.0025, 0.005, 0.01, 0.02)


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


def failed_lines(comparison: Comparison, limit: float, floor: float) -> tuple[Any, ...]:
    """(gate verdict, lines the gate fails, lines it fails without its floor, lines the plain
    per-line gate fails)."""
    verdict = judge(comparison, limit, min_share=floor)
    bare = judge(comparison, limit, min_share=0.0)
    gate = sorted(line.entity.new_line or 0 for line in verdict.regressions)
    no_floor = sorted(line.entity.new_line or 0 for line in bare.regressions)
    plain = sorted(
        line.entity.new_line or 0
        for line in verdict.lines
        if line.delta.significant
        and line.delta.verdict == REGRESSION
        and (line.delta.relative is None or line.delta.relative > limit)
    )
    return verdict, gate, no_floor, plain


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=float, default=5.0, help="--max-regression in %%")
    parser.add_argument("--min-share", type=float, default=0.5, help="--min-share in %%")
    arguments = parser.parse_args()
    limit, floor = arguments.limit / 100, arguments.min_share / 100
    sessions: dict[str, dict[str, dict[str, Any]]] = {}
    for stem, model in MODELS.items():
        sessions[stem] = {
            path.name.removesuffix(".json.gz"): document(model, path)
            for load in LOADS
            for path in sorted(TRUST.glob(f"{stem}_{load}_[0-9].json.gz"))
        }
    print(f"limit {limit:.0%}, floor {floor:.1%} of the model")
    comparisons = []
    counts = dict.fromkeys(("pairs", "lines", "gate", "no_floor", "plain"), 0)
    pairs_with = dict.fromkeys(("gate", "no_floor", "plain"), 0)
    per_model = []
    for stem, runs in sessions.items():
        before = dict(counts)
        for base_name, new_name in itertools.combinations(runs, 2):
            comparisons.append(compare_documents(runs[base_name], runs[new_name]))
            verdict, *failed = failed_lines(comparisons[-1], limit, floor)
            counts["pairs"] += 1
            counts["lines"] += len(verdict.lines)
            for key, lines in zip(("gate", "no_floor", "plain"), failed, strict=True):
                counts[key] += len(lines)
                pairs_with[key] += bool(lines)
            wide = "; ".join(describe_model_wide(item, limit) for item in verdict.model_wide)
            gate, no_floor, plain = failed
            print(
                f"{base_name:>20} -> {new_name:<20} lines {len(verdict.lines):>2}  gate fails "
                f"{gate or '-'}  without floor {no_floor or '-'}  plain {plain or '-'}  | {wide}"
            )
        moved = {key: counts[key] - before[key] for key in counts}
        per_model.append(
            f"  {stem}: {moved['pairs']} pairs, {moved['lines']} lines; gate {moved['gate']}, "
            f"without floor {moved['no_floor']}, plain {moved['plain']}"
        )
    lines, pairs = counts["lines"], counts["pairs"]
    print("false alarm lines per model:", *per_model, sep="\n")
    print(f"false alarms over {pairs} pairs, {lines} judged lines:")
    for key, name in (
        ("gate", f"gate, floor {floor:.1%}"),
        ("no_floor", "gate without floor"),
        ("plain", "plain per-line gate"),
    ):
        print(
            f"  {name}: {counts[key]} lines ({counts[key] / lines:.1%}), "
            f"{pairs_with[key]} pairs ({pairs_with[key] / pairs:.0%})"
        )
    changed = _changed_sessions()
    attention = sessions["attention_big"]
    idle = sorted(name for name in attention if "idle" in name)
    mlp_pairs = {
        (base_name, new_name): compare_documents(attention[base_name], new)
        for base_name in idle
        for new_name, new in changed.items()
    }
    for value in FLOORS:
        failed = [
            judge(comparison, limit, min_share=value).regressions for comparison in comparisons
        ]
        alarms = sum(len(found) for found in failed)
        found_mlp = sum(
            len(MLP_LINES & {line.entity.new_line for line in verdict.regressions})
            for verdict in (judge(item, limit, min_share=value) for item in mlp_pairs.values())
        )
        print(
            f"  floor {value:.2%}: {alarms} false alarm lines, "
            f"{sum(bool(found) for found in failed)} pairs; "
            f"2x MLP lines failed {found_mlp} of {2 * len(mlp_pairs)}"
        )
    found = missed = extra = 0
    for (base_name, new_name), comparison in mlp_pairs.items():
        verdict, gate, no_floor, plain = failed_lines(comparison, limit, floor)
        found += len(MLP_LINES & set(gate))
        missed += len(MLP_LINES - set(gate))
        extra += len(set(gate) - MLP_LINES)
        wide = "; ".join(describe_model_wide(item, limit) for item in verdict.model_wide)
        print(
            f"{base_name:>20} -> {new_name:<20} gate fails {gate or '-'}  without floor "
            f"{no_floor or '-'}  plain {plain or '-'}  | {wide}"
        )
    print(f"2x MLP: {found} of {found + missed} MLP lines failed, {extra} other lines failed")
    _added_statement(attention, limit, floor)


def _changed_sessions() -> dict[str, dict[str, Any]]:
    """The 2x-MLP sessions, and the idle ones 25% slower."""
    changed = {}
    for pair in (1, 2):
        for load in ("idle", "hog"):
            profile = TRUST / f"attention_big_mlp2x_{load}_{pair}.json.gz"
            changed[f"mlp2x {load} {pair}"] = document(MLP2X, profile)
        changed[f"mlp2x idle {pair} x1.25"] = document(
            MLP2X, TRUST / f"attention_big_mlp2x_idle_{pair}.json.gz", 1.25
        )
    return changed


def _added_statement(attention: dict[str, dict[str, Any]], limit: float, floor: float) -> None:
    """The block with a statement added (line 42) against every session of the block."""
    failed = other = pairs = 0
    for load in ("idle", "hog"):
        new = document(EXTRA, TRUST / f"attention_big_extra_{load}_1.json.gz")
        for base_name, base in attention.items():
            verdict = judge(compare_documents(base, new), limit, min_share=floor)
            pairs += 1
            new_lines = [line.entity.new_line for line in verdict.new_line_failures]
            failed += new_lines == [EXTRA_LINE]
            other += len(verdict.regressions)
            shares = ", ".join(f"{line.share:.1%}" for line in verdict.new_lines)
            print(f"{base_name:>20} -> extra {load:<6} failing {new_lines or '-'}: {shares}")
    print(
        f"added statement: line {EXTRA_LINE} fails in {failed} of {pairs} pairs; "
        f"{other} other lines fail"
    )


if __name__ == "__main__":
    main()
