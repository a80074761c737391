"""Run generated documents through perfline and the reference, compare, and
say which stage a disagreement comes from.

The reference runs in one subprocess per batch (``oracle_runner.py`` under
the Python named by ``PERFLINE_ORACLE_PYTHON``), so thousands of documents
cost one interpreter start-up per batch. Outputs are compared as canonical
JSON (sorted keys, compact) after undoing perfline's documented deviations (D6,
exact float sums, by running perfline in ``float_sums="reference"`` mode).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from perfline.core.code_lines import derive_code_lines
from perfline.core.collapse import collapse_result
from perfline.core.collapse_rules import effective_rules, parse_rule
from perfline.core.document import normalize_result
from perfline.core.errors import InputError
from perfline.core.pipeline import PipelineSettings, postprocess
from perfline.core.projection import FloatSums
from tests.support.deviations import strip_deviations
from tests.support.document_generator import Settings, generate, settings_for
from tests.support.locations import TESTS

RUNNER = TESTS / "product" / "differential" / "oracle_runner.py"
NX_RULE = "code_stack:file:**/site-packages/torch/**,**/site-packages/executorch/**"


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


@dataclass
class Outcome:
    """One side's answer: a document or an error message."""

    output: Any = None
    error: str | None = None


@dataclass
class Comparison:
    seed: int
    settings: Settings
    category: str
    detail: str = ""


@dataclass
class Summary:
    comparisons: list[Comparison] = field(default_factory=list)

    @property
    def counts(self) -> Counter[str]:
        return Counter(c.category for c in self.comparisons)

    def disagreements(self) -> list[Comparison]:
        return [c for c in self.comparisons if c.category != "agree"]

    def report(self, limit: int = 15) -> str:
        lines = [
            f"{len(self.comparisons)} documents: "
            + ", ".join(f"{name} {count}" for name, count in sorted(self.counts.items()))
        ]
        for item in self.disagreements()[:limit]:
            lines.append(
                f"  seed {item.seed} [{item.settings.label}] {item.category}: {item.detail}"
            )
        return "\n".join(lines)


def oracle_rules(settings: Settings) -> list[str]:
    return ([NX_RULE] if settings.use_backend_defaults else []) + list(settings.collapse)


def run_oracle(
    python: str, requests: Sequence[tuple[Any, Settings]], timeout: float
) -> list[Outcome]:
    """The reference's answers, one subprocess for the whole batch."""
    payload = "".join(
        json.dumps({"document": document, "collapse": oracle_rules(settings)}) + "\n"
        for document, settings in requests
    )
    process = subprocess.run(
        [python, str(RUNNER)],
        input=payload,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if process.returncode != 0:
        raise RuntimeError(f"oracle runner failed: {process.stderr[-2000:]}")
    outcomes = []
    for line in process.stdout.splitlines():
        reply = json.loads(line)
        if "output" in reply:
            outcomes.append(Outcome(output=reply["output"]))
        else:
            outcomes.append(Outcome(error=reply.get("error") or "CRASH " + reply["crash"]))
    if len(outcomes) != len(requests):
        raise RuntimeError(f"oracle runner answered {len(outcomes)} of {len(requests)}")
    return outcomes


def pipeline_settings(settings: Settings, float_sums: FloatSums = "reference") -> PipelineSettings:
    """The settings of a comparison with the reference: its float arithmetic (deviation
    D6 undone) unless ``float_sums`` says otherwise."""
    return PipelineSettings(
        collapse_rules=tuple(parse_rule(text) for text in settings.collapse),
        use_backend_defaults=settings.use_backend_defaults,
        float_sums=float_sums,
    )


def run_perfline(document: Any, settings: Settings) -> Outcome:
    try:
        return Outcome(output=postprocess(document, pipeline_settings(settings), source="doc"))
    except InputError as error:
        return Outcome(error="\n".join(problem.message for problem in error.problems))


def stage_output(document: Any, settings: Settings) -> list[dict[str, Any]]:
    """perfline's results after collapse and code lines only (before projection)."""
    staged = []
    for raw in document["results"]:
        typed = normalize_result(raw)
        rules = effective_rules(
            typed["producer"],
            pipeline_settings(settings).collapse_rules,
            use_backend_defaults=settings.use_backend_defaults,
        )
        staged.append(derive_code_lines(collapse_result(typed, rules)))
    return staged


def classify(document: Any, settings: Settings, ours: Outcome, theirs: Outcome) -> tuple[str, str]:
    """("agree" | "error" | "collapse/code-line" | "projection" | "other", detail)."""
    if ours.error is not None or theirs.error is not None:
        both = ours.error is not None and theirs.error is not None
        if both and all(line in str(theirs.error) for line in str(ours.error).splitlines()):
            return "agree", ""
        return "error", f"perfline: {ours.error!r} reference: {theirs.error!r}"
    mine = strip_deviations(ours.output)
    if canonical(mine) == canonical(theirs.output):
        return "agree", ""
    staged = stage_output(document, settings)
    for index, (result, reference) in enumerate(
        zip(mine["results"], theirs.output["results"], strict=True)
    ):
        for key in ("entities", "checks", "advice", "warnings"):
            if canonical(result.get(key, [])) != canonical(reference.get(key, [])):
                return "collapse/code-line", f"results[{index}].{key} differ"
        authoritative = len(staged[index].get("breakdowns", []))
        ours_b = result.get("breakdowns", [])
        theirs_b = reference.get("breakdowns", [])
        if canonical(ours_b[:authoritative]) != canonical(theirs_b[:authoritative]):
            return "collapse/code-line", f"results[{index}] authoritative breakdowns differ"
        if canonical(ours_b) != canonical(theirs_b):
            mine_t = {canonical(b) for b in ours_b[authoritative:]}
            theirs_t = {canonical(b) for b in theirs_b[authoritative:]}
            extra = sorted({json.loads(b)["entity_id"] for b in mine_t - theirs_t})
            missing = sorted({json.loads(b)["entity_id"] for b in theirs_t - mine_t})
            return "projection", f"results[{index}] perfline only {extra} reference only {missing}"
    return "other", "documents differ outside entities and breakdowns"


def compare_seeds(
    python: str,
    seeds: Iterable[int],
    batch: int = 100,
    timeout: float = 1800,
    chains: int | None = None,
) -> Summary:
    summary = Summary()
    seeds = list(seeds)
    for start in range(0, len(seeds), batch):
        chunk = seeds[start : start + batch]
        requests = [(generate(seed, chains), settings_for(seed)) for seed in chunk]
        answers = run_oracle(python, requests, timeout)
        for seed, (document, settings), theirs in zip(chunk, requests, answers, strict=True):
            ours = run_perfline(document, settings)
            category, detail = classify(document, settings, ours, theirs)
            summary.comparisons.append(Comparison(seed, settings, category, detail))
    return summary


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description="perfline vs the reference on generated documents")
    parser.add_argument("--python", required=True, help="a Python with mlia 0.12.3")
    parser.add_argument("--count", type=int, default=50)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--show", type=int, default=30)
    parser.add_argument("--chains", type=int, help="chains per document (default: 1-14 by seed)")
    args = parser.parse_args(argv)
    summary = compare_seeds(
        args.python,
        range(args.first_seed, args.first_seed + args.count),
        args.batch,
        chains=args.chains,
    )
    print(summary.report(args.show))
    return 0 if not summary.disagreements() else 1


if __name__ == "__main__":
    sys.exit(main())
