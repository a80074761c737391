"""Issue 38 N10 and N11: text from documents in JUnit, on the terminal and in Markdown.

On main a source path holding control characters made ``check --junit`` write XML that is
not well-formed and put escape sequences on the terminal through ``compare`` and
``check``; operator names went into hover and breakdown Markdown as they were (an image
``![x](https://...)`` would be fetched by the editor). Now each medium has one escaping
step (``core.escaping``)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from perfline.core.escaping import markdown_code, markdown_text, terminal_text, xml_text
from perfline.server import api
from perfline.server.engine import Engine
from tests.support.compare_paths import ONNX_MODEL, ORT_NOOPT, ORT_OPT
from tests.support.ort_runs import ort_run
from tests.support.server_helpers import INPUT_DOC

#: Clear the screen, ring the bell, set the window title, a C1 CSI, a NUL, a bidi override.
HOSTILE = "\x1b[2J\x07\x1b]0;owned\x07\x9b31m\x00\u202e"
IMAGE = "![pwn](https://evil.example/a.png) <img src=https://evil.example/b.png>"


def _documents(folder: Path) -> tuple[Path, Path]:
    paths = []
    for name, profile in (("base", ORT_NOOPT), ("new", ORT_OPT)):
        text = json.dumps(ort_run(ONNX_MODEL, profile))
        hostile = json.dumps(f"dscnn{HOSTILE}.py")[1:-1]
        path = folder / f"{name}.json"
        path.write_text(text.replace("dscnn.py", hostile))
        paths.append(path)
    return paths[0], paths[1]


def _run(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args))


def test_junit_is_well_formed_whatever_the_paths_hold(tmp_path: Path) -> None:
    base, new = _documents(tmp_path)
    junit = tmp_path / "o.xml"
    done = _run("check", "--baseline", str(base), str(new), "--junit", str(junit))
    assert done.exit_code in (0, 1), done.output
    suite = ElementTree.parse(junit).getroot().find("testsuite")  # raises if not well-formed
    assert suite is not None
    names = [case.get("classname") or "" for case in suite.iter("testcase")]
    assert names and any("\\x1b" in name for name in names), names


@pytest.mark.parametrize("command", ["compare", "check"])
def test_no_escape_sequence_from_a_document_reaches_the_terminal(
    tmp_path: Path, command: str
) -> None:
    slower, faster = _documents(tmp_path)  # the unoptimised run, the optimised one
    if command == "compare":
        done = _run("compare", str(slower), str(faster))
    else:  # slower than its baseline: the regressions are listed with their paths
        done = _run("check", "--baseline", str(faster), str(slower), "--max-regression", "0.1")
    assert done.exit_code in (0, 1), done.output
    for stream in (done.stdout, done.stderr):
        assert not any(c in stream for c in "\x1b\x07\x9b\x00\u202e"), repr(stream[:400])
    assert "\\x1b" in done.stdout, done.stdout[:2000]  # the path is shown, escaped


def test_names_in_breakdown_markdown_are_no_markup(tmp_path: Path) -> None:
    document = json.loads(INPUT_DOC.read_text())
    for result in document["results"]:
        for entity in result["entities"]:
            if entity.get("kind") == "source_operator":
                entity["name"] = IMAGE
    (tmp_path / "a.mlia.json").write_text(json.dumps(document))
    engine = Engine(tmp_path, debounce=0.0, settle=0.0)
    engine.start()
    try:
        assert engine.wait_idle(30)
        markdown = api.METHODS["perfline/breakdown"](engine, {})["markdown"]
    finally:
        engine.close()
    assert "evil.example" in markdown  # the name is shown...
    assert "![pwn](" not in markdown and not re.search(r"(?<!\\)<img", markdown)  # as text
    assert "https://evil" not in markdown  # no autolink either


def test_each_medium_has_its_step() -> None:
    assert xml_text("a\x00b\x1bc\td\ud800") == "a\\x00b\\x1bc\td\\ud800"
    assert terminal_text("x\x1b[31m\x9b\u202ey\tz\n") == "x\\x1b[31m\\x9b\\u202ey\tz\n"
    assert markdown_text("*a* [b](c) <d> `e` _f_ g_h |") == (
        "\\*a\\* \\[b\\](c) \\<d\\> \\`e\\` \\_f\\_ g_h \\|"
    )
    assert markdown_text("line\nbreak http://x www.y") == "line break http:\u2060//x www\u2060.y"
    assert markdown_code("a`b") == "``a`b``" and markdown_code("`x") == "`` `x ``"
    assert sys.maxunicode > 0xFFFF
