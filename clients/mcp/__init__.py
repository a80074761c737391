"""``perfline mcp``: a Model Context Protocol server over perfline's JSON-RPC API.

Coding agents (Claude Code, Cursor, VS Code's agent mode, ...) that change a model see its cost
per line the way the editor does: the same ``perfline/*`` answers, from the daemon serving the
workspace or, when none runs, an in-process analysis (``clients.rpc.LocalSession``), as
``perfline annotate`` does. ``session`` opens and guards that connection, ``tools`` turns API
answers into the tools' results (plain functions over a request callable), ``server`` registers
them on the official SDK's ``MCPServer`` and serves stdio. The SDK is the optional ``mcp`` extra
(``pip install 'perfline[mcp]'``), imported only here. See ``docs/agents.md``.
"""
