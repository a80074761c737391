"""The view layer: what one connection sees, as plain data (no LSP, lsprotocol or pygls).

See ``server.view.connection.ConnectionView`` and ARCHITECTURE.md. Deliberately imports
nothing, so importing one of its modules costs only that module.
"""
