"""Baselines in the editor (issue 22 item 3), end to end: the daemon as a subprocess over
stdio, driven by pytest-lsp's client, on copies of the example workspace.

Real data: the example's DS-CNN ExecuTorch portable ETDump set as the baseline from the
editor, then a second real ETDump of the same program written over it; the expected
changes come from the ExecuTorch Inspector's readings of both dumps (per-line per-run
sums, an exact rank test and Holm written in ``compare_data``), never from perfline.
A generated pair with one line 25% slower (pure noise elsewhere) shows that line, its
warning and nothing else; two real ONNX Runtime profiles of one model run interleaved
show no change at all.
"""

from __future__ import annotations

import ast
import asyncio
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests.support.compare_data import (
    FIRST_INSPECTOR,
    INTERLEAVED_A,
    INTERLEAVED_B,
    ORT_MODEL,
    ORT_SOURCE,
    RERUN,
    RERUN_INSPECTOR,
    exact_rank_p,
    generated_etdumps,
    holm,
    inspector_calls,
    inspector_inclusive_runs,
    inspector_line_runs,
    mean,
    percent_of,
    significant_lines,
    written,
)
from tests.support.lsp_session import Session, start
from tests.support.raw_events import raw_line_runs
from tests.support.server_helpers import KWS_FIGURE_LINES, copy_kws

pytestmark = pytest.mark.timeout(180)

JOB = "dscnn-measured"
ETDUMP = "dscnn_portable.etdump"


async def _until(probe: Callable[[], Any], timeout: float = 60.0) -> Any:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        found = await probe()
        if found:
            return found
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError(f"condition not reached; last: {found!r}")
        await asyncio.sleep(0.1)


def _replace(session: Session, name: str, source: Path) -> None:
    """Write ``source`` over the workspace file ``name`` and tell the daemon, as an editor's
    file watcher does."""
    target = session.root / name
    staging = target.with_name(target.name + ".tmp")
    shutil.copyfile(source, staging)
    staging.replace(target)
    session.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            [types.FileEvent(target.as_uri(), types.FileChangeType.Changed)]
        )
    )


async def _labels(session: Session, uri: str) -> dict[int, str]:
    return {h.position.line + 1: str(h.label) for h in await session.hints(uri)}


async def _hover(session: Session, uri: str, line: int) -> str:
    hover = await session.client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(line - 1, 8))
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    return hover.contents.value


async def _lenses(session: Session, uri: str) -> dict[int, str]:
    lenses = await session.client.text_document_code_lens_async(
        types.CodeLensParams(types.TextDocumentIdentifier(uri))
    )
    return {lens.range.start.line + 1: lens.command.title for lens in lenses or [] if lens.command}


def _warnings(session: Session, uri: str) -> dict[int, str]:
    return {
        d.range.start.line + 1: d.message
        for d in session.client.diagnostics.get(uri, [])
        if d.code == "regression"
    }


async def _set_baseline(session: Session, job: str) -> Any:
    answer = await session.request("perfline/setBaseline", {"job": job, "wait": True})
    assert answer.state == "set" and answer.error is None, answer
    return answer


def _expected_change(base: list[float], new: list[float]) -> tuple[str, float]:
    relative = mean(new) / mean(base) - 1
    return ("▲" if relative > 0 else "▼"), abs(relative) * 100


def _block_runs(runs: dict[int, list[float]], lines: list[int]) -> list[float]:
    return [sum(runs[n][k] for n in lines) for k in range(len(runs[lines[0]]))]


