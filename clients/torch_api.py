"""``perfline.torch``: the capture of ``perfline profile`` as a Python API, for notebooks and
training loops that already run in a Python with torch and perfline:

    import perfline.torch
    with perfline.torch.profile(steps=3, warmup=1) as run:
        for batch in data:
            train_step(batch)
            run.step()
    run                      # in a notebook: the HTML report, inline

The block runs under torch.profiler exactly as ``perfline profile`` runs a script (the same
capture session, ``perfline.clients.torch_capture.session``; the same files in a new
``<output_dir>/.perfline/runs/<time>-<random>/``), except that steps are only the ones marked
with ``run.step()`` (or ``perfline.torch.step()``): a block that marks none is one step.
``perfline.torch.step()`` marks a step of the capture running in this interpreter, the
``perfline profile`` helper's included, and does nothing when none runs (a script keeps
working under plain ``python``). torch is imported when a capture starts, not before.
"""

from __future__ import annotations

import html
import sys
import time
from pathlib import Path
from types import TracebackType
from typing import Any

#: the capture session modules that may be running in this interpreter: the helper of
#: ``perfline profile`` loads its folder under its own name, perfline under its package.
_SESSION_MODULES = ("_perfline_torch_capture.session", "perfline.clients.torch_capture.session")


def step() -> None:
    """Mark the end of a step of the running capture; nothing when no capture runs."""
    for name in _SESSION_MODULES:
        module = sys.modules.get(name)
        active = getattr(module, "ACTIVE", None)
        if active:
            active[-1].step()
            return


class Run:
    """One capture of a block: ``with perfline.torch.profile() as run:``."""

    def __init__(
        self,
        steps: int | None,
        warmup: int,
        cuda: bool,
        output_dir: str | Path | None,
        name: str,
        all_threads: bool = False,
    ) -> None:
        if steps is not None and steps < 1:
            raise ValueError("steps must be 1 or more (or None: every step)")
        if warmup < 0:
            raise ValueError("warmup must be 0 or more")
        self.steps = steps
        self.warmup = warmup
        self.cuda = cuda
        self.all_threads = all_threads
        self.output_dir = Path(output_dir) if output_dir is not None else Path(".")
        self.name = name
        self.folder: Path | None = None
        self.trace: Path | None = None
        self.sidecar: Path | None = None
        self.recorded = 0
        #: the processed standardized document of the capture (set once it is analysed)
        self.document: dict[str, Any] | None = None
        self._session: Any = None

    def __enter__(self) -> Run:
        from perfline.clients.torch_capture.session import CaptureSession

        self.folder = new_run_folder(self.output_dir)
        self._session = CaptureSession(
            str(self.folder),
            self.name,
            steps=self.steps,
            warmup=self.warmup,
            cuda=self.cuda,
            all_threads=self.all_threads,
        )
        self._session.start()
        return self

    def step(self) -> None:
        """Mark the end of a step of this capture."""
        if self._session is None:
            raise RuntimeError("run.step() outside its `with perfline.torch.profile()` block")
        self._session.step()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        session, self._session = self._session, None
        if error is None:
            session.close_pending_step()
        session.finish()
        self.recorded = session.recorded_steps()
        if session.written:
            self.trace = Path(session.trace_path)
            self.sidecar = Path(session.sidecar_path)
            if error is None:
                self.document = analyse_capture(self.trace, near=str(Path.cwd() / "."))
        elif error is None:
            raise RuntimeError(
                f"perfline.torch.profile: nothing recorded: the block marked {session.boundaries} "
                f"step(s) and warmup={self.warmup} discards the first {self.warmup}"
            )

    def html(self) -> str:
        """The self-contained HTML report of the capture (as ``perfline report --html``),
        its sources read from the workspace around the run folder."""
        if self.document is None:
            raise RuntimeError("perfline.torch: this run has no analysed document yet")
        from perfline.clients.cli.html_output import render_html_report

        near = str(self.trace) if self.trace is not None else None
        return render_html_report(self.document, document=near, config=None, root=Path.cwd())

    def _repr_html_(self) -> str:
        """In a notebook: the report, inline, in a sandboxed frame (its script runs there;
        the notebook's page and styles are not touched)."""
        if self.document is None:
            return f"<p>perfline: {html.escape(self._state())}</p>"
        page = html.escape(self.html(), quote=True)
        return (
            f'<iframe srcdoc="{page}" sandbox="allow-scripts" '
            'style="width: 100%; height: 720px; border: 0"></iframe>'
        )

    def _state(self) -> str:
        if self._session is not None:
            return "capturing"
        if self.trace is None:
            return "nothing recorded"
        return f"recorded {self.recorded} step(s) into {self.trace}"


def profile(
    steps: int | None = None,
    warmup: int = 0,
    cuda: bool = False,
    output_dir: str | Path | None = None,
    name: str = "profile",
    all_threads: bool = False,
) -> Run:
    """A capture of the ``with`` block: ``warmup`` steps skipped, then ``steps`` (None: all)
    recorded; ``cuda`` adds the CUDA kernels; files under ``output_dir`` (default: here).
    ``all_threads`` records the ops of every thread, not only this one's, but torch then
    records no memory allocations."""
    return Run(steps, warmup, cuda, output_dir, name, all_threads)


def analyse_capture(
    trace: Path, *, near: str | None, cli_arguments: tuple[str, ...] = ()
) -> dict[str, Any]:
    """The processed standardized document of a capture's trace and sidecar (read beside
    it), in this process, with the settings of the ``perfline.toml`` nearest ``near``."""
    from perfline.clients.cli.analyze_torch import run_torch
    from perfline.clients.cli.common import find_config, load_config, pipeline_settings

    settings = pipeline_settings((), False, load_config(find_config(None, near)))
    return run_torch([str(trace)], settings=settings, cli_arguments=cli_arguments)


def new_run_folder(output_dir: str | Path) -> Path:
    """``<output_dir>/.perfline/runs/<UTC time>-<random>/``, new and empty (the one place
    that makes run folders: ``perfline profile`` and this API)."""
    from perfline.server.file_access import Root, make_dirs, new_folder

    root = Root.user_given(output_dir)
    runs = make_dirs(root.path / ".perfline" / "runs", root=root)
    return new_folder(runs, time.strftime("%Y%m%d-%H%M%S-", time.gmtime()), root=root)
