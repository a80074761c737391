"""The README's two commands keep their promises about environments (issue 17, item 10).

``scripts/example.sh`` owns ``./.venv`` (the user's compiled install); ``scripts/test.sh`` must
never create, install into or run from it, so the two commands can run in either order and
``.venv`` keeps the compiled build. The test command also runs the live comparison with the
reference, so it must build the reference's venv and export its Python before pytest runs.
These are read from the scripts' text: running them here would take minutes.
"""

from __future__ import annotations

import re

from tests.support.locations import REPO

TEST_SH = (REPO / "scripts" / "test.sh").read_text(encoding="utf-8")
EXAMPLE_SH = (REPO / "scripts" / "example.sh").read_text(encoding="utf-8")
#: ``.venv`` as a path on its own (not ``.venv-test`` or ``.venv-compiled``).
BARE_VENV = re.compile(r"(?<![\w-])\.venv(?![\w-])")


def _commands(script: str) -> list[str]:
    """The script's lines that run something (no comments, no here-document text)."""
    lines, in_heredoc = [], False
    for line in script.splitlines():
        stripped = line.strip()
        if in_heredoc:
            in_heredoc = stripped != "SAYS"
            continue
        if "<<'SAYS'" in stripped:
            in_heredoc = True
            continue
        if stripped and not stripped.startswith("#"):
            lines.append(stripped)
    return lines


def test_test_command_never_uses_the_users_venv() -> None:
    offending = [line for line in _commands(TEST_SH) if BARE_VENV.search(line)]
    assert offending == []


def test_example_command_installs_the_compiled_build_into_venv() -> None:
    # with the batch extra (perfline batch; docs/batch.md) and the mcp extra (perfline mcp)
    assert "install-compiled.sh .venv batch,mcp\n" in EXAMPLE_SH


def test_test_command_says_what_it_installs_before_installing() -> None:
    says = TEST_SH.index("<<'SAYS'")
    first_install = min(TEST_SH.index("pip install"), TEST_SH.index("python3 -m venv"))
    assert says < first_install
    announcement = TEST_SH[says : TEST_SH.index("\nSAYS\n")]
    for installed in ("chromium", "code-server", "mlia==0.12.3", "apt-get", "PERFLINE_SKIP_E2E"):
        assert installed in announcement


def test_live_reference_comparison_is_part_of_the_test_command() -> None:
    commands = "\n".join(_commands(TEST_SH))
    oracle = commands.index("export PERFLINE_ORACLE_PYTHON")
    first_pytest = commands.index("pytest -q")
    assert oracle < first_pytest
    count = re.search(r"PERFLINE_DIFFERENTIAL_COUNT:-(\d+)", commands)
    assert count is not None and int(count.group(1)) >= 300
    assert "oracle-venv.sh" in commands


def test_readme_lists_the_installs_next_to_the_test_command() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    setup = readme[: readme.index("## What it is")]
    for named in ("PERFLINE_SKIP_E2E", "chromium", "code-server", "mlia==0.12.3", ".venv-test"):
        assert named in setup