async def test_delta_hints_hover_lenses_and_warnings_on_two_real_runs(tmp_path: Path) -> None:
    first, rerun = inspector_line_runs(FIRST_INSPECTOR), inspector_line_runs(RERUN_INSPECTOR)
    calls = inspector_calls(FIRST_INSPECTOR)
    assert calls == inspector_calls(RERUN_INSPECTOR) == {41: {24, 25, 26, 27}}  # self.blocks(x)
    # The lines judged on their own figures (a call line's own calls are none: it is judged
    # apart, on its inclusive figure, see _call_line_is_inclusive).
    changed = significant_lines(first, rerun)
    assert changed == {26, 40, 42}  # the reference decides; perfline must agree
    inclusive = inspector_inclusive_runs(FIRST_INSPECTOR), inspector_inclusive_runs(RERUN_INSPECTOR)
    async with start(copy_kws(tmp_path), "stdio", "visual-studio-code") as session:
        await session.wait_analysed()
        uri = session.open("dscnn.py")
        before = await _labels(session, uri)
        assert sorted(before) == KWS_FIGURE_LINES
        assert not any(percent_of(label) for label in before.values())
        answer = await _set_baseline(session, JOB)
        assert answer.path == f".perfline/baselines/{JOB}/mlia-output.json"
        stored = session.root / answer.path
        assert json.loads(stored.read_text())["results"][0]["mode"] == "measured"
        assert (stored.parent / "sources" / "dscnn.py").read_text() == (
            session.root / "dscnn.py"
        ).read_text()
        # The same result is its own baseline: nothing changed, nothing is shown.
        assert not any(percent_of(label) for label in (await _labels(session, uri)).values())
        _replace(session, ETDUMP, RERUN)

        async def deltas_shown() -> dict[int, str] | None:
            labels = await _labels(session, uri)
            return labels if percent_of(labels.get(26, "")) else None

        labels = await _until(deltas_shown)
        jobs = (await session.request("perfline/jobs", {})).jobs
        assert [j.name for j in jobs] == [JOB]  # the stored baseline is never an input
        assert sorted(set(first) | set(calls)) == KWS_FIGURE_LINES
        for line in KWS_FIGURE_LINES:
            shown = percent_of(labels[line])
            if line not in changed:  # noise, or a call line's change (counted where it is)
                assert shown is None, (line, labels[line])  # noise is not a delta
                continue
            arrow, percent = _expected_change(first[line], rerun[line])
            assert shown is not None and shown[0] == arrow, (line, labels[line])
            assert abs(shown[1] - percent) <= 0.5 + 1e-9, (line, labels[line], percent)
            # the change sits after the value and statistic, the share after it
            assert re.match(r"^[\d.]+ ms avg [▲▼]\d+% · (<1|\d+)%$", labels[line]), labels[line]
        await _hover_rows(session, uri, 26, first[26], rerun[26], ("duration_avg",))
        every = ("duration_avg", "duration_min", "duration_max", "duration_p50", "duration_p90")
        await _hover_rows(session, uri, 42, first[42], rerun[42], every)
        await _call_line_is_inclusive(session, uri, calls, *inclusive)
        await _lens_changes(session, uri, calls, *inclusive)
        await _regression_warnings(session, uri, first, rerun, changed)


async def _hover_rows(
    session: Session,
    uri: str,
    line: int,
    base: list[float],
    new: list[float],
    statistics: tuple[str, ...],
) -> None:
    """Base, new, delta, change and verdict of every statistic the line holds (a line of
    one operator has them all; a line adding up several has their average)."""
    text = await _hover(session, uri, line)
    assert "**Against the baseline** `.perfline/baselines/dscnn-measured/mlia-output.json`" in text
    assert "Mann-Whitney U test of 10 + 10 runs, Holm correction" in text
    assert "| metric | base | new | delta | change | verdict |" in text
    rows = dict(
        (m.group(1), m.groups()[1:])
        for m in re.finditer(
            r"^\| (duration_\w+) \(ms\) \| ([\d.]+) \| ([\d.]+) \| ([+-][\d.]+) \| ([▲▼]\d+%) \| "
            r"(\w+)",
            text,
            re.M,
        )
    )
    assert set(rows) == set(statistics), text
    references = {
        "duration_avg": (mean(base), mean(new)),
        "duration_min": (min(base), min(new)),
        "duration_max": (max(base), max(new)),
    }
    for name in statistics:
        shown_base, shown_new, delta, change, verdict = rows[name]
        if name in references:
            old, now = references[name]
            assert shown_base == written(old), (name, shown_base, old)
            assert shown_new == written(now), (name, shown_new, now)
            sign = "+" if now > old else "-"
            assert delta == sign + written(abs(now - old)), (name, delta, now - old)
        # the statistics of one observation share its runs: judged together, each by its
        # own direction
        grew = float(shown_new) > float(shown_base)
        assert change.startswith("▲" if grew else "▼"), (name, change)
        assert verdict == ("regression" if grew else "improvement"), (name, verdict)


