"""The report page's script: plain JavaScript in five ``.js`` files beside this module (package
data, shipped in the wheel and the compiled build: ``PARTS``, in order), joined inside one
function and inlined into the page by ``page``; it loads nothing and calls no network.
``SCRIPT`` is that text, read once when this module is imported (the one file the core
reads: its own package's resources).

The script reads the page data (``payload``) from the ``perfline-data`` JSON block and
renders (``page_base.js``: the data, the text look-ups, the summary; ``page_compare.js``:
the compare view; ``page_chart.js``: the chart; ``page_sources.js``: the annotated sources
and the operator table; ``page_script.js``: a view, and the start): the summary; the icicle
chart on a canvas (click a node to zoom to it, click an ancestor bar or the trail above to
zoom out, hover for figures; siblings narrower than a pixel are drawn as one grey "+N"
block, so a 20,000-chain result draws only what is visible); the annotated sources (a
file's lines are built when its panel opens; a line with figures expands to its operators,
a call line says ``(calls 24-27)`` after its text: its figure includes theirs); and the
operator table (sortable by any column, filtered, 200 rows at a time). It formats no
number: every figure, share, difference and p-value it shows is text in the page data,
made by ``core.figure_text`` (``page_texts``); the values it holds only size and sort.
When the page runs in a VS Code webview (``acquireVsCodeApi``) a click on a line number
posts ``{type: "openLine", file, line}``; elsewhere it dispatches a ``perfline-open-line``
event. ``window.perflineReport`` exposes the state tests and hosts read (``readyAt``:
milliseconds from navigation start to interactive).

With a baseline (``data.comparison`` and each view's ``comparison``) the page is the
compare view: every figure it shows (a source line's, an operator's under it, a chart
node's, an operator table row's) also shows its baseline and the delta with its
significance, as the compare core judged it; only ``regressed`` and ``improved`` are
coloured as changes (lines get a coloured bar and delta cell, table cells the same
classes, chart nodes the same colours, read from the style sheet's custom properties);
the chart can be coloured by change or by kind; the compare section
(``applyComparison``) holds the legend, how figures were judged, the lines by
significance, the result-level metrics and the entities only one run has.

The parts are checked together by the VS Code extension's TypeScript compiler
(``vscode-extension/tsconfig.page.json``: ``checkJs``, DOM types; ``npm run lint``), which
reads them as scripts sharing one scope, as the joined function runs them.
"""

from __future__ import annotations

import pkgutil
from typing import Final

#: The script's files, in the order they run (the last one starts the page).
PARTS: Final = (
    "page_base.js",
    "page_compare.js",
    "page_chart.js",
    "page_sources.js",
    "page_script.js",
)


def _part(name: str) -> str:
    data = pkgutil.get_data(__name__, name)
    if data is None:  # a loader that cannot read package data
        raise RuntimeError(f"perfline: the report page's script ({name}) is missing")
    return data.decode("utf-8")


def _script() -> str:
    body = "".join(_part(name) for name in PARTS)
    return f"\n(function () {{\n'use strict';\n{body}}})();\n"


SCRIPT: Final = _script()
