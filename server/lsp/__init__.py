"""The LSP shell: pygls handlers that convert a request, ask the view, convert the answer.

One module per request or feature group (``lifecycle``, ``configuration``, ``text_sync``,
``inlay_hints``, ``hover``, ``code_lens``, ``diagnostics``, ``commands``,
``custom_requests``, ``progress``, ``engine_events``), the conversions (``convert``), the
protocol class (``protocol``), the wire fast path (``wire``) and the read side of the wire
(``message_loop``: ``frame_reader``, ``inbound``, ``admission``); ``connection`` ties them
to one client. What is shown is decided in ``server.view``, never here.
"""

from __future__ import annotations

from perfline.server.lsp.connection import PerflineServer

__all__ = ["PerflineServer"]
