"""The report page's script: plain JavaScript in ``page_script.js`` beside this module (package
data, shipped in the wheel and the compiled build), inlined into the page by ``page``; it
loads nothing and calls no network. ``SCRIPT`` is its text, read once when this module is
imported (the one file the core reads: its own package's resource).

The script reads the page data (``payload``) from the ``perfline-data`` JSON block and
renders: the summary; the icicle chart on a canvas (click a node to zoom to it, click an
ancestor bar or the trail above to zoom out, hover for figures; siblings narrower than a
pixel are drawn as one grey "+N" block, so a 20,000-chain result draws only what is
visible); the annotated sources (a file's lines are built when its panel opens; a line
with figures expands to its operators, a call line says ``(calls 24-27)`` after its text:
its figure includes theirs); and the operator table (sortable by any column, filtered, 200
rows at a time). Numbers are formatted by the same rules as ``labels.py``. When the page
runs in a VS Code webview (``acquireVsCodeApi``) a click on a line number posts
``{type: "openLine", file, line}``; elsewhere it dispatches a ``perfline-open-line``
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

The script is checked by the VS Code extension's TypeScript compiler
(``vscode-extension/tsconfig.page.json``: ``checkJs``, DOM types; ``npm run lint``).
"""

from __future__ import annotations

import pkgutil
from typing import Final


def _script() -> str:
    data = pkgutil.get_data(__name__, "page_script.js")
    if data is None:  # a loader that cannot read package data
        raise RuntimeError("perfline: the report page's script (page_script.js) is missing")
    return data.decode("utf-8")


SCRIPT: Final = _script()
