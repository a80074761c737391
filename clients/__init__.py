"""Front ends: the command-line interface and the JSON-RPC client library."""