async def _call_line_is_inclusive(
    session: Session,
    uri: str,
    calls: dict[int, set[int]],
    first: dict[int, list[float]],
    rerun: dict[int, list[float]],
) -> None:
    """A call line's figure holds the lines it calls; its change is theirs: the hint shows
    none (checked with the other lines), the hover states the inclusive change and that it
    is counted on the lines it calls. Expected from the Inspector's stack traces: the line's
    calls at any depth, their runs tested apart from the lines judged on their own."""
    lines = sorted(calls)
    adjusted = holm([exact_rank_p(first[n], rerun[n]) for n in lines])
    for line, p_value in zip(lines, adjusted, strict=True):
        assert p_value < 0.05, (line, p_value)  # line 26's regression moves line 41 too
        arrow, percent = _expected_change(first[line], rerun[line])
        text = await _hover(session, uri, line)
        found = re.search(
            r"\*\*Against the baseline\*\* .*?: ([▲▼])(\d+)% inclusive: the lines this line calls "
            r"account for the change, and it is counted there\.",
            text,
        )
        assert found is not None, text
        assert found.group(1) == arrow and abs(float(found.group(2)) - percent) <= 0.5 + 1e-9
        (row,) = re.findall(r"^\| duration_avg \(ms\) \|.*$", text, re.M)
        base, new, _, change, verdict = (cell.strip() for cell in row.split("|")[2:7])
        assert (base, new) == (written(mean(first[line])), written(mean(rerun[line]))), row
        assert percent_of(change) == (arrow, float(found.group(2))), row
        assert verdict.startswith(
            ("regression" if arrow == "▲" else "improvement") + ", inclusive"
        ), row


def _blocks(source: str) -> dict[int, range]:
    """First line -> the lines of each function and class of ``source``."""
    spans: dict[int, range] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            spans[node.lineno] = range(node.lineno, (node.end_lineno or node.lineno) + 1)
    return spans


def _block_lines(span: range, figured: set[int], calls: dict[int, set[int]]) -> list[int]:
    """The lines a block total adds: its figured lines, less those a line of the block calls
    (a call line's figure already holds them)."""
    inside = {n for n in span if n in figured}
    called = {c for n in inside for c in calls.get(n, set())}
    return sorted(inside - called)


