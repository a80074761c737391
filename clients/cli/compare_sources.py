"""The two versions of each source file, for aligning the lines of two runs.

``perfline compare`` and ``perfline check`` align code lines by (file, line);
when a file changed between the runs, its lines are mapped
(``core.compare.line_map``). The versions come from:

* the new run: ``--new-rev REV`` (git), else the file in the workspace
  (``--source-root``, default the current folder) found the way the daemon
  finds it (``[[path_map]]`` and ``source_roots`` of ``perfline.toml``, then a
  unique path suffix among the workspace's Python files);
* the baseline: ``--base-rev REV`` (git), else ``--base-source DIR`` (a
  checkout of the baseline's sources, found by path suffix there); without
  either, the lines are taken as unchanged.

git runs only when a revision is given on the command line, as
``git -c core.fsmonitor=false cat-file blob REV:PATH`` in the repository
holding the source root (no hooks, filters or text conversions run). A
revision must look like one (no leading ``-``, no spaces).
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from perfline.core.compare.align import pair_files, source_files
from perfline.core.compare.ci_reports import plain_location
from perfline.core.compare.line_map import LineMapping, identical, map_lines
from perfline.core.errors import InputError, Problem
from perfline.core.workspace_config import WorkspaceConfig
from perfline.server.file_access import Root, read_text
from perfline.server.paths import PathResolver
from perfline.server.workspace import python_files, scan_files

_REVISION = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_./@{}^~:-]*$")
GIT_TIMEOUT_S = 30.0


def check_revision(revision: str | None, option: str) -> None:
    """Reject a revision that could be read as an option or is not a revision at all."""
    if revision is not None and not _REVISION.match(revision):
        raise InputError(
            "perfline",
            Problem(option, f"{revision!r} is not a git revision (a commit, branch or tag name)"),
        )


def workspace_resolver(root: Path, config: WorkspaceConfig) -> PathResolver:
    """Recorded path -> file under ``root``, the way the daemon resolves trace paths."""
    files = scan_files(root, config.ignore) if root.is_dir() else []
    return PathResolver(root, config.path_maps, config.source_roots, python_files(files))


class SourceVersions:
    """Reads the versions of the runs' source files (see the module docstring)."""

    def __init__(
        self,
        root: Path,
        config: WorkspaceConfig,
        *,
        base_rev: str | None = None,
        new_rev: str | None = None,
        base_source: Path | None = None,
    ) -> None:
        self.root = root.resolve()
        self.config = config
        self._resolver: PathResolver | None = None
        self.base_rev = base_rev
        self.new_rev = new_rev
        self.base_resolver = None
        if base_source is not None:
            if not base_source.is_dir():
                raise InputError(str(base_source), "no such folder (--base-source)")
            self.base_resolver = workspace_resolver(base_source.resolve(), WorkspaceConfig())
        self.notes: list[str] = []
        self._top: Path | None = None

    @property
    def resolver(self) -> PathResolver:
        """The workspace's path resolver (the workspace is scanned on first use only)."""
        if self._resolver is None:
            self._resolver = workspace_resolver(self.root, self.config)
        return self._resolver

    @property
    def has_base(self) -> bool:
        """Whether any baseline version can be read."""
        return self.base_rev is not None or self.base_resolver is not None

    def line_maps(self, base: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, LineMapping]:
        """Base recorded file -> mapping onto the new version, for every file that changed."""
        maps: dict[str, LineMapping] = {}
        if not self.has_base:
            return maps
        base_files = [f for r in base.get("results", ()) for f in source_files(r)]
        new_files = [f for r in new.get("results", ()) for f in source_files(r)]
        for base_file, new_file in pair_files(base_files, new_files).items():
            local = self.resolver.resolve(new_file)
            if local is None:
                continue  # a library frame, or a file not in this workspace
            new_text = self._new_text(local)
            old_text = self._base_text(base_file, local)
            if new_text is None or old_text is None or identical(old_text, new_text):
                continue
            maps[base_file] = map_lines(old_text, new_text)
            self.notes.append(f"{new_file}: lines mapped from the baseline's version")
        return maps

    def _new_text(self, local: Path) -> str | None:
        if self.new_rev is not None:
            return self._git_text(self.new_rev, local)
        return self._file_text(local)

    def _base_text(self, recorded: str, local: Path) -> str | None:
        if self.base_rev is not None:
            return self._git_text(self.base_rev, local)
        assert self.base_resolver is not None
        found = self.base_resolver.resolve(recorded)
        if found is None:
            self.notes.append(f"{recorded}: not found under --base-source; lines not mapped")
            return None
        return self._file_text(found)

    def _file_text(self, path: Path) -> str | None:
        """The file's text (UTF-8), else ``None`` with a note saying why."""
        try:
            return read_text(path, root=Root.user_given(), kind="source", errors="strict")
        except InputError as error:
            reason = "; ".join(problem.message for problem in error.problems)
            self.notes.append(f"{path}: cannot read ({reason}); its lines are not mapped")
            return None

    def _git_text(self, revision: str, local: Path) -> str | None:
        top = self._repository()
        try:
            relative = local.resolve().relative_to(top).as_posix()
        except ValueError:
            self.notes.append(f"{local}: outside the repository {top}; lines not mapped")
            return None
        output = _git(top, ["cat-file", "blob", f"{revision}:{relative}"])
        if output.returncode != 0:
            message = output.stderr.decode("utf-8", "replace").strip().splitlines()
            self.notes.append(
                f"{relative}: not readable at {revision} ({message[-1] if message else 'git'}"
                "); lines not mapped"
            )
            return None
        return output.stdout.decode("utf-8", "replace")

    def _repository(self) -> Path:
        if self._top is None:
            output = _git(self.root, ["rev-parse", "--show-toplevel"])
            if output.returncode != 0:
                raise InputError(
                    str(self.root),
                    Problem(
                        "--base-rev/--new-rev",
                        "not inside a git repository (give --source-root, or --base-source)",
                    ),
                )
            self._top = Path(output.stdout.decode().strip()).resolve()
        return self._top

    def locate(self, recorded: str) -> tuple[str, bool]:
        """SARIF location of a recorded file: relative to the source root when it is there."""
        local = self.resolver.resolve(recorded)
        if local is not None:
            try:
                return local.resolve().relative_to(self.root).as_posix(), True
            except ValueError:
                pass
        return plain_location(recorded)


def _git(folder: Path, arguments: Sequence[str]) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            ["git", "-c", "core.fsmonitor=false", "-C", str(folder), *arguments],
            capture_output=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise InputError(
            "perfline", Problem("--base-rev/--new-rev", "git is not installed")
        ) from None
    except subprocess.TimeoutExpired:
        raise InputError(
            str(folder), Problem("git " + " ".join(arguments), "git did not answer in 30 s")
        ) from None
