"""``perfline report --html OUT.html`` and ``perfline compare --html OUT.html``: write the
self-contained HTML report of a document (the compare view when given its comparison).

The workspace is the folder of the configuration in force (``--config``, else the nearest
``perfline.toml`` above the document), else ``root`` (``perfline compare``'s ``--source-root``)
or the current folder; its path maps and source roots decide which local file each recorded
source path is (``perfline.server.report_sources``). The page is written next to its target and
renamed into place, so a reader never sees half a file.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perfline.clients.cli.common import find_config, load_config
from perfline.clients.cli.files import replace_text
from perfline.core.errors import InputError
from perfline.server.file_access import Root

if TYPE_CHECKING:
    from perfline.core.compare.comparison import Comparison


def render_html_report(
    processed: Mapping[str, Any],
    *,
    document: str | None,
    config: str | None,
    root: Path | None = None,
    comparison: Comparison | None = None,
) -> str:
    """The self-contained page of ``processed`` (against its baseline: ``comparison``), its
    sources read from the workspace of the configuration in force near ``document``."""
    from perfline.server.paths import PathResolver
    from perfline.server.report_sources import render_document_html
    from perfline.server.workspace import python_files, scan_files

    config_path = find_config(config, document)
    settings = load_config(config_path)
    fallback = root if root is not None else Path.cwd()
    root = (config_path.parent if config_path is not None else fallback).resolve()
    resolver = PathResolver(
        root,
        settings.path_maps,
        settings.source_roots,
        python_files(scan_files(root, settings.ignore)),
    )
    return render_document_html(
        processed,
        resolver.resolve,
        root=root,
        metric=settings.display.metric,
        comparison=comparison,
        files=Root(root),
    )


def write_html_report(
    processed: Mapping[str, Any],
    target: str,
    *,
    document: str,
    config: str | None,
    root: Path | None = None,
    comparison: Comparison | None = None,
) -> Path:
    """Render ``processed`` (against its baseline: ``comparison``) and write it to ``target``;
    returns the written path."""
    page = render_html_report(
        processed, document=document, config=config, root=root, comparison=comparison
    )
    if Path(target).is_dir():  # (a missing folder cannot hold one: replace_text says so)
        raise InputError(target, "is a folder, expected an .html file to write")
    return replace_text(target, page)