async def _lens_changes(
    session: Session,
    uri: str,
    calls: dict[int, set[int]],
    first: dict[int, list[float]],
    rerun: dict[int, list[float]],
) -> None:
    """Each block's lens states its total (the new run's figures), its own lines, and the
    change of that total, judged on the run-by-run sums of the lines the total adds (the
    Inspector's per-line runs, a call line's with its callees'), Holm over the file's blocks."""
    source = (session.root / "dscnn.py").read_text()
    spans = _blocks(source)
    blocks = {
        line: lines
        for line, span in spans.items()
        if (lines := _block_lines(span, set(first), calls))
    }
    assert blocks == {12: [24, 25, 26, 27], 23: [24, 25, 26, 27], 31: [40, 41, 42, 44],
                      39: [40, 41, 42, 44]}  # fmt: skip
    starts = sorted(blocks)
    adjusted = holm(
        [exact_rank_p(_block_runs(first, blocks[s]), _block_runs(rerun, blocks[s])) for s in starts]
    )
    titles = await _until(
        lambda: _lenses_when(session, uri, lambda ts: any(percent_of(v) for v in ts.values()))
    )
    for start_line, p_value in zip(starts, adjusted, strict=True):
        title = titles[start_line]
        total_part = title.split(": ", 1)[1].split(" · ")[0]
        base = sum(mean(first[n]) for n in blocks[start_line])
        new = sum(mean(rerun[n]) for n in blocks[start_line])
        # the figure stated first is the total of the new run
        assert total_part.startswith(f"{written(new)} ms total"), (title, new)
        own = [n for n in blocks[start_line] if n not in calls]
        if own != blocks[start_line]:
            assert f" · own lines {written(sum(mean(rerun[n]) for n in own))} ms" in title, title
        shown = percent_of(total_part)
        if p_value >= 0.05:
            assert shown is None, title
            continue
        assert shown is not None, title
        assert shown[0] == ("▲" if new > base else "▼")
        assert abs(shown[1] - abs(new / base - 1) * 100) <= 0.5 + 1e-9, (title, new / base - 1)
        # the change follows the total (or the sum "on the lines with figures")
        assert re.search(r" ms (total|on the lines with figures) [▲▼]", title)


async def _lenses_when(
    session: Session, uri: str, condition: Callable[[dict[int, str]], bool]
) -> dict[int, str] | None:
    titles = await _lenses(session, uri)
    return titles if condition(titles) else None


async def _regression_warnings(
    session: Session,
    uri: str,
    first: dict[int, list[float]],
    rerun: dict[int, list[float]],
    changed: set[int],
) -> None:
    slower = {n for n in changed if mean(rerun[n]) > mean(first[n]) * 1.05}
    assert slower == {26, 40}

    async def warned() -> dict[int, str] | None:
        found = _warnings(session, uri)
        return found if set(found) == slower else None

    found = await _until(warned)
    assert "regressed against the baseline" in found[26] and "beyond the 5% regression" in found[26]
    (warning,) = [d for d in session.client.diagnostics[uri] if d.range.start.line == 25]
    assert warning.severity == types.DiagnosticSeverity.Warning


async def test_a_generated_regression_is_shown_and_the_noise_is_not(tmp_path: Path) -> None:
    base, new = generated_etdumps(tmp_path)
    root = copy_kws(tmp_path)
    shutil.copyfile(base, root / ETDUMP)
    async with start(root, "stdio", "visual-studio-code") as session:
        await session.wait_analysed()
        uri = session.open("dscnn.py")
        await _set_baseline(session, JOB)
        _replace(session, ETDUMP, new)

        async def line_26_changed() -> dict[int, str] | None:
            labels = await _labels(session, uri)
            return labels if percent_of(labels.get(26, "")) else None

        labels = await _until(line_26_changed)
        arrow, percent = percent_of(labels[26]) or ("", 0.0)
        assert arrow == "▲" and 10 <= percent <= 40, labels[26]
        assert [n for n, label in labels.items() if percent_of(label)] == [26], labels
        await _until(lambda: _async(set(_warnings(session, uri)) == {26}))
        text = await _hover(session, uri, 40)  # a line with noise only
        assert "within the runs' spread, not a change" in text
        # A higher threshold (the user setting) keeps the hint and drops the warning.
        session.client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(
                settings={"perfline": {"compare": {"regressionThreshold": 50}}}
            )
        )
        await _until(lambda: _async(not _warnings(session, uri)))
        assert percent_of((await _labels(session, uri))[26])


async def _async(value: Any) -> Any:
    return value


