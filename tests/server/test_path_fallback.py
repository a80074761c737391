"""Issue 37 item 4: the last resort of path resolution (a recorded path matched to a workspace
file by its ending) never links two different files: a workspace file in a folder is taken
only when the recorded path's folder matches too (``server.paths.PathResolver``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfline.server.paths import PathResolver


def _resolver(root: Path, files: list[str]) -> PathResolver:
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x = 1\n")
    return PathResolver(root, (), (".",), files)


@pytest.mark.parametrize(
    ("files", "recorded", "expected"),
    [
        # same name, another folder: another file, no guess
        (["encoder/layers.py"], "/home/dev/proj/decoder/layers.py", None),
        (["a/util.py", "b/util.py"], "/home/dev/proj/c/util.py", None),
        # the folder matches: the same file, checked out elsewhere
        (["encoder/layers.py"], "/home/dev/proj/encoder/layers.py", "encoder/layers.py"),
        (["a/util.py", "b/util.py"], "/home/dev/proj/b/util.py", "b/util.py"),
        (["models/kws/dscnn.py"], "/home/dev/kws/dscnn.py", "models/kws/dscnn.py"),
        # a file at the workspace root is the recorded file of that name
        (["dscnn.py"], "/home/dev/kws/dscnn.py", "dscnn.py"),
    ],
)
def test_the_name_alone_links_no_file_of_another_folder(
    tmp_path: Path, files: list[str], recorded: str, expected: str | None
) -> None:
    root = tmp_path.resolve()
    found = _resolver(root, files).resolve(recorded)
    assert found == (root / expected if expected is not None else None)


def test_two_recorded_files_of_one_name_never_meet_in_one_workspace_file(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    resolver = _resolver(root, ["encoder/layers.py"])
    targets = {
        recorded: resolver.resolve(recorded)
        for recorded in ("/srv/run/encoder/layers.py", "/srv/run/decoder/layers.py")
    }
    assert targets == {
        "/srv/run/encoder/layers.py": root / "encoder" / "layers.py",
        "/srv/run/decoder/layers.py": None,
    }
