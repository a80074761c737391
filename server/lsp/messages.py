"""``window/showMessage`` of configuration errors: once per distinct error, per connection.

A broken ``perfline.toml`` is never silent: besides its diagnostics (on the offending
lines) and the last valid configuration staying in force, each connection gets one
error message per distinct error text, when the client is initialized or the error
appears; the same text is not shown again on that connection (a fixed and re-broken
file with the same error stays quiet; a different error is shown).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from perfline.server.lsp.connection import PerflineServer


def show_config_error(ls: PerflineServer) -> None:
    """Show the engine's configuration error unless this connection has seen its text."""
    if not ls.initialized:
        return
    error = ls.engine().config_error
    if error is None:
        return
    text = str(error)
    if text in ls.shown_config_errors:
        return
    ls.shown_config_errors.add(text)
    ls.window_show_message(
        types.ShowMessageParams(
            type=types.MessageType.Error,
            message=f"perfline: {text} (the last valid configuration stays in force)",
        )
    )
