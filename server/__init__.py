"""The daemon: workspace model, incremental engine, file watching and the
LSP/JSON-RPC layer. Imports ``perfline.core``; never imported by it."""
