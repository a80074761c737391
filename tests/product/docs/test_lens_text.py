"""Issue 37 item 4: the lens text the docs quote is what the server renders now.

Every backtick quote of ``docs/guide.md`` and ``docs/api.md`` that reads like a lens title
(``NAME: ... of the model``; those of a baseline comparison aside) is compared with the
``perfline/codeLenses`` titles of ``dscnn.py`` in the guide's ExecuTorch workspace (laid out
and configured as the guide's marked blocks say, analysed in-process: the server's code path).
"""

from __future__ import annotations

import re
from pathlib import Path

from perfline.clients.rpc import LocalSession
from tests.product.docs.guide_workspaces import lay_out, marked
from tests.support.markdown_blocks import DOCS

#: A quoted lens title: a block name, a colon, figures, the share of the model.
_LENS_QUOTE = re.compile(r"`([A-Za-z_][\w.]* ?[\w.]*: [^`]*of the model)`")


def _quoted_lenses() -> list[tuple[str, str]]:
    found = []
    for name in ("guide.md", "api.md"):
        for quote in _LENS_QUOTE.findall((DOCS / name).read_text(encoding="utf-8")):
            if "▲" not in quote and "▼" not in quote:
                found.append((name, quote))
    return found


def test_the_quoted_lens_titles_are_the_servers(tmp_path: Path) -> None:
    quotes = _quoted_lenses()
    assert {name for name, _ in quotes} == {"guide.md", "api.md"}, quotes
    root = tmp_path / "kws"
    lay_out("executorch", root, tmp_path)
    (root / "perfline.toml").write_text(marked("workspace")["executorch"].text)
    with LocalSession(root) as session:
        lenses = session.request("perfline/codeLenses", {"file": "dscnn.py"})["lenses"]
    titles = {lens["title"] for lens in lenses}
    stale = [f"{name}: {quote!r}" for name, quote in quotes if quote not in titles]
    assert not stale, f"not what the server renders ({sorted(titles)}):\n" + "\n".join(stale)