async def test_interleaved_runs_of_one_model_show_no_change(tmp_path: Path) -> None:
    root = tmp_path / "ort"
    root.mkdir()
    for source in (ORT_MODEL, ORT_SOURCE):
        shutil.copyfile(source, root / source.name)
    shutil.copyfile(INTERLEAVED_A, root / "run.json")
    (root / "perfline.toml").write_text(
        '[[path_map]]\nfrom = "/home/dev/kws/"\nto = "."\n\n'
        '[[jobs]]\nname = "ort"\nbackend = "onnxruntime"\ninputs = ["dscnn.onnx", "run.json"]\n'
    )
    async with start(root, "stdio", "visual-studio-code") as session:
        await session.wait_analysed()
        uri = session.open("dscnn.py")
        first = await _labels(session, uri)
        assert len(first) >= 5
        await _set_baseline(session, "ort")
        _replace(session, "run.json", INTERLEAVED_B)

        async def compared() -> tuple[str, dict[int, str]] | None:
            # The baseline against itself is also "+ 30 runs": wait for the new profile's
            # figures (they differ from the first ones), then for its comparison.
            labels = await _labels(session, uri)
            if labels == first:
                return None
            text = await _hover(session, uri, 40)
            if "Against the baseline" in text and "+ 30 runs" in text:
                return text, labels
            return None

        text, labels = await _until(compared)
        assert "within the runs' spread, not a change" in text
        assert not any(percent_of(label) for label in labels.values()), labels  # ...no delta
        assert not _warnings(session, uri)
        answer = await session.request("perfline/compare", {"job": "ort", "wait": True})
        (job,) = answer.jobs
        judged = [m for line in job.lines for m in line.metrics if m.method == "samples"]
        # every figure both runs have was judged from its 30 + 30 runs, and nothing changed
        # (run counts compare exactly: unchanged); the lines judged are every line the raw
        # profiles' node events cover in both runs, call line 41 (its figure the sum of the
        # lines it calls, in both runs) among them
        methods = {m.method for line in job.lines for m in line.metrics}
        assert methods == {"samples", "exact"}, methods
        sampled = {
            line.line for line in job.lines if any(m.method == "samples" for m in line.metrics)
        }
        raw = set(raw_line_runs(INTERLEAVED_A)) & set(raw_line_runs(INTERLEAVED_B))
        assert sampled == raw and 41 in raw, (sampled, raw)
        assert {m.verdict for line in job.lines for m in line.metrics if m.method == "exact"} == {
            "unchanged"
        }
        assert len({line.line for line in job.lines}) >= len(labels) - 1 >= 5
        assert all(m.base_runs == m.new_runs == 30 for m in judged)
        assert not any(m.significant for line in job.lines for m in line.metrics)


async def test_perfline_compare_answers_per_line(tmp_path: Path) -> None:
    async with start(copy_kws(tmp_path), "stdio", "neovim@v0.11") as session:
        await session.wait_analysed()
        answer = await session.request("perfline/compare", {"wait": True})
        (job,) = answer.jobs
        assert job.job == JOB and job.state == "no-baseline" and job.baseline is None
        await _set_baseline(session, JOB)
        _replace(session, ETDUMP, RERUN)
        uri = session.open("dscnn.py")
        await _until(lambda: _labels_with_delta(session, uri))
        answer = await session.request(
            "perfline/compare", {"job": JOB, "file": "dscnn.py", "wait": True}
        )
        (job,) = answer.jobs
        assert job.state == "ready" and job.error is None
        assert job.baseline.origin == "command" and job.baseline.path.endswith("mlia-output.json")
        assert job.settings.level == 0.05 and job.settings.correction == "holm"
        lines = {line.line: line for line in job.lines}
        assert sorted(lines) == KWS_FIGURE_LINES
        line = lines[26]
        assert line.status == "common" and line.baseLine == 26 and line.currentLine == 26
        (avg,) = [m for m in line.metrics if m.name == "duration_avg"]
        assert avg.verdict == "regression" and avg.significant and avg.base_runs == 10
        assert any(m.name == "inference_time" for m in job.model)
        changes = await session.request("perfline/compare", {"job": JOB, "changesOnly": True})
        assert {line.line for line in changes.jobs[0].lines} <= set(KWS_FIGURE_LINES)
        # The LSP commands (any client): clear, then set again, without waiting.
        stored = session.root / ".perfline" / "baselines" / JOB / "mlia-output.json"
        await session.client.workspace_execute_command_async(
            types.ExecuteCommandParams("perfline.clearBaseline", [JOB])
        )
        await _until(lambda: _async(not stored.exists()))

        async def state() -> str:
            answer = await session.request("perfline/compare", {"job": JOB, "wait": True})
            return str(answer.jobs[0].state)

        await _until(lambda: _equal(state(), "no-baseline"))
        await session.client.workspace_execute_command_async(
            types.ExecuteCommandParams("perfline.setBaseline", [JOB])
        )
        await _until(lambda: _equal(state(), "ready"))
        assert stored.is_file()
        # (pygls reads the command handlers' annotations: the commands run at all)
        scheduled = await session.client.workspace_execute_command_async(
            types.ExecuteCommandParams("perfline.reanalyze", [JOB])
        )
        assert scheduled == {"scheduled": [JOB]}
        for params, text in (
            ({"job": "nope"}, "unknown job 'nope'"),
            ({"wait": "yes"}, "parameter 'wait' must be true or false"),
            ({"level": 2}, "perfline.compare.level"),
        ):
            with pytest.raises(Exception) as caught:
                await session.request("perfline/compare", params)
            assert text in str(caught.value)


