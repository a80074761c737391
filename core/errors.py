"""Error types shared by every layer.

``InputError`` is bad input: something a person can fix in a file. It names
the file, the place in it (a JSON path, a table/row/column, a byte offset) and
what was expected. The CLI turns it into exit status 2 and the daemon into a
diagnostic; neither shows a traceback for it. Anything else escaping a stage
is an internal failure (exit status 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One problem found in an input: where it is and what is wrong."""

    location: str
    message: str

    def __str__(self) -> str:
        return f"{self.location}: {self.message}" if self.location else self.message


class InputError(Exception):
    """Bad input, with every problem found in it.

    ``source`` names the file (or another origin such as ``<stdin>``);
    ``problems`` lists each problem with its location inside that source.
    """

    def __init__(self, source: str | None, problems: Sequence[Problem] | Problem | str) -> None:
        if isinstance(problems, str):
            problems = [Problem("", problems)]
        elif isinstance(problems, Problem):
            problems = [problems]
        self.source = source
        self.problems: tuple[Problem, ...] = tuple(problems)
        super().__init__(self.render())

    def render(self) -> str:
        """The error as a person reads it: the file, then one line per problem."""
        head = f"{self.source}: " if self.source else ""
        if len(self.problems) == 1:
            return head + str(self.problems[0])
        lines = [f"{head}{len(self.problems)} problems:"]
        lines.extend(f"  - {problem}" for problem in self.problems)
        return "\n".join(lines)

    def with_source(self, source: str) -> InputError:
        """The same problems, attributed to ``source``."""
        return InputError(source, self.problems)


class StageError(ValueError):
    """A post-processing stage cannot process a result; the message says why.

    The pipeline adds the result index and the source file.
    """
