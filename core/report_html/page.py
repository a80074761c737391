"""The HTML document of the report: one self-contained page around the page data.

Everything is inline: the style sheet, the page data as a ``application/json`` block (``<`` is
written ``\\u003c`` so no text in the data can close the block) and the script. The Content
Security Policy allows nothing to be fetched (``default-src 'none'``; images only from ``data:``),
so the page makes no request even if its data held an address. With a ``nonce`` (a VS Code
webview) the style and the script are allowed by that nonce instead of ``'unsafe-inline'``.
Output is deterministic: the same payload gives the same bytes. The sections come in the
order a reader looks for them: the hot source lines first, then the comparison (compare
view), the chart, the operators, and the summary of the run (model, target, backends, the
result metrics and warnings) last.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from typing import Any

from perfline import __version__
from perfline.core.report_html.page_script import SCRIPT
from perfline.core.report_html.page_style import STYLE

_NONCE = re.compile(r"^[A-Za-z0-9+/=_-]{8,128}$")

_BODY = """<header>
<h1>{title}</h1>
<p class="meta"><span id="metric"></span> <select id="view-pick" hidden></select></p>
</header>
<noscript><p class="warn">This report draws its chart, sources and tables with JavaScript;
the figures themselves are in the page's embedded data.</p></noscript>
<p id="no-view" class="muted" hidden>No result of this document has figures on its entities.</p>
<section class="needs-view" id="sources"><h2>Source</h2><div id="files"></div></section>
<section id="compare" hidden><h2>Compared with the baseline</h2><div id="compare-body"></div>
</section>
<section class="needs-view" id="hierarchy"><h2>Where the cost goes</h2>
<div class="toolbar"><div id="crumbs"></div><button id="chart-reset" type="button">Reset zoom
</button><select id="chart-colour" hidden><option value="change">colour by change</option>
<option value="kind">colour by kind</option></select></div>
<div class="legend sig-legend" id="change-legend" hidden></div>
<div class="legend" id="kind-legend"><span><i class="k-module"></i>module</span><span>
<i class="k-function"></i>function</span><span><i class="k-line"></i>line</span><span>
<i class="k-operator"></i>operator</span><span><i class="k-unit"></i>chain / unit</span><span>
<i class="k-more"></i>context, or narrower than a pixel</span></div>
<div id="chart-box"><canvas id="chart"></canvas><div id="tip"></div></div>
</section>
<section class="needs-view" id="operators"><h2>Operators</h2>
<div class="toolbar"><input id="op-filter" type="search" size="40"
placeholder="filter by name, type, module or line"> <span id="op-count" class="muted"></span>
</div>
<div class="scroll"><table id="op-table"><thead id="op-head"></thead><tbody id="op-body"></tbody>
</table></div>
<p><button id="op-more" type="button" hidden>Show 200 more</button></p>
</section>
<section id="summary-section"><h2>Summary</h2><div id="summary"></div></section>
<footer>Written by perfline {version}. This file is self-contained: it loads nothing.</footer>
"""


def page_data_json(payload: Mapping[str, Any]) -> str:
    """The payload as compact JSON that is safe inside a ``<script>`` element."""
    text = json.dumps(payload, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return text.replace("<", "\\u003c")


def render_page(payload: Mapping[str, Any], *, title: str, nonce: str | None = None) -> str:
    """The whole HTML document. ``nonce``: base64-ish text, 8-128 characters."""
    if nonce is not None and not _NONCE.match(nonce):
        raise ValueError("nonce must be 8-128 characters of [A-Za-z0-9+/=_-]")
    if nonce is None:
        allow, attribute = "'unsafe-inline'", ""
    else:
        allow, attribute = f"'nonce-{nonce}'", f' nonce="{nonce}"'
    policy = (
        f"default-src 'none'; img-src data:; style-src {allow}; script-src {allow}; "
        "base-uri 'none'; form-action 'none'"
    )
    escaped_title = html.escape(title)
    body = _BODY.format(title=escaped_title, version=html.escape(__version__))
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta name="generator" content="perfline {html.escape(__version__)}">\n'
        f"<title>{escaped_title}</title>\n"
        f"<style{attribute}>{STYLE}</style>\n</head>\n<body>\n{body}"
        f'<script type="application/json" id="perfline-data">{page_data_json(payload)}</script>\n'
        f"<script{attribute}>{SCRIPT}</script>\n</body>\n</html>\n"
    )
