"""Where ``report`` and ``analyze`` put their result: ``DIR/mlia-output/mlia-output.json``.

The document is encoded once (``core.json_codec``, C speed, the bytes of
``json.dumps(document, indent=4) + "\\n"``), piece by piece; each piece goes to a new file
of a fresh random name beside the target (``file_access.replacing``: never through a
planted link; ``mlia-output/`` itself must not be a link) and, with ``--json``, to stdout,
so stdout and the file get the same bytes and the text is never held whole in memory. Only
when the file is complete is it renamed over ``mlia-output.json`` (an atomic replace in
the same folder): an interrupted run, a full disk or a closed pipe leaves the previous
file, and the input when it was that file, as they were. Nothing else in the folder is
touched; ``wrote PATH`` goes to stderr.

Cost: one C encoding pass plus the writes, in two threads (file, stdout) beside the encoder;
memory of up to 32 pieces per sink (each a slice of a long list).
"""

from __future__ import annotations

import contextlib
import os
import queue
import sys
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any

import click

from perfline.core.escaping import terminal_text
from perfline.core.json_codec import Piece, document_chunks
from perfline.server.file_access import Root, replacing

OUTPUT_FOLDER = "mlia-output"
OUTPUT_FILE = "mlia-output.json"


_RETAINED: list[Any] = []
"""The large values of the last command (its input and output documents), kept so that
they are not freed object by object when the command returns: ``perfline.clients.cli.main``
ends the process at once instead (one slot: a new command replaces them)."""


def retain(*values: Any) -> None:
    """Keep ``values`` alive to the end of the process (see ``_RETAINED``)."""
    _RETAINED[:] = values


def retained() -> bool:
    """Whether a command left large values to be reclaimed by the end of the process."""
    return bool(_RETAINED)


def output_path(output_dir: str | None) -> Path:
    """``<output_dir or .>/mlia-output/mlia-output.json``."""
    return Path(output_dir or ".") / OUTPUT_FOLDER / OUTPUT_FILE


def write_output(
    document: Mapping[str, Any],
    output_dir: str | None,
    *,
    echo: bool = False,
    json_only: bool = False,
) -> Path:
    """Write the document's persisted form (and with ``echo`` the same bytes on stdout).

    ``json_only``: the document holds JSON values only (read from JSON and post-processed),
    so msgspec may encode it (``json_codec.document_chunks``; the same bytes, 6x faster).
    """
    target = output_path(output_dir)
    # the folder named (or the current one) as given; mlia-output/ below it never a link
    out = replacing(
        Path(OUTPUT_FOLDER) / OUTPUT_FILE,
        root=Root(output_dir or "."),
        parents=True,
        source=str(target),
    )
    writer = _Writer(out.file, _binary_stdout() if echo else None)
    try:
        writer.start()
        for chunk in document_chunks(document, json_only=json_only):
            writer.put(chunk)
        writer.finish()
        out.commit()
    except BaseException as error:
        writer.abandon()
        out.discard()
        if isinstance(error, OSError) and not isinstance(error, BrokenPipeError):
            problem = error.strerror or str(error)
            raise click.ClickException(f"cannot write {target}: {problem}") from None
        raise
    click.echo(f"wrote {target}", err=True)
    return target


