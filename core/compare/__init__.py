"""Comparing two runs of the same model: what got faster or slower, on every line.

Pure; one module per concept:

* ``align``: pairing results (kind, producer, mode), source files, and entities
  (canonical ids; code lines by (file, line) through a line mapping; code
  stacks by their frames);
* ``line_map``: the line mapping between two versions of a source file (difflib);
* ``run_samples``: the per-run values of measured metrics
  (``extensions.perfline.run_samples``), and the per-run values of derived
  figures (lines, modules) by a per-run projection;
* ``significance``: the Mann–Whitney U test and Holm / Benjamini–Hochberg;
* ``deltas``: base, new, delta, ratio and verdict of every metric;
* ``comparison``: ``compare_documents``, ``Comparison``, ``ResultComparison``;
* ``selection``: the metric lines are judged by, lines ranked by change;
* ``table``, ``json_form``: the text and JSON reports;
* ``gate``, ``ci_reports``: the CI gate and its SARIF / JUnit forms.

The API the view layer calls: ``compare_documents(base, new, settings,
line_maps=...)`` then ``Comparison.line(file, line)`` /
``ResultComparison.line(file, line)`` (new run's recorded file and line) or
``ResultComparison.entity(new_id)``; ``map_lines(old_text, new_text)`` gives
the line mapping of an edited file.
"""

from __future__ import annotations

from perfline.core.compare.comparison import (
    Comparison,
    ResultComparison,
    compare_documents,
    compare_results,
)
from perfline.core.compare.deltas import CompareSettings, EntityDelta, MetricDelta
from perfline.core.compare.line_map import LineMapping, map_lines

__all__ = [
    "CompareSettings",
    "Comparison",
    "EntityDelta",
    "LineMapping",
    "MetricDelta",
    "ResultComparison",
    "compare_documents",
    "compare_results",
    "map_lines",
]
