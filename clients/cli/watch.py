"""``perfline watch``: print result changes as they happen.

Connected to a daemon, it prints each ``perfline/resultChanged`` notification;
without one it runs the engine and a file watcher in-process and prints the
same events. Stops on Ctrl-C (or after ``--count`` events).
"""

from __future__ import annotations

import json
import queue
import time
from pathlib import Path
from typing import Any

import click

from perfline.clients.cli._connect import (
    daemon_options,
    endpoint_from_options,
    exit_on_config_error,
    find_workspace,
)
from perfline.clients.rpc import Client, RpcError


def _line(event: dict[str, Any], as_json: bool) -> str:
    if as_json:
        return json.dumps(event, ensure_ascii=False)
    stamp = time.strftime("%H:%M:%S")
    job = event.get("job") or "-"
    kind = event.get("kind", "result")
    if kind == "result":
        state = (
            "error (serving last good result)"
            if event.get("stale")
            else ("error" if event.get("error") else "updated")
        )
        text = f"{stamp} {job}: {state} (generation {event.get('generation')})"
        if event.get("error"):
            text += f"\n    {event['error']}"
        return text
    if kind == "config":
        return f"{stamp} perfline.toml: " + (event.get("error") or "ok")
    return f"{stamp} {kind}" + (f" {job}" if event.get("job") else "")


@click.command("watch")
@daemon_options
@click.option("--json", "as_json", is_flag=True, help="One JSON object per event.")
@click.option("--count", type=int, default=0, help="Stop after this many events (0 = never).")
def command(
    workspace: Path | None,
    tcp: str | None,
    socket_path: str | None,
    as_json: bool,
    count: int,
) -> None:
    """Print result changes of the workspace's jobs as they happen."""
    root = (workspace or find_workspace(Path.cwd())).resolve()
    endpoint = endpoint_from_options(tcp, socket_path, root)
    seen = 0
    try:
        if endpoint is not None:
            with Client.connect(endpoint, timeout=3600) as client:
                status = client.request("perfline/status")
                click.echo(f"watching {status['workspace']} via daemon on {endpoint}", err=True)
                while count == 0 or seen < count:
                    try:
                        params = client.wait_notification("perfline/resultChanged", timeout=3600)
                    except TimeoutError:
                        continue
                    if params.get("kind", "result") in ("result", "config", "jobs"):
                        click.echo(_line(params, as_json))
                        seen += 1
            return
        _watch_local(root, as_json, count)
    except RpcError as error:
        raise click.ClickException(error.message) from None
    except KeyboardInterrupt:
        pass


def _watch_local(root: Path, as_json: bool, count: int) -> None:
    from perfline.server.engine import Engine, EngineEvent
    from perfline.server.watcher import Watcher

    exit_on_config_error(root)
    events: queue.Queue[EngineEvent] = queue.Queue()
    engine = Engine(root)
    engine.subscribe(events.put)
    watcher = Watcher(engine)
    click.echo(f"watching {root} (in-process; no daemon serves it)", err=True)
    engine.start()
    watcher.start()
    seen = 0
    try:
        while count == 0 or seen < count:
            event = events.get()
            if event.kind not in ("result", "config", "jobs"):
                continue
            click.echo(
                _line(
                    {
                        "kind": event.kind,
                        "job": event.job,
                        "generation": event.generation,
                        "stale": event.stale,
                        "error": event.error,
                    },
                    as_json,
                )
            )
            seen += 1
    finally:
        watcher.stop()
        engine.close()
