"""Bounded, streaming gzip decompression of a trace (``tensorboard_trace_handler`` writes
``*.pt.trace.json.gz`` when ``use_gzip=True``).

``trace_chunks`` passes plain chunks through and decompresses a gzip stream (found by its magic
bytes, whatever the file's name; several members are read one after the other, as ``gzip``
does) in pieces of at most ``piece_bytes``, never more than ``limit`` bytes in all: a small
file that would decompress to more (a "gzip bomb") is refused with the size reached, before
that much is produced. A damaged or truncated stream is an ``InputError`` naming how far it
got. Pure: chunks in, chunks out; memory: one piece.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator
from typing import Final

from perfline.core.errors import InputError, Problem

GZIP_MAGIC: Final = b"\x1f\x8b"
#: Default bound on a trace's decompressed size.
MAX_DECOMPRESSED_BYTES: Final = 8 * 1024 * 1024 * 1024
PIECE_BYTES: Final = 1024 * 1024


def trace_chunks(
    chunks: Iterable[bytes],
    source: str,
    *,
    limit: int = MAX_DECOMPRESSED_BYTES,
    piece_bytes: int = PIECE_BYTES,
) -> Iterator[bytes]:
    """The trace's text in chunks: ``chunks`` as they are, or decompressed when they start
    with the gzip magic bytes (see the module docstring)."""
    iterator = iter(chunks)
    first = b""
    for chunk in iterator:
        first = bytes(chunk)
        if len(first) >= 2:
            break
        if first:  # one byte: look at the next chunk too
            for following in iterator:
                first += bytes(following)
                break
            break
    if not first.startswith(GZIP_MAGIC):
        if first:
            yield first
        yield from iterator
        return
    yield from _gunzip(first, iterator, source, limit, piece_bytes)


def _gunzip(
    first: bytes, rest: Iterator[bytes], source: str, limit: int, piece_bytes: int
) -> Iterator[bytes]:
    decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
    produced = 0
    consumed = 0

    def pieces(data: bytes) -> Iterator[bytes]:
        nonlocal decompressor, produced, consumed
        while data:
            try:
                piece = decompressor.decompress(data, piece_bytes)
            except zlib.error as error:
                raise InputError(
                    source,
                    Problem(
                        f"compressed byte {consumed}",
                        f"the gzip stream is damaged ({error}) after {produced:,} "
                        "decompressed bytes",
                    ),
                ) from None
            consumed += len(data) - len(decompressor.unconsumed_tail)
            produced += len(piece)
            if produced > limit:
                raise InputError(
                    source,
                    Problem(
                        f"compressed byte {consumed}",
                        f"the gzip stream decompresses to more than {limit:,} bytes; refused "
                        "(a trace this large, or a compression bomb)",
                    ),
                )
            if piece:
                yield piece
            if decompressor.eof:
                data = decompressor.unused_data
                consumed -= len(data)
                if data.strip(b"\x00"):
                    decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
                else:
                    data = b""
            else:
                data = decompressor.unconsumed_tail

    yield from pieces(first)
    for chunk in rest:
        yield from pieces(bytes(chunk))
    if not decompressor.eof:
        raise InputError(
            source,
            Problem(
                f"compressed byte {consumed}",
                f"the gzip stream is truncated (it ends after {produced:,} decompressed bytes)",
            ),
        )