async def _equal(found: Any, expected: Any) -> bool:
    return bool(await found == expected)


async def _labels_with_delta(session: Session, uri: str) -> bool:
    return any(percent_of(label) for label in (await _labels(session, uri)).values())


async def test_a_configured_baseline_and_its_diagnostic(tmp_path: Path) -> None:
    """``baseline = ...`` in perfline.toml: missing, a diagnostic on that line (the job's
    figures served as before); written (the rerun's processed document), the deltas."""
    other = copy_kws(tmp_path / "other")
    shutil.copyfile(RERUN, other / ETDUMP)
    root = copy_kws(tmp_path)
    config = root / "perfline.toml"
    config.write_text(config.read_text().rstrip("\n") + '\nbaseline = "baselines/rerun.json"\n')
    line = config.read_text().split("\n").index('baseline = "baselines/rerun.json"') + 1
    async with start(root, "stdio", "visual-studio-code") as session:
        await session.wait_analysed()
        uri = session.open("dscnn.py")
        config_uri = config.as_uri()

        async def diagnosed() -> list[types.Diagnostic] | None:
            found = [d for d in session.client.diagnostics.get(config_uri, []) if d.code]
            return found or None

        (diagnostic,) = await _until(diagnosed)
        assert diagnostic.code == "baseline" and diagnostic.range.start.line == line - 1
        assert diagnostic.severity == types.DiagnosticSeverity.Error
        assert "the baseline baselines/rerun.json does not exist" in diagnostic.message
        assert sorted(await _labels(session, uri)) == KWS_FIGURE_LINES
        async with start(other, "stdio", "neovim@v0.11") as producer:
            await producer.wait_analysed()
            document = (await producer.request("perfline/result", {"job": JOB})).document
        (root / "baselines").mkdir()
        (root / "baselines" / "rerun.json").write_text(json.dumps(_plain(document)))
        session.client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                [
                    types.FileEvent(
                        (root / "baselines/rerun.json").as_uri(), types.FileChangeType.Created
                    )
                ]
            )
        )

        async def reversed_deltas() -> dict[int, str] | None:
            labels = await _labels(session, uri)
            shown = percent_of(labels.get(26, ""))
            return labels if shown and shown[0] == "▼" else None

        labels = await _until(reversed_deltas)
        assert percent_of(labels[42]) is not None and percent_of(labels[42])[0] == "▲"
        await _until(lambda: _async(not session.client.diagnostics.get(config_uri)))
        assert "(perfline.toml)" in await _hover(session, uri, 26)


def _plain(value: Any) -> Any:
    """A pytest-lsp answer (named tuples) as plain JSON values."""
    if hasattr(value, "_asdict"):
        return {k: _plain(v) for k, v in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value
