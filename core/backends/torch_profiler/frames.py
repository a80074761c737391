"""What a ``python_function`` event's name says about the Python frame it records.

torch's Python tracer (``with_stack=True``) names each call event:

* ``model.py(37): forward``: a Python function entered, its file (the path with its
  ``sys.path`` prefix removed: ``model.py``, ``torch/nn/modules/linear.py``; frozen modules
  read ``<frozen os>``) and the line of its ``def`` (the code object's first line);
* ``nn.Module: Linear_0``: the call of an ``nn.Module`` instance (class name, then the
  instance's number among the modules of that class the tracer met);
* ``<built-in method relu of type object at 0x...>``, ``<built-in function isinstance>``: a
  call into C, which has no source line.

``parse_frame`` turns a name into a ``CodeFrame``, a ``ModuleCall`` or ``None`` (a C call, or
a name of no known form). Pure; cost: one regular expression per distinct name.
"""

from __future__ import annotations

import re
from typing import Final

_CODE: Final = re.compile(r"^(?P<file>.+?)\((?P<line>\d+)\): (?P<function>.+)$")
_MODULE: Final = re.compile(r"^nn\.Module: (?P<instance>(?P<cls>.+?)(?:_(?P<number>\d+))?)$")
MODULE_PREFIX: Final = "nn.Module: "


class CodeFrame:
    """A Python function's frame: recorded file, ``def`` line, function name."""

    __slots__ = ("file", "function", "line")

    def __init__(self, file: str, line: int, function: str) -> None:
        self.file = file
        self.line = line
        self.function = function

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CodeFrame) and (self.file, self.line, self.function) == (
            other.file,
            other.line,
            other.function,
        )

    def __hash__(self) -> int:
        return hash((self.file, self.line, self.function))

    def __repr__(self) -> str:
        return f"CodeFrame({self.file!r}, {self.line}, {self.function!r})"


class ModuleCall:
    """An ``nn.Module`` instance's call: its label (``Linear_0``) and class (``Linear``)."""

    __slots__ = ("class_name", "instance")

    def __init__(self, instance: str, class_name: str) -> None:
        self.instance = instance
        self.class_name = class_name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ModuleCall) and self.instance == other.instance

    def __hash__(self) -> int:
        return hash(self.instance)

    def __repr__(self) -> str:
        return f"ModuleCall({self.instance!r})"


def parse_frame(name: str) -> CodeFrame | ModuleCall | None:
    """The frame a ``python_function`` event's name records (see the module docstring)."""
    if name.startswith("<built-in"):
        return None
    if name.startswith(MODULE_PREFIX):
        match = _MODULE.match(name)
        if match is None:
            return None
        return ModuleCall(match["instance"], match["cls"])
    match = _CODE.match(name)
    if match is None:
        return None
    return CodeFrame(match["file"].replace("\\", "/"), int(match["line"]), match["function"])


def is_frozen(file: str) -> bool:
    """A frame of a frozen or synthetic module (``<frozen os>``, ``<string>``): no file."""
    return file.startswith("<")
