"""The self-contained HTML report: a pure function of a processed document and source texts.

``render_report_html(document, sources)`` returns one HTML page (no network, everything inline)
with the summary, the annotated sources, the icicle chart of the entity hierarchy and the
operator table. ``sources`` maps each file path the document's code lines record to the
``SourceText`` the caller read for it (the CLI and the daemon read them through the workspace's
path map: ``perfline.server.report_sources``). ``comparison`` (a ``core.compare`` comparison
whose new run is ``document``) turns the page into the compare view: every figure shows base,
new and delta coloured by the comparison's significance (``comparison.py``); ``nonce`` serves a
VS Code webview's Content Security Policy. The compare core is imported only when a comparison
is given (it loads numpy).

Modules: ``labels`` (metric choice, totals, label text), ``result_index`` (one result indexed),
``entity_table``, ``annotated`` (source section), ``hierarchy`` (chart tree), ``operator_table``,
``comparison`` (the compare view's data), ``payload`` (the page data), ``page_texts`` (the
text of every number the page shows, made by ``core.figure_text``: the page's script formats
none), ``page`` (+ ``page_style``, ``page_script``: the HTML). Cost: linear
in the document plus the source texts (a 5,000-chain NX result: about 0.9 s, 2.6 MB); the
cyclic garbage collector is paused meanwhile (the renderer makes no reference cycles:
``tests/core/report_html/test_page.py``), which halves the time at 20,000 chains.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from perfline.core.collection import collection_paused
from perfline.core.report_html.page import render_page
from perfline.core.report_html.payload import build_payload
from perfline.core.report_html.source_text import SourceText

if TYPE_CHECKING:  # the compare core (and numpy) load only for a compare view
    from perfline.core.compare.comparison import Comparison

__all__ = ["SourceText", "render_report_html", "report_title"]


def report_title(document: Mapping[str, Any], *, compared: bool = False) -> str:
    """``perfline report: <model name>`` (``perfline compare: ...`` for the compare view)."""
    model = document.get("model")
    name = model.get("name") if isinstance(model, Mapping) else None
    what = "perfline compare" if compared else "perfline report"
    return f"{what}: {name}" if isinstance(name, str) and name else what


def render_report_html(
    document: Mapping[str, Any],
    sources: Mapping[str, SourceText],
    *,
    metric: str | None = None,
    comparison: Comparison | None = None,
    nonce: str | None = None,
    title: str | None = None,
) -> str:
    """The HTML page of a processed document (``metric``: the configured metric name;
    ``comparison``: the document compared with a baseline, ``document`` its new run)."""
    with collection_paused():  # many small containers, no cycles: the collector finds nothing
        payload = build_payload(document, sources, metric=metric, comparison=comparison)
        shown = title or report_title(document, compared=comparison is not None)
        return render_page(payload, title=shown, nonce=nonce)
