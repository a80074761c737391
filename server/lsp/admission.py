"""The first message of a TCP connection must present the daemon's token.

Any local process of any user can connect to a loopback port, and a web page can make
the browser send to one; so ``perfline serve --tcp`` makes a random token at start
(``new_token``), writes it only into its discovery entry (a file of mode 0600 in a folder
of mode 0700, see ``server.discovery``) and admits a connection only once its first
message carries it, either as

* a request ``perfline/authenticate`` with params ``{"token": "..."}`` (answered
  ``{"authenticated": true}``; what scripts send), or
* the LSP ``initialize`` request with ``initializationOptions.token`` (what an editor
  connecting over TCP can send; the request then goes on as usual).

Anything else first, or a wrong token, gets error -32006 and the connection is closed.
Tokens are compared in constant time. A Unix socket needs no token: its mode (0600)
keeps other users out. Cost: one comparison per connection.
"""

from __future__ import annotations

import hmac
import logging
import secrets
from typing import Any, Final

from perfline.server.lsp.preauth import PROBLEMS

log = logging.getLogger(__name__)

AUTHENTICATE: Final = "perfline/authenticate"
UNAUTHENTICATED: Final = -32006


def new_token() -> str:
    """A fresh random token (256 bits, URL-safe text)."""
    return secrets.token_urlsafe(32)


class Verdict:
    """What the gate decided about a first message: ``admitted``; ``reply`` (a result or
    an error to send); ``forward`` (the message goes on to the protocol)."""

    __slots__ = ("admitted", "forward", "reply")

    def __init__(self, admitted: bool, reply: dict[str, Any] | None, forward: bool) -> None:
        self.admitted = admitted
        self.reply = reply
        self.forward = forward


class TokenGate:
    """Admits a connection whose first message presents ``token``."""

    def __init__(self, token: str) -> None:
        self._token = token.encode("utf-8")

    def first(self, message: dict[str, Any]) -> Verdict:
        """The verdict on a connection's first (checked) message."""
        method, msg_id = message.get("method"), message.get("id")
        params = message.get("params")
        if method == AUTHENTICATE and "id" in message:
            given = params.get("token") if isinstance(params, dict) else None
            if self._matches(given):
                result = {"jsonrpc": "2.0", "id": msg_id, "result": {"authenticated": True}}
                return Verdict(True, result, False)
            return self._refused(msg_id, "wrong token")
        if method == "initialize" and "id" in message and isinstance(params, dict):
            options = params.get("initializationOptions")
            given = options.get("token") if isinstance(options, dict) else None
            if self._matches(given):
                return Verdict(True, None, True)
            return self._refused(msg_id, "wrong or missing initializationOptions.token")
        return self._refused(msg_id if "id" in message else None, "no token presented")

    def _matches(self, given: Any) -> bool:
        return isinstance(given, str) and hmac.compare_digest(given.encode("utf-8"), self._token)

    def _refused(self, msg_id: Any, why: str) -> Verdict:
        PROBLEMS.log(logging.INFO, "refused", "refused a TCP connection: %s", why)
        error = {
            "code": UNAUTHENTICATED,
            "message": (
                "this daemon admits a connection once its first message presents the token "
                'of its discovery file: send perfline/authenticate with {"token": ...} '
                f"(or initializationOptions.token in initialize); {why}"
            ),
        }
        return Verdict(False, {"jsonrpc": "2.0", "id": msg_id, "error": error}, False)
