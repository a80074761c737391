"""What a damaged zip archive (a ``.pt2`` model, an ETRecord) can make ``zipfile`` raise.

Opening an archive reads its central directory, and reading a member reads its local header
and decompresses it; on damaged bytes the standard library raises more than ``BadZipFile``:

* ``NotImplementedError`` for a "version needed to extract" above what it supports, or an
  unknown compression method;
* ``ValueError`` for a header offset damaged into a negative seek;
* ``zlib.error`` and ``EOFError`` for a damaged or cut deflate stream;
* ``OSError`` for other read and seek failures.

Readers catch ``UNREADABLE_ZIP`` around both steps and report the file as bad input.
"""

from __future__ import annotations

import zipfile
import zlib
from typing import Final

UNREADABLE_ZIP: Final = (
    zipfile.BadZipFile,
    NotImplementedError,
    ValueError,
    zlib.error,
    EOFError,
    OSError,
)