class _Writer:
    """Writes the pieces to the file and, with ``echo``, to stdout, each sink in a thread
    of its own: the writes release the GIL, so they overlap the encoding of the next pieces
    and each other (a file write held up by the kernel's write-back does not hold up the
    pipe). A file write error is raised by ``finish``; a reader of stdout that went away
    stops the echo only; the encoder is never blocked by a sink that stopped."""

    _END = object()

    def __init__(self, file: IO[bytes], stdout: IO[bytes] | None) -> None:
        self.file = file
        self.stdout = stdout
        self.error: BaseException | None = None
        self.sinks = [_Sink(self._write_file, "perfline-output")]
        if stdout is not None:
            self.sinks.append(_Sink(self._write_stdout, "perfline-stdout"))

    def start(self) -> None:
        for sink in self.sinks:
            sink.thread.start()

    def put(self, piece: Piece) -> None:
        if self.error is not None:
            raise self.error
        for sink in self.sinks:
            sink.pieces.put(piece)

    def finish(self) -> None:
        self._stop()
        self.file.close()
        if self.error is not None:
            raise self.error
        if self.stdout is not None:
            with contextlib.suppress(BrokenPipeError):
                self.stdout.flush()

    def abandon(self) -> None:
        self.error = self.error or RuntimeError("abandoned")
        self._stop()
        with contextlib.suppress(OSError):
            self.file.close()

    def _stop(self) -> None:
        for sink in self.sinks:
            if sink.thread.is_alive():
                sink.pieces.put(self._END)
                sink.thread.join()

    def _write_file(self, piece: Piece) -> None:
        if self.error is None:
            try:
                self.file.write(piece)
            except BaseException as error:  # raised again by put() or finish()
                self.error = error

    def _write_stdout(self, piece: Piece) -> None:
        if self.stdout is not None:
            self.stdout = _echo(self.stdout, piece)


class _Sink:
    """One writer thread: takes pieces from its queue until ``_Writer._END``."""

    def __init__(self, write: Callable[[Piece], None], name: str) -> None:
        self.write = write
        self.pieces: queue.Queue[Any] = queue.Queue(maxsize=32)
        self.thread = threading.Thread(target=self._run, name=name, daemon=True)

    def _run(self) -> None:
        while (piece := self.pieces.get()) is not _Writer._END:
            self.write(piece)


def _binary_stdout() -> IO[bytes]:
    sys.stdout.flush()
    _widen_pipe(sys.stdout)
    buffer = getattr(sys.stdout, "buffer", None)
    return buffer if buffer is not None else sys.stdout  # type: ignore[return-value]


PIPE_BYTES = 1 << 20
"""What stdout's pipe is asked to hold (Linux's default is 64 KiB and its unprivileged
ceiling, ``/proc/sys/fs/pipe-max-size``, 1 MiB): a reader such as ``jq`` then wakes once a
MiB, not once every 64 KiB of the hundreds of MB of a large document."""


def _widen_pipe(stream: Any) -> None:
    """Enlarge stdout's pipe to ``PIPE_BYTES`` where it is a pipe and the system allows it
    (Linux); anything else (a file, a terminal, a refusal) is left as it is."""
    import fcntl
    import stat

    setting = getattr(fcntl, "F_SETPIPE_SZ", None)
    with contextlib.suppress(OSError, ValueError, AttributeError):
        descriptor = stream.fileno()
        if setting is not None and stat.S_ISFIFO(os.fstat(descriptor).st_mode):
            fcntl.fcntl(descriptor, setting, PIPE_BYTES)


def _echo(stdout: IO[bytes], chunk: Piece) -> IO[bytes] | None:
    """Write a piece on stdout; a reader that went away (``| head``) stops the echo only."""
    try:
        stdout.write(chunk)
    except BrokenPipeError:
        _silence_stdout()
        return None
    return stdout


def _silence_stdout() -> None:
    # Python would report the broken pipe again when it flushes stdout at exit.
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def print_text(document: Mapping[str, Any], **options: Any) -> None:
    """The text report on stdout, at the terminal's width (``COLUMNS`` when piped)."""
    from perfline.core.render_text import render_text

    encoding = (getattr(sys.stdout, "encoding", None) or "").lower()
    text = render_text(document, width=report_width(), ascii_only="utf" not in encoding, **options)
    sys.stdout.write(terminal_text(text))


PIPE_WIDTH = 120
"""Columns of the text report when stdout is not a terminal and ``COLUMNS`` is not set."""


def report_width() -> int:
    """``COLUMNS`` if set (also when piped), else the terminal's width, else 120."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return max(40, int(columns))
    if sys.stdout.isatty():
        with contextlib.suppress(OSError, ValueError):
            return max(40, os.get_terminal_size(sys.stdout.fileno()).columns)
    return PIPE_WIDTH
