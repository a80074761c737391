"""Documents the HTML report tests read: the DS-CNN measured with ExecuTorch, and NX shapes."""

from __future__ import annotations

import functools
import json
import re
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from click.testing import CliRunner

from perfline.clients.cli import cli
from perfline.core.pipeline import PipelineSettings, postprocess
from tests.support.documents import nx_document
from tests.support.inspector_stacks import lines_called, user_line_traces
from tests.support.locations import REPO

DATA = REPO / "tests" / "data"
MEASURED = DATA / "measured" / "portable"
SOURCE = DATA / "formats" / "dscnn" / "dscnn.py"
RECORDED = "/home/dev/kws/dscnn.py"
_USER_LINE = re.compile(r'File "/home/dev/kws/dscnn\.py", line (\d+)')


@functools.cache
def _example_text() -> str:
    out = Path(tempfile.mkdtemp(prefix="perfline-html-example-"))
    done = CliRunner().invoke(
        cli,
        [
            "analyze",
            str(MEASURED / "dscnn_portable.etrecord"),
            str(MEASURED / "dscnn_portable.etdump"),
            "--output-dir",
            str(out),
            "--json",
        ],
    )
    assert done.exit_code == 0, done.output
    shutil.rmtree(out, ignore_errors=True)
    return done.stdout


def example_document() -> dict[str, Any]:
    """The DS-CNN's measured document, post-processed (``perfline analyze``), a fresh copy."""
    document: dict[str, Any] = json.loads(_example_text())
    return document


def inspector_figures() -> tuple[dict[int, float], dict[int, int], float]:
    """From ExecuTorch's own Inspector reading of the same ETDump: per innermost user line, the
    summed average of its OPERATOR_CALL events and how many there are; and the sum over all."""
    inspector = json.loads((MEASURED / "dscnn_portable.inspector.json").read_text())
    (execute,) = [b for b in inspector["event_blocks"] if b["name"] == "Execute"]
    lines: dict[int, float] = {}
    counts: dict[int, int] = {}
    total = 0.0
    for event in execute["events"]:
        if event["name"] != "OPERATOR_CALL":
            continue
        total += event["perf_ms"]["avg"]
        for trace in event["stack_traces"].values():
            found = _USER_LINE.findall(trace)
            if found:
                line = int(found[-1])
                lines[line] = lines.get(line, 0.0) + event["perf_ms"]["avg"]
                counts[line] = counts.get(line, 0) + 1
                break
    return lines, counts, total


def inspector_stack_lines() -> dict[int, set[int]]:
    """From the same Inspector reading: every user line of ``dscnn.py`` an OPERATOR_CALL's stack
    passes through, with the user lines below it in those stacks (empty for most lines; a call
    line such as ``x = self.blocks(x)`` calls the lines of the block)."""
    return lines_called(user_line_traces())


class WalkedLine(NamedTuple):
    """A code line of a processed result as its entities link it (walked in the tests)."""

    entity_id: str
    operators: frozenset[str]
    """The source operators below its code stacks, at any depth."""
    calls: frozenset[tuple[str, int]]
    """The (file, line) of the code stacks below its own, its own left out."""


def walk_lines(document: Mapping[str, Any]) -> dict[tuple[str, int], WalkedLine]:
    """(file, line) -> each code line of the first result, read off the entities' parent and
    child links alone: a code line's code stacks, the stacks below them and their operators."""
    entities = document["results"][0]["entities"]
    by_id = {e["id"]: e for e in entities}
    children: dict[str, set[str]] = {e["id"]: set(e.get("child_ids") or ()) for e in entities}
    for entity in entities:
        for parent in entity.get("parent_ids") or ():
            children.setdefault(parent, set()).add(entity["id"])

    def place(entity_id: str) -> tuple[str, int]:
        attributes = by_id[entity_id]["attributes"]
        return attributes["file"], attributes["line"]

    walked: dict[tuple[str, int], WalkedLine] = {}
    for entity in entities:
        if entity["kind"] != "code_line":
            continue
        operators: set[str] = set()
        frames: set[tuple[str, int]] = set()
        todo = [c for c in children[entity["id"]] if by_id[c]["kind"] == "code_stack"]
        seen = set(todo)
        while todo:
            stack = todo.pop()
            for child in children.get(stack, ()):
                kind = by_id[child]["kind"]
                if kind == "source_operator":
                    operators.add(child)
                elif kind == "code_stack" and child not in seen:
                    seen.add(child)
                    frames.add(place(child))
                    todo.append(child)
        own = place(entity["id"])
        walked[own] = WalkedLine(entity["id"], frozenset(operators), frozenset(frames - {own}))
    return walked


def accounted_for(
    line: WalkedLine, lines: Mapping[tuple[str, int], WalkedLine], figured: set[str]
) -> bool:
    """Whether the lines ``line`` calls account for every operator below it: each operator lies
    below a called line that has a figure (``figured``: code line ids) and no operator outside
    ``line`` (docs/results.md, "Call lines")."""
    covering = [
        lines[frame]
        for frame in line.calls
        if frame in lines
        and lines[frame].entity_id in figured
        and lines[frame].operators <= line.operators
    ]
    reached: set[str] = set()
    for called in covering:
        reached |= called.operators
    return bool(line.operators) and reached == line.operators


@functools.cache
def _nx_text(chains: int) -> str:
    return json.dumps(postprocess(nx_document(chains), PipelineSettings()))


def nx_processed(chains: int) -> dict[str, Any]:
    """An NX-shaped document of the benchmark, post-processed."""
    document: dict[str, Any] = json.loads(_nx_text(chains))
    return document


@functools.cache
def _pair_texts(runs: int, factor: float) -> tuple[str, str]:
    from perfline.clients.cli.compare import load_side
    from tests.support.compare_pair import write_pair

    folder = Path(tempfile.mkdtemp(prefix="perfline-html-pair-"))
    try:
        base, new = write_pair(folder, runs=runs, factor=factor)
        texts = tuple(
            json.dumps(load_side(side, role, PipelineSettings())[0])
            for side, role in ((base, "baseline"), (new, "new run"))
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return texts[0], texts[1]


def example_pair(runs: int = 30, factor: float = 1.25) -> tuple[dict[str, Any], dict[str, Any]]:
    """The processed baseline and new run of ``tests/support/compare_pair.py`` (``runs`` runs each;
    the operators of ``dscnn.py:26`` ``factor`` times slower in the new run), fresh copies."""
    base, new = _pair_texts(runs, factor)
    return json.loads(base), json.loads(new)
