"""Reading a large file as a stream: bounded, gzip-aware, each chunk on a timed worker.

``open_stream`` opens a regular file under its root exactly as ``reads.read_file`` does
(same checks, same errors) and returns a ``BoundedStream``: a binary, read-only
``io.RawIOBase`` (wrap it in ``io.BufferedReader`` or ``io.TextIOWrapper`` as needed)
whose raw reads each run on a ``timed`` worker (a read that stalls past the time bound is
an ``InputError``) and count the bytes actually read against the kind's limit. A gzip file
(``gzip=None``: recognised by its first two bytes; several members and zero padding
allowed) is decompressed on the fly, and the decompressed bytes are bounded too (the
``expanded`` limit): a small file that inflates without end stops there. Memory: one raw
chunk (1 MiB) and what the caller asks for. Cost: the read, the inflation, and one
hand-over to a worker per raw chunk.
"""

from __future__ import annotations

import io
import os
import zlib
from pathlib import Path
from typing import Any

from perfline.core.errors import InputError
from perfline.server.file_access import timed
from perfline.server.file_access.limits import Limits, input_kind
from perfline.server.file_access.reads import refuse_what
from perfline.server.file_access.roots import Root, open_file

RAW_CHUNK = 1024 * 1024
_GZIP_MAGIC = b"\x1f\x8b"
_DEFAULT = Limits()


class BoundedStream(io.RawIOBase):
    """A file's bytes (decompressed when gzip), bounded and read with a deadline."""

    def __init__(
        self,
        descriptor: int,
        info: os.stat_result,
        source: str,
        *,
        limit: int,
        expanded_limit: int,
        seconds: float,
        gzip: bool | None,
    ) -> None:
        super().__init__()
        self.info = info
        self.source = source
        self.limit = limit
        self.expanded_limit = expanded_limit
        self.seconds = seconds
        self.raw_bytes = 0
        self.produced = 0
        self._descriptor = descriptor
        self._gzip = gzip
        self._input = b""
        self._raw_done = False
        self._inflater: Any = None

    @property
    def compressed(self) -> bool:
        """Whether the file is gzip (decided by its first read when not said)."""
        if self._gzip is None:
            self._decide()
        return bool(self._gzip)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        data = self._next(len(view))
        view[: len(data)] = data
        return len(data)

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            return self.readall()
        return self._next(size)

    def readall(self) -> bytes:
        chunks = []
        while chunk := self._next(RAW_CHUNK):
            chunks.append(chunk)
        return b"".join(chunks)

    def close(self) -> None:
        if not self.closed and self._descriptor >= 0:
            os.close(self._descriptor)
            self._descriptor = -1
        super().close()

    def _next(self, size: int) -> bytes:
        if self.closed:
            raise ValueError("read of a closed stream")
        if size == 0:
            return b""
        if self._gzip is None:
            self._decide()
        if not self._gzip:
            data = self._input or self._raw()
            self._input = data[size:]
            data = data[:size]
            self.produced += len(data)
            return data
        return self._inflate(size)

    def _decide(self) -> None:
        self._input = self._raw()
        while len(self._input) < 2 and not self._raw_done:
            self._input += self._raw()
        self._gzip = self._input[:2] == _GZIP_MAGIC

    def _raw(self) -> bytes:
        if self._raw_done:
            return b""
        descriptor = self._descriptor
        want = min(RAW_CHUNK, self.limit + 1 - self.raw_bytes)

        def work(abandon: timed.Abandon) -> bytes:
            return os.read(descriptor, want)

        try:
            chunk = timed.call(work, self.seconds, self.source)
        except OSError as error:
            raise InputError(self.source, f"cannot read the file: {error.strerror}") from None
        self.raw_bytes += len(chunk)
        if self.raw_bytes > self.limit:
            raise InputError(
                self.source, f"the input grew past the limit of {self.limit} bytes while being read"
            )
        if not chunk:
            self._raw_done = True
        return chunk

    def _inflate(self, size: int) -> bytes:
        while True:
            if self._inflater is None:
                self._input = self._input.lstrip(b"\0")  # padding between members
                if not self._input:
                    self._input = self._raw().lstrip(b"\0")
                    if not self._input:
                        return b""
                self._inflater = zlib.decompressobj(wbits=31)
            if not self._input:
                self._input = self._raw()
                if not self._input:
                    raise InputError(self.source, "the gzip data ends early (truncated)")
            try:
                out: bytes = self._inflater.decompress(self._input, size)
            except zlib.error as error:
                raise InputError(self.source, f"not valid gzip data ({error})") from None
            self._input = self._inflater.unconsumed_tail
            if self._inflater.eof:
                self._input = self._inflater.unused_data + self._input
                self._inflater = None
            if out:
                self.produced += len(out)
                if self.produced > self.expanded_limit:
                    raise InputError(
                        self.source,
                        f"the gzip data expands past the limit of {self.expanded_limit} bytes",
                    )
                return out


def open_stream(
    path: Path | str,
    *,
    root: Root,
    kind: str | None = None,
    limits: Limits = _DEFAULT,
    source: str | None = None,
    gzip: bool | None = None,
) -> BoundedStream:
    """The file ``path`` under ``root`` as a ``BoundedStream`` (close it, or use ``with``);
    ``gzip``: ``None`` decides by the first bytes, ``False`` reads the bytes as they are."""
    shown = source if source is not None else str(path)
    kind = kind if kind is not None else input_kind(str(path))
    limit = limits.size_for(kind)

    def work(abandon: timed.Abandon) -> tuple[int, os.stat_result]:
        descriptor = open_file(root, path, shown)
        try:
            info = os.fstat(descriptor)
            refuse_what(shown, info, limit, kind)
        except OSError as error:
            os.close(descriptor)
            raise InputError(shown, f"cannot read the file: {error.strerror}") from None
        except BaseException:
            os.close(descriptor)
            raise
        if abandon.is_set():
            os.close(descriptor)
        return descriptor, info

    descriptor, info = timed.call(work, limits.seconds, shown)
    return BoundedStream(
        descriptor,
        info,
        shown,
        limit=limit,
        expanded_limit=limits.size_for("expanded"),
        seconds=limits.seconds,
        gzip=gzip,
    )
