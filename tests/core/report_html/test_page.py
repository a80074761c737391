"""The HTML page: self-contained, safe around untrusted names, webview-ready, deterministic."""

from __future__ import annotations

import gc
import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from perfline.core.report_html import SourceText, render_report_html
from perfline.core.report_html.page_script import SCRIPT
from perfline.core.report_html.page_style import STYLE
from perfline.core.report_html.payload import build_payload
from tests.support.html_documents import RECORDED, SOURCE, example_document, nx_processed
from tests.support.locations import REPO


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.data: dict[str, str] = {}
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.tags.append((tag, found))
        self._in = found.get("id") if tag == "script" else None

    def handle_data(self, data: str) -> None:
        if self._in:
            self.data[self._in] = self.data.get(self._in, "") + data

    def handle_endtag(self, tag: str) -> None:
        self._in = None


def _page(document: dict[str, Any], **options: Any) -> tuple[str, _Tags]:
    sources = {RECORDED: SourceText("dscnn.py", SOURCE.read_text())}
    page = render_report_html(document, sources, **options)
    parser = _Tags()
    parser.feed(page)
    return page, parser


def test_page_is_self_contained() -> None:
    _, parser = _page(example_document())
    for tag, attributes in parser.tags:
        assert not {"src", "href", "action", "srcset", "poster"} & attributes.keys(), tag
        assert tag not in ("link", "iframe", "object", "embed", "img", "base")
    assert "url(" not in STYLE and "@import" not in STYLE
    assert not re.search(r"\b(?:fetch|XMLHttpRequest|WebSocket|EventSource|sendBeacon)\b", SCRIPT)
    (policy,) = [a["content"] for t, a in parser.tags if a.get("http-equiv")]
    assert policy is not None and policy.startswith("default-src 'none';")
    assert "connect-src" not in policy  # falls back to 'none'


def test_hot_source_lines_come_before_the_metadata() -> None:
    """Issue 37: the source section is the first, the summary (model, target, backends) the
    last; the cards' value cells wrap anywhere in a fixed layout instead of one character per
    line beside a long key (the browser test measures the widths)."""
    _, parser = _page(example_document())
    sections = [a.get("id") for tag, a in parser.tags if tag == "section"]
    assert sections[0] == "sources" and sections[-1] == "summary-section", sections
    assert ".card td{word-break:break-all}" not in STYLE
    assert ".card table{table-layout:fixed}" in STYLE


def test_embedded_data_is_the_payload() -> None:
    document = example_document()
    _, parser = _page(document)
    sources = {RECORDED: SourceText("dscnn.py", SOURCE.read_text())}
    assert json.loads(parser.data["perfline-data"]) == json.loads(
        json.dumps(build_payload(document, sources))
    )


def test_untrusted_names_cannot_close_the_data_block() -> None:
    document = example_document()
    evil = "</script><script>alert(1)</script><!--"
    for entity in document["results"][0]["entities"]:
        if entity["id"] == "source_operator/conv2d_2":
            entity["name"] = evil
    document["model"]["name"] = "<b>model</b>"
    page, parser = _page(document)
    assert evil not in page and "<b>model</b>" not in page
    assert "&lt;b&gt;model&lt;/b&gt;" in page
    data = json.loads(parser.data["perfline-data"])
    assert evil in data["views"][0]["entities"]["names"]
    assert [t for t, _ in parser.tags].count("script") == 2


