"""Line mapping between two versions of a source file."""

from __future__ import annotations

from perfline.core.compare.line_map import identical, map_lines

OLD = """import torch

class Block:
    def forward(self, x):
        x = self.depthwise(x)
        x = relu(self.bn_dw(x))
        x = self.pointwise(x)
        return relu(self.bn_pw(x))
"""


def test_inserted_lines_shift_the_lines_below() -> None:
    new = OLD.replace("import torch\n", "import torch\nimport math\n\n")
    mapping = map_lines(OLD, new)
    assert mapping.new_line(1) == 1
    assert mapping.new_line(5) == 7  # x = self.depthwise(x)
    assert mapping.new_line(8) == 10
    assert mapping.old_line(7) == 5
    assert mapping.old_line(2) is None  # an added line has no history


def test_a_moved_line_keeps_its_history() -> None:
    lines = OLD.splitlines()
    moved = [*lines[:4], lines[6], lines[4], lines[5], lines[7]]  # pointwise moved up
    mapping = map_lines(OLD, "\n".join(moved) + "\n")
    assert mapping.new_line(7) == 5  # x = self.pointwise(x) was line 7, is line 5
    assert mapping.new_line(5) == 6
    assert mapping.new_line(6) == 7
    assert mapping.moved == frozenset({7})  # the two other lines stayed in a matching block


def test_a_rewritten_line_is_new() -> None:
    new = OLD.replace("x = self.pointwise(x)", "x = self.pointwise(x) * 2")
    mapping = map_lines(OLD, new)
    assert mapping.new_line(7) is None
    assert mapping.old_line(7) is None
    assert mapping.new_line(6) == 6 and mapping.new_line(8) == 8


def test_repeated_or_blank_lines_do_not_move() -> None:
    old = "a = 1\n\nx = f(x)\nb = 2\nx = f(x)\n"
    new = "x = f(x)\nx = f(x)\n\nc = 3\n"
    mapping = map_lines(old, new)
    # "x = f(x)" occurs twice on each side: whatever difflib matched is one to one.
    mapped = [mapping.new_line(line) for line in range(1, 6)]
    taken = [line for line in mapped if line is not None]
    assert len(taken) == len(set(taken))
    assert mapping.new_line(1) is None and mapping.new_line(4) is None


def test_identical_versions() -> None:
    assert identical(OLD, OLD.replace("\n", "\r\n"))
    assert not identical(OLD, OLD + "x = 1\n")
    mapping = map_lines(OLD, OLD)
    assert mapping.items() == [(line, line) for line in range(1, 9)]
