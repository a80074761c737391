"""The Python client of the perfline JSON-RPC API (``docs/api.md``).

``Client`` is synchronous, ``AsyncClient`` is for asyncio; both speak the
LSP base protocol (``Content-Length`` framed JSON-RPC 2.0) over loopback TCP
or a Unix socket to a shared daemon (``perfline serve --tcp/--socket``).
``connect_workspace`` finds the daemon serving a folder. ``LocalSession``
answers the same methods in-process, without a daemon.

    from perfline.clients.rpc import Client
    with Client.connect(tcp=("127.0.0.1", 8765)) as client:
        print(client.request("perfline/jobs"))
"""

from perfline.clients.rpc.client import (
    AsyncClient,
    Client,
    Endpoint,
    RpcError,
    endpoint_for_workspace,
)
from perfline.clients.rpc.local import LocalSession

__all__ = [
    "AsyncClient",
    "Client",
    "Endpoint",
    "LocalSession",
    "RpcError",
    "endpoint_for_workspace",
]