def test_nonce_for_a_webview() -> None:
    _, parser = _page(example_document(), nonce="r4nd0mN0nce+/=")
    (policy,) = [a["content"] for t, a in parser.tags if a.get("http-equiv")]
    assert policy is not None
    assert "'unsafe-inline'" not in policy
    assert "script-src 'nonce-r4nd0mN0nce+/='" in policy
    assert "style-src 'nonce-r4nd0mN0nce+/='" in policy
    executable = [a for t, a in parser.tags if t == "script" and a.get("type") is None]
    assert executable and all(a.get("nonce") == "r4nd0mN0nce+/=" for a in executable)
    assert all(a.get("nonce") for t, a in parser.tags if t == "style")
    # A nonce-only policy blocks style attributes: neither the page nor its script writes any.
    assert not any("style" in a for _, a in parser.tags)
    assert 'style="' not in SCRIPT and "setAttribute('style'" not in SCRIPT
    with pytest.raises(ValueError, match="nonce"):
        _page(example_document(), nonce='bad" onload="x')


def test_deterministic_and_no_comparison_without_baseline() -> None:
    document = example_document()
    first, parser = _page(document)
    second, _ = _page(document)
    assert first == second
    data = json.loads(parser.data["perfline-data"])
    assert data["comparison"] is None and data["views"][0]["comparison"] is None


def test_result_without_figures() -> None:
    document = example_document()
    document["results"][0]["breakdowns"] = []
    _, parser = _page(document)
    data = json.loads(parser.data["perfline-data"])
    assert data["views"] == [] and data["summary"]["results"]


def test_no_cyclic_garbage() -> None:
    document = example_document()
    was = gc.isenabled()
    gc.disable()
    try:
        gc.collect()
        _page(document)
        _page(nx_processed(50))
        assert gc.collect() == 0  # nothing the renderer made needed the cyclic collector
    finally:
        if was:
            gc.enable()


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_script_parses(tmp_path: Path) -> None:
    path = tmp_path / "page.js"
    path.write_text(SCRIPT)
    done = subprocess.run(["node", "--check", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_page_script_is_the_packaged_javascript_files() -> None:
    """The script is the ``page_*.js`` files as they are, in ``PARTS`` order inside one
    function (package data, declared so that the wheel and the compiled build carry them, and
    each checked by the extension's ``tsc -p tsconfig.page.json``), and the page inlines that
    very text."""
    import tomllib

    from perfline.core.report_html import page_script

    repo = REPO
    folder = repo / "core" / "report_html"
    assert sorted(page_script.PARTS) == sorted(p.name for p in folder.glob("*.js"))
    texts = [(folder / name).read_text(encoding="utf-8") for name in page_script.PARTS]
    joined = "\n(function () {\n'use strict';\n" + "".join(texts) + "})();\n"
    assert joined == SCRIPT
    assert page_script.PARTS[-1] == "page_script.js"  # the part that starts the page
    project = tomllib.loads((repo / "pyproject.toml").read_text(encoding="utf-8"))
    data = project["tool"]["setuptools"]["package-data"]["perfline.core.report_html"]
    assert list(data) == list(page_script.PARTS)
    checked = json.loads((repo / "vscode-extension" / "tsconfig.page.json").read_text())
    assert [f"../core/report_html/{name}" for name in page_script.PARTS] == [
        f for f in checked["files"] if f.endswith(".js")
    ]
    for name in page_script.PARTS:
        assert Path(page_script.__file__).with_name(name).is_file()


#: What would let the script write a number its own way (issue 40: one renderer).
_NUMBER_FORMATTING = re.compile(
    r"toFixed|toPrecision|toExponential|toLocaleString|Intl\.|NumberFormat|"
    r"Math\.log10|\+\s*'%'|'%'\s*\+"
)


def test_the_script_formats_no_number() -> None:
    """Every number the page shows is text from the page data (``core.figure_text``): the
    script has no number formatting of its own, nor the old copy of figure_text's rules."""
    assert _NUMBER_FORMATTING.findall(SCRIPT) == []
    for gone in ("fmtValue", "fmtShare", "gfmt", "compact(", "report.format"):
        assert gone not in SCRIPT, gone
    # the check above finds what it looks for
    assert _NUMBER_FORMATTING.findall("x.toFixed(1) + '%'") == ["toFixed", "+ '%'"]
