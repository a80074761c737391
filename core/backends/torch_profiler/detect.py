"""Whether the first bytes of a file are a torch.profiler trace (for routing inputs).

A trace written by kineto or by torch's Python exporter is a JSON object whose first keys
are ``schemaVersion`` and ``deviceProperties`` (then metadata, ``baseTimeNanoseconds`` and
``traceEvents``); ``tensorboard_trace_handler`` may gzip it. ``looks_like_trace(head)``
decides from the first bytes (decompressing a gzip head), without reading the rest: the
object starts, and ``"traceEvents"`` appears together with one of kineto's own keys or
categories. A standardized document (``schema_version``) or an ONNX Runtime profile (a bare
array of ``Session``/``Node`` events) is not a trace. Pure; cost: a few byte searches.
"""

from __future__ import annotations

import zlib
from typing import Final

from perfline.core.backends.torch_profiler.compressed import GZIP_MAGIC

#: How many leading bytes routing looks at.
HEAD_BYTES: Final = 64 * 1024
_KINETO_MARKERS: Final = (
    b'"schemaVersion"',
    b'"deviceProperties"',
    b'"baseTimeNanoseconds"',
    b'"cat": "cpu_op"',
    b'"cat":"cpu_op"',
    b'"cat": "python_function"',
    b'"cat":"python_function"',
)


def text_head(head: bytes) -> bytes:
    """The first bytes of the text: ``head`` itself, or what its gzip start decompresses
    to (as far as it goes)."""
    if not head.startswith(GZIP_MAGIC):
        return head
    try:
        return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head, HEAD_BYTES)
    except zlib.error:
        return b""


def looks_like_trace(head: bytes) -> bool:
    """Whether ``head`` (a file's first bytes) starts a torch.profiler trace."""
    text = text_head(head)
    if text.lstrip()[:1] != b"{" or b'"schema_version"' in text:
        return False
    return any(marker in text for marker in _KINETO_MARKERS)
