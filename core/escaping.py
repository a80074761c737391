"""Text from documents made safe for the medium it is shown in: one step per medium.

Names, paths and messages in a document are written by whoever made the file. Shown as
they are they can break or hijack what shows them:

* **XML** (``xml_text``: JUnit): characters XML 1.0 forbids (C0 controls but tab, line
  feed and carriage return; lone surrogates; U+FFFE/U+FFFF) make the file not
  well-formed; they are written ``\\x1b``-style instead (markup itself is the XML
  writer's to escape).
* **Terminal** (``terminal_text``: ``compare``, ``check``, the text reports): control
  characters (C0 but tab and line feed, DEL, C1) start escape sequences that move the
  cursor, rewrite the screen, set the window title; bidirectional overrides reorder what
  is read. They are written ``\\x1b``-style.
* **Markdown** (``markdown_text``, ``markdown_code``: hovers, the breakdown view): the
  characters that open inline markup (backslash, backtick, ``*``, ``[``, ``]``, ``<``,
  ``>``, ``|``, ``~``, an underscore at a word's edge) are backslash-escaped (no emphasis,
  link, image, HTML or table syntax from a name), line breaks become spaces, and ``://``
  and ``www.`` get a word joiner so no renderer makes a link of them; ``markdown_code`` is
  a code span that shows any text as it is. An editor never fetches a remote image or
  opens a link a document wrote.

Pure; linear in the text (one ``str.translate`` or a scan).
"""

from __future__ import annotations

import re
from typing import Final

_WORD_JOINER: Final = "\u2060"
_BIDI: Final = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def _visible(code: int) -> str:
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


_TERMINAL: Final = {
    code: _visible(code)
    for code in (*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0), *map(ord, _BIDI))
    if code not in (0x09, 0x0A)
}
_XML_INVALID: Final = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_MARKDOWN_PUNCTUATION: Final = {ord(c): "\\" + c for c in "\\`*[]<>|~"}
#: An underscore that could open or close emphasis (not one inside a word: ``conv2d_2``).
_EDGE_UNDERSCORE: Final = re.compile(r"(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")
_LINE_BREAKS: Final = re.compile(r"[\r\n\u2028\u2029]+")


def terminal_text(text: str) -> str:
    """``text`` with every control character and bidirectional override written as
    ``\\x1b``/``\\u202e`` (tab and line feed kept)."""
    return text.translate(_TERMINAL)


def xml_text(text: str) -> str:
    """``text`` with the characters XML 1.0 cannot hold written as ``\\x1b``/``\\ud800``."""
    return _XML_INVALID.sub(lambda found: _visible(ord(found.group())), text)


def markdown_text(text: object) -> str:
    """``text`` (any value, as ``str``) as plain Markdown text on one line."""
    flat = _LINE_BREAKS.sub(" ", terminal_text(str(text)))
    escaped = _EDGE_UNDERSCORE.sub(r"\\_", flat.translate(_MARKDOWN_PUNCTUATION))
    return escaped.replace("://", f":{_WORD_JOINER}//").replace("www.", f"www{_WORD_JOINER}.")


def markdown_code(text: object) -> str:
    """``text`` as a Markdown code span: shown as it is, never markup, a link or an image."""
    flat = _LINE_BREAKS.sub(" ", terminal_text(str(text)))
    longest = max((len(run) for run in re.findall("`+", flat)), default=0)
    fence = "`" * (longest + 1)
    padded = f" {flat} " if flat.startswith("`") or flat.endswith("`") or not flat.strip() else flat
    return f"{fence}{padded}{fence}"
