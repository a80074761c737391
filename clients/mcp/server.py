"""The MCP server: perfline's tools on the official SDK's ``MCPServer``, served over stdio.

Each tool is a thin wrapper over ``tools`` with a description an agent reads to choose it;
API errors (an unknown job, a file outside the workspace, no result yet) and a workspace that
cannot be analysed come back as tool errors with the API's one-line message, never a
traceback. Cost: the SDK's import (about a second) once per server; each call as ``tools``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from perfline import __version__
from perfline.clients.mcp import tools
from perfline.clients.mcp.session import SessionError, WorkspaceSession
from perfline.clients.rpc import RpcError

T = TypeVar("T")

INSTRUCTIONS = (
    "perfline measures where a PyTorch model's inference time (or cycles, MACs) goes, line by "
    "line of its Python source, from profiles and model files of the workspace. Start with "
    "`jobs` (what was analysed, and any errors), then `hot_lines` of a model file, and "
    "`line_figures` for one line's operators. Before changing the model, `set_baseline`; after "
    "re-exporting or re-profiling it, `reanalyze`, then `compare_runs` shows what got slower "
    "or faster, line by line, with significance."
)


def build_server(session: WorkspaceSession) -> MCPServer:
    """The server with every tool bound to ``session``."""
    server: MCPServer = MCPServer(
        "perfline", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING"
    )
    root = session.root
    ask = session.request

    @server.tool()
    def hot_lines(file: str, limit: int = 10, job: str | None = None) -> dict[str, Any]:
        """The costliest lines of a Python source file (workspace-relative path), largest
        share of the model first: each line's code, its figure as the editor shows it
        (e.g. '9.63 ms avg · 81%'), the job it comes from; and the totals of the file's
        functions and nn.Module classes. `job` restricts to one job."""
        return _answer(lambda: tools.hot_lines(ask, root, file, limit=limit, job=job))

    @server.tool()
    def line_figures(file: str, line: int, job: str | None = None) -> dict[str, Any]:
        """Every figure of one source line (each job, every metric) and the operators that
        run for it, most costly first (Markdown breakdown)."""
        return _answer(lambda: tools.line_figures(ask, root, file, line, job=job))

    @server.tool()
    def compare_runs(
        job: str | None = None, file: str | None = None, changes_only: bool = True, limit: int = 20
    ) -> dict[str, Any]:
        """Each job's current run compared with its baseline: model-level changes and the
        lines that changed most (base, new, delta, ratio, verdict: regression, improvement,
        noise, unchanged, added, removed; significance from the runs' samples)."""
        return _answer(
            lambda: tools.compare_runs(
                ask, root, job=job, file=file, changes_only=changes_only, limit=limit
            )
        )

    @server.tool()
    def set_baseline(job: str | None = None) -> dict[str, Any]:
        """Keep a job's current result as its baseline (under .perfline/baselines/), so that
        compare_runs later shows what a change of the model did."""
        return _answer(lambda: tools.set_baseline(ask, job=job))

    @server.tool()
    def jobs() -> dict[str, Any]:
        """The workspace's analysis jobs: backend, inputs, state and error (message, file,
        line), the perfline.toml problem if any, and the source files that carry figures."""
        return _answer(lambda: tools.jobs(ask, root))

    @server.tool()
    def reanalyze(job: str | None = None) -> dict[str, Any]:
        """Analyse again now (after the model was re-exported or re-profiled), wait for the
        jobs to finish, and list them with their errors."""
        session.refresh()
        return _answer(lambda: tools.reanalyze(ask, root, job=job))

    return server


def _answer(call: Callable[[], T]) -> T:
    """``call()``, its API errors turned into tool errors (one line each)."""
    try:
        return call()
    except RpcError as error:
        raise ToolError(f"perfline: {error.message} (error {error.code})") from None
    except SessionError as error:
        raise ToolError(f"perfline: {error}") from None


def serve(root: Path, *, tcp: str | None = None, socket_path: str | None = None) -> None:
    """Serve the tools on stdio until the client closes it."""
    session = WorkspaceSession(root, tcp=tcp, socket_path=socket_path)
    try:
        build_server(session).run("stdio")
    finally:
        session.close()
