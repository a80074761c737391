"""``perfline check --baseline BASE NEW --max-regression 5%``: the CI gate.

Compares NEW with BASE like ``perfline compare`` (same inputs and options)
and judges every code line (``core.compare.gate``) against the model-wide
change (the median line ratio; printed on its own line): exit 1 when a line's
change beyond it is significant, a regression, and larger than the limit (or,
with ``--model-wide fail``, when the whole model regresses beyond it); 0
otherwise; 2 for bad input, for runs of different models and when no line
was judged. ``--sarif OUT.sarif`` writes one SARIF 2.1.0 result per
regressing line (located at its source file and line, relative to
``--source-root`` so code hosts annotate pull requests); ``--junit OUT.xml``
one test case per judged line. A call line whose change the lines it calls
account for is judged on those lines only (``core.compare.inclusive``).
"""

from __future__ import annotations

import sys
from typing import Any

import click

from perfline.clients.cli.announce import wrote
from perfline.clients.cli.common import guarded
from perfline.clients.cli.compare import (
    CompareRequest,
    comparison_options,
    parse_percent,
    report_warnings,
    run_comparison,
)
from perfline.clients.cli.files import replace_text
from perfline.core.compare.ci_reports import junit_text, sarif_text
from perfline.core.compare.deltas import CompareSettings
from perfline.core.compare.gate import (
    MODEL_WIDE_POLICIES,
    ModelWidePolicy,
    Verdict,
    describe,
    describe_model_wide,
    judge,
    runs_needed,
)
from perfline.core.errors import InputError
from perfline.core.escaping import terminal_text

EXIT_REGRESSION = 1


def _write(path: str, text: str, option: str) -> None:
    try:
        written = replace_text(path, text, parents=True)
    except InputError as error:
        reason = "; ".join(problem.message for problem in error.problems)
        raise InputError(path, f"cannot write ({option}): {reason}") from None
    wrote(written)


def _nothing_judged(verdict: Verdict) -> str:
    """Why a gate that judged no line is no pass."""
    reasons = []
    if verdict.one_sided:
        reasons.append(f"{verdict.one_sided} line(s) have a figure in one run only")
    if verdict.inclusive:
        reasons.append(f"{verdict.inclusive} call line(s) are judged on the lines they call")
    why = "; ".join(reasons) or "no code line has a figure of the judged metric in both runs"
    return (
        f"the gate judged no line ({why}); a gate that judged nothing has not passed "
        "(see perfline compare)"
    )


def _cannot_judge(verdict: Verdict, settings: CompareSettings) -> str:
    """Why a gate whose every line has too few runs is no pass, and how many would do."""
    lines = verdict.lines
    base = max(line.delta.base_runs for line in lines)
    new = max(line.delta.new_runs for line in lines)
    needed = runs_needed(len(lines), settings.level, settings.correction)
    return (
        f"the gate cannot find a regression: each of the {len(lines)} judged line(s) has too "
        f"few runs ({base} in the baseline, {new} in the new run, at most) for any change to be "
        f"significant at level {settings.level:g} ({settings.correction} correction over "
        f"{len(lines)} line(s)); record at least {needed} runs (steps) in each"
    )


@click.command("check")
@click.argument("new", metavar="NEW")
@click.option("--baseline", "base", required=True, metavar="BASE", help="The baseline run.")
@click.option(
    "--max-regression",
    default="5%",
    show_default=True,
    metavar="PERCENT",
    help="Largest significant slow-down a line may have.",
)
@click.option(
    "--model-wide",
    type=click.Choice(MODEL_WIDE_POLICIES),
    default="warn",
    show_default=True,
    help="Whether a change of every line alike (the model-wide factor) beyond the limit "
    "fails the gate, or is only reported.",
)
@click.option("--sarif", default=None, metavar="OUT.sarif", help="Write a SARIF 2.1.0 log.")
@click.option("--junit", default=None, metavar="OUT.xml", help="Write a JUnit XML report.")
@comparison_options
@guarded
def command(
    new: str,
    base: str,
    max_regression: str,
    model_wide: str,
    sarif: str | None,
    junit: str | None,
    **options: Any,
) -> None:
    """Fail (exit 1) when NEW has a significant regression beyond the limit against BASE.

    \b
    perfline check --baseline main/mlia-output.json mlia-output/mlia-output.json \\
        --max-regression 5% --sarif perfline.sarif --junit perfline.xml
    """
    limit = parse_percent(max_regression, "--max-regression")
    comparison, sources = run_comparison(base, new, CompareRequest(**options))
    report_warnings(comparison, sources)
    policy: ModelWidePolicy = "fail" if model_wide == "fail" else "warn"
    verdict = judge(comparison, limit, options["metrics"], policy)
    if verdict.judged_nothing:
        raise InputError(comparison.new_source, _nothing_judged(verdict))
    if verdict.blind:
        raise InputError(comparison.new_source, _cannot_judge(verdict, comparison.settings))
    if sarif is not None:
        _write(sarif, sarif_text(verdict, sources.locate), "--sarif")
    if junit is not None:
        _write(junit, junit_text(verdict), "--junit")
    regressions = verdict.regressions
    for item in verdict.model_wide:
        click.echo(f"perfline check: {describe_model_wide(item, limit)}")
    if verdict.underpowered:
        click.echo(
            f"note: {verdict.underpowered} line(s) have too few runs for any change to be "
            f"significant at level {comparison.settings.level:g}; record more runs",
            err=True,
        )
    if verdict.one_sided:
        click.echo(
            f"note: {verdict.one_sided} line(s) have a figure in only one of the runs; they "
            "are not judged (see perfline compare)",
            err=True,
        )
    if verdict.inclusive:
        click.echo(
            f"note: {verdict.inclusive} call line(s) carry figures that include the lines they "
            "call; their changes are judged on those lines (see perfline compare)",
            err=True,
        )
    if regressions:
        click.echo(f"perfline check: {len(regressions)} line(s) regress by more than {limit:.1%}:")
        for line in regressions:
            click.echo(f"  {terminal_text(describe(line))}")
        sys.exit(EXIT_REGRESSION)
    if not verdict.passed:
        click.echo(
            f"perfline check: the whole model regresses by more than {limit:.1%} "
            "(--model-wide fail)"
        )
        sys.exit(EXIT_REGRESSION)
    click.echo(
        f"perfline check: no significant regression beyond {limit:.1%} on "
        f"{len(verdict.lines)} judged line(s)"
    )
