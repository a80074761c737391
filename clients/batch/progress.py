"""Progress of ``perfline batch run`` on standard error, and its closing summary.

On a terminal, one line redrawn at most ten times a second: a bar, runs finished of the
total, stored / skipped / failed, the rate and the time left. Otherwise (a log, CI) one
line per thousand runs finished, and one at the end. The counts are all it keeps: the
failures' reasons are printed as they come (the first ``SHOWN_FAILURES``; every one is in
the store's ``failures`` table). The clock is passed in, so the text is a pure function of
the counts; the stream is the only output.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

#: Runs between two progress lines when standard error is not a terminal.
LINE_EVERY = 1000
#: Failures whose reason is printed.
SHOWN_FAILURES = 20
_BAR = 24
_REDRAW_SECONDS = 0.1


@dataclass
class Counts:
    """Runs finished so far, by outcome."""

    stored: int = 0
    skipped: int = 0
    failed: int = 0

    @property
    def finished(self) -> int:
        return self.stored + self.skipped + self.failed


def duration_text(seconds: float) -> str:
    """``45s``, ``3m12s``, ``2h05m``."""
    whole = max(0, round(seconds))
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole // 3600}h{whole % 3600 // 60:02d}m"


def status_text(counts: Counts, total: int | None, elapsed: float) -> str:
    """``1,234/10,000 runs (stored 1,200, skipped 30, failed 4), 45.6 runs/s, 3m12s left``."""
    done = counts.finished
    rate = done / elapsed if elapsed > 0 else 0.0
    of = f"{done:,}/{total:,}" if total is not None else f"{done:,}"
    text = (
        f"{of} runs (stored {counts.stored:,}, skipped {counts.skipped:,}, "
        f"failed {counts.failed:,}), {rate:.1f} runs/s"
    )
    if total is not None and rate > 0 and done < total:
        text += f", {duration_text((total - done) / rate)} left"
    return text


def bar_text(counts: Counts, total: int | None) -> str:
    """``[#########---------------]`` (empty when the total is unknown)."""
    if not total:
        return ""
    filled = min(_BAR, _BAR * counts.finished // total)
    return "[" + "#" * filled + "-" * (_BAR - filled) + "] "


class Progress:
    """Counts finished chunks and reports them on ``stream``."""

    def __init__(
        self, stream: TextIO, total: int | None, clock: Callable[[], float], terminal: bool
    ) -> None:
        self.stream = stream
        self.total = total
        self.clock = clock
        self.terminal = terminal
        self.counts = Counts()
        self.started = clock()
        self._drawn = 0.0
        self._next_line = LINE_EVERY
        self._shown_failures = 0

    def add(self, stored: int, skipped: int, failures: tuple[tuple[str, str], ...]) -> None:
        """One chunk's outcome."""
        self.counts.stored += stored
        self.counts.skipped += skipped
        self.counts.failed += len(failures)
        for spec, reason in failures:
            if self._shown_failures < SHOWN_FAILURES:
                self._clear()
                said = reason if reason.startswith(f"{spec}: ") else f"{spec}: {reason}"
                self.stream.write(f"failed: {said}\n")
                self._shown_failures += 1
        self._report()

    def _report(self) -> None:
        now = self.clock()
        if self.terminal:
            if now - self._drawn >= _REDRAW_SECONDS:
                self._drawn = now
                self._draw(now)
            return
        while self.counts.finished >= self._next_line:
            self.stream.write(
                f"batch: {status_text(self.counts, self.total, now - self.started)}\n"
            )
            self._next_line += LINE_EVERY
        self.stream.flush()

    def _draw(self, now: float) -> None:
        text = bar_text(self.counts, self.total) + status_text(
            self.counts, self.total, now - self.started
        )
        self.stream.write("\r\x1b[2K" + text)
        self.stream.flush()

    def _clear(self) -> None:
        if self.terminal:
            self.stream.write("\r\x1b[2K")

    def finish(self) -> str:
        """The closing line (the terminal's bar cleared first)."""
        elapsed = self.clock() - self.started
        self._clear()
        more = self.counts.failed - self._shown_failures
        if more > 0:
            self.stream.write(
                f"... and {more:,} more failed runs (perfline batch sql --store STORE "
                '"SELECT * FROM failures")\n'
            )
        line = f"batch: {status_text(self.counts, None, elapsed)} in {duration_text(elapsed)}"
        self.stream.write(line + "\n")
        self.stream.flush()
        return line
