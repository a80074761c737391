"""The one check of a TCP host that perfline listens on or connects to: loopback only
(``localhost``, ``127.0.0.0/8``, ``::1``). ``perfline serve`` refuses to listen anywhere
else; the clients (the CLI's ``--tcp``, ``Client`` and ``AsyncClient``) refuse to connect
anywhere else: a daemon on another host is not the user's own, and requests carry absolute
paths of the workspace and the daemon's token. No name resolution (a host name other than
``localhost`` is refused). Cost: one address parse.
"""

from __future__ import annotations

import ipaddress
from typing import Literal

#: What the caller was about to do with the host (it starts the message).
Action = Literal["listen on", "connect to"]

_WHO = {
    "listen on": "the daemon binds loopback addresses only (127.0.0.1 or ::1)",
    "connect to": "a perfline daemon listens on loopback addresses only (127.0.0.1 or ::1)",
}


class NotLoopback(ValueError):
    """A host that is not a loopback address; the message is one line."""


def check_loopback(host: str, action: Action) -> str:
    """``host`` when it is a loopback address (``localhost`` as ``127.0.0.1``); else
    ``NotLoopback`` saying why, in one line."""
    if host == "localhost":
        return "127.0.0.1"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        raise NotLoopback(
            f"refusing to {action} {host!r}: not an IP address; {_WHO[action]}"
        ) from None
    if not address.is_loopback:
        raise NotLoopback(f"refusing to {action} {host}: {_WHO[action]}")
    return host
