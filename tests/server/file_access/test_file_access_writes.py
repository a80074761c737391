"""``perfline.server.file_access`` writes: planted temporary links, targets that are
links, folders on the way that are links, and what a failed write leaves."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from perfline.core.errors import InputError
from perfline.server import file_access
from perfline.server.file_access import (
    Root,
    make_dirs,
    new_folder,
    open_append,
    remove_tree,
    rename,
    replacing,
    write_bytes,
    write_text,
)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (tmp_path / "victim").write_text("precious\n")
    return root


def test_a_new_file_is_written_and_an_old_one_replaced_with_its_mode(ws: Path) -> None:
    root = Root(ws)
    assert write_text("out.txt", "one", root=root) == ws / "out.txt"
    os.chmod(ws / "out.txt", 0o640)
    write_bytes("out.txt", b"two", root=root)
    assert (ws / "out.txt").read_text() == "two"
    assert stat.S_IMODE(os.stat(ws / "out.txt").st_mode) == 0o640
    write_text("private", "x", root=root, mode=0o600)
    assert stat.S_IMODE(os.stat(ws / "private").st_mode) == 0o600
    assert sorted(os.listdir(ws)) == ["out.txt", "private"]  # no temporary left


def test_planted_links_at_the_old_fixed_temporary_names_are_never_written(ws: Path) -> None:
    victim = ws.parent / "victim"
    for name in (".report.html.tmp", "report.html.tmp", ".report.html.0.tmp"):
        os.symlink(victim, ws / name)
    write_text("report.html", "<html>", root=Root(ws))
    assert victim.read_text() == "precious\n"
    assert (ws / "report.html").read_text() == "<html>"


def test_a_temporary_name_taken_by_a_link_is_skipped(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    victim = ws.parent / "victim"
    draws = iter(["aaaaaaaaaaaa", "bbbbbbbbbbbb"])
    monkeypatch.setattr(file_access.writes.secrets, "token_hex", lambda n: next(draws))
    os.symlink(victim, ws / ".out.txt.aaaaaaaaaaaa.tmp")
    write_text("out.txt", "new", root=Root(ws))
    assert victim.read_text() == "precious\n"
    assert (ws / "out.txt").read_text() == "new"
    assert os.path.islink(ws / ".out.txt.aaaaaaaaaaaa.tmp")  # left as it was


def test_a_target_that_is_a_link_is_refused_and_its_target_untouched(ws: Path) -> None:
    victim = ws.parent / "victim"
    os.symlink(victim, ws / "report.html")
    with pytest.raises(InputError, match="is a symbolic link; perfline does not write"):
        write_text("report.html", "x", root=Root(ws))
    assert victim.read_text() == "precious\n" and os.path.islink(ws / "report.html")


def test_a_folder_on_the_way_that_is_a_link_is_refused(ws: Path) -> None:
    elsewhere = ws.parent / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, ws / "mlia-output")
    with pytest.raises(InputError, match="mlia-output is a symbolic link"):
        write_text("mlia-output/mlia-output.json", "{}", root=Root(ws), parents=True)
    with pytest.raises(InputError, match="mlia-output is a symbolic link"):
        make_dirs("mlia-output/deeper", root=Root(ws))
    assert os.listdir(elsewhere) == []


def test_a_dangling_link_on_the_way_is_not_made_into_a_folder(ws: Path) -> None:
    os.symlink(ws.parent / "not-yet", ws / "out")
    with pytest.raises(InputError, match="out is a symbolic link"):
        write_text("out/x.json", "{}", root=Root(ws), parents=True)
    assert not (ws.parent / "not-yet").exists()


def test_writes_outside_the_root_are_refused(ws: Path) -> None:
    with pytest.raises(InputError, match="outside"):
        write_text("../escape.txt", "x", root=Root(ws))
    with pytest.raises(InputError, match="outside"):
        write_text(ws.parent / "victim", "x", root=Root(ws))
    assert (ws.parent / "victim").read_text() == "precious\n"


def test_the_user_given_folder_is_taken_as_given(ws: Path) -> None:
    real = ws.parent / "real-out"
    real.mkdir()
    os.symlink(real, ws / "named")  # the person named this folder: followed
    write_text(ws / "named" / "r.html", "x", root=Root.user_given())
    assert (real / "r.html").read_text() == "x"
    os.symlink(ws.parent / "victim", real / "t.html")  # the file itself: not written over
    with pytest.raises(InputError, match="symbolic link"):
        write_text(ws / "named" / "t.html", "x", root=Root.user_given())


def test_a_failed_write_leaves_the_old_file_and_no_temporary(ws: Path) -> None:
    write_text("doc.json", "old", root=Root(ws))
    with pytest.raises(RuntimeError), replacing("doc.json", root=Root(ws)) as out:
        out.write(b"half")
        raise RuntimeError("interrupted")
    assert (ws / "doc.json").read_text() == "old"
    assert os.listdir(ws) == ["doc.json"]


def test_make_dirs_and_new_folder_never_reuse_a_planted_name(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = Root(ws)
    assert make_dirs(".perfline/baselines", root=root) == ws / ".perfline" / "baselines"
    draws = iter(["aaaaaaaaaaaa", "bbbbbbbbbbbb"])
    monkeypatch.setattr(file_access.writes.secrets, "token_hex", lambda n: next(draws))
    os.symlink(ws.parent, ws / ".perfline" / "baselines" / ".tmp-job-aaaaaaaaaaaa")
    made = new_folder(".perfline/baselines", ".tmp-job-", root=root)
    assert made.name == ".tmp-job-bbbbbbbbbbbb" and made.is_dir() and not made.is_symlink()


def test_remove_tree_removes_a_link_not_what_it_points_to(ws: Path) -> None:
    elsewhere = ws.parent / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep").write_text("x")
    os.symlink(elsewhere, ws / "b")
    assert remove_tree("b", root=Root(ws))
    assert (elsewhere / "keep").exists() and not os.path.lexists(ws / "b")
    make_dirs("t/u", root=Root(ws))
    write_text("t/u/f", "x", root=Root(ws))
    assert remove_tree("t", root=Root(ws)) and not (ws / "t").exists()
    assert not remove_tree("t", root=Root(ws))


def test_rename_moves_within_the_root(ws: Path) -> None:
    make_dirs("a", root=Root(ws))
    rename("a", "b", root=Root(ws))
    assert (ws / "b").is_dir() and not (ws / "a").exists()


def test_open_append_refuses_links_and_fifos(ws: Path) -> None:
    log = open_append(ws / "logs" / "serve.log", root=Root.user_given())
    log.write("line\n")
    log.close()
    assert (ws / "logs" / "serve.log").read_text() == "line\n"
    assert stat.S_IMODE(os.stat(ws / "logs" / "serve.log").st_mode) == 0o600
    os.symlink(ws.parent / "victim", ws / "linked.log")
    with pytest.raises(InputError, match="symbolic link"):
        open_append(ws / "linked.log", root=Root.user_given())
    os.mkfifo(ws / "fifo.log")
    with pytest.raises(InputError, match=r"named pipe|not a regular file"):
        open_append(ws / "fifo.log", root=Root.user_given())
    assert (ws.parent / "victim").read_text() == "precious\n"
