"""Old name of ``server.line_index``, kept only as a re-export.

``server/engine.py`` and ``benchmarks/daemon.py`` (owned by the engine's maintainers)
still import ``perfline.server.index``; once they import ``perfline.server.line_index``
this module goes (it shares its name with ``core/projection/index.py``).
"""

from __future__ import annotations

from perfline.server.line_index import (
    EntityTable,
    IndexMemo,
    JobIndex,
    LineDiagnostic,
    LineEntry,
    build_index,
)

__all__ = ["EntityTable", "IndexMemo", "JobIndex", "LineDiagnostic", "LineEntry", "build_index"]
