"""One capture: torch.profiler over a script or a block, its steps, and the files it writes
(the trace ``NAME.pt.trace.json`` and its sidecar ``NAME.pt.trace.json.perfline.json``).

Runs inside the user's Python (torch and the standard library only); shared by the capture
helper of ``perfline profile`` and by ``perfline.torch.profile``.

What a step is. ``step()`` (the API, or ``perfline.torch.step()`` in a script) marks one
explicitly. Without it, under ``perfline profile`` (``auto_steps``): one optimizer step when the
script steps a ``torch.optim`` optimizer (the step ends where the next outermost module call
starts, or at the end), else one call of the outermost ``nn.Module`` plus what runs until the
next one; a script with neither is one step. A source of a higher rank (explicit > optimizer >
module) takes over from a lower one: when steps of the lower one were already counted (module
calls before the first optimizer step, say with gradient accumulation), the capture starts
again from that point, so every recorded step is a step of the script's own kind.

Statement lines: while capturing, a pass-through ``TorchFunctionMode`` makes every tensor
operator (``a @ b``, ``x + y``, indexing) a Python call in the event tree, so its statement is
known (built-in calls such as ``torch.relu(x)`` are known anyway). It holds on the thread that
started the capture; ops of other threads get their function's entry line.

Threads and memory: by default torch records the ops of the thread that starts the capture
(and of the threads torch hands its work to: autograd's, intra-op pools), with every
allocation (``profile_memory``). ``all_threads`` records the ops of every thread, but torch
then records no allocations (its all-threads mode has no memory reporter), so it is a choice.
Cost: one Python call per torch function while capturing; the tree walk once per trace.
"""

from __future__ import annotations

import os
import threading
import warnings
from collections.abc import Callable
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from . import event_tree, sidecar_writer

_RANK = {"module": 1, "optimizer": 2, "api": 3}

#: the sessions capturing now in this interpreter, innermost last (``perfline.torch.step()``
#: marks a step of the last one).
ACTIVE: list[CaptureSession] = []

#: ``steps=None``: every step after the warm-up until ``finish`` (torch's schedule needs a count).
ALL_STEPS = 1 << 40


#: torch's "is TorchDynamo tracing this call" (``torch.compile``), looked up once; torch
#: without it has no compiler to step aside for.
_DYNAMO_TRACING: Callable[[], bool] | None = getattr(
    getattr(torch, "compiler", None), "is_compiling", None
)


#: The start of torch's warning about global module hooks on a ``torch.compile``d module.
_OWN_HOOKS_WARNING = r"Using `torch\.compile\(module\)` when there are global hooks on modules"


def _compiling() -> bool:
    """Whether TorchDynamo is tracing this call. The step hooks return at once then: Dynamo
    folds this test to a constant and drops the hook from the graph, where the hook's own code
    (a thread check, a counter) would break the graph at every submodule call, so the capture
    would measure another program than the script runs. The compiled module's outermost call
    still runs its hooks eagerly, so steps are still counted."""
    return _DYNAMO_TRACING is not None and _DYNAMO_TRACING()


class CaptureDone(BaseException):
    """Raised into the script once the profiled steps are written (BaseException, so that
    ``except Exception`` in the script does not swallow it)."""


class _OperatorLines(TorchFunctionMode):  # type: ignore[misc]  # torch is untyped here
    """Pass-through mode: its frame puts the calling statement of every torch function in the
    event tree (the frame itself is dropped from the stacks)."""

    def __torch_function__(
        self,
        func: Callable[..., Any],
        types: Any,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        return func(*args, **(kwargs or {}))


class CaptureSession:
    """Profile from ``start()`` to ``finish()``; ``warmup`` steps discarded, then ``steps``
    (None: all) recorded into one trace. ``stop_when_done`` raises ``CaptureDone`` at the
    boundary after the last recorded step."""

    def __init__(
        self,
        out_dir: str,
        name: str,
        steps: int | None,
        warmup: int,
        cuda: bool = False,
        all_threads: bool = False,
        auto_steps: bool = False,
        stop_when_done: bool = False,
        leading_files: frozenset[str] = frozenset(),
        known_files: tuple[str, ...] = (),
        progress: Callable[[CaptureSession], None] | None = None,
    ) -> None:
        self.out_dir = out_dir
        self.trace_path = os.path.join(out_dir, name + ".pt.trace.json")
        self.sidecar_path = sidecar_writer.sidecar_path(self.trace_path)
        self.steps = steps
        self.warmup = warmup
        self.cuda = cuda
        self.all_threads = all_threads
        self.auto_steps = auto_steps
        self.stop_when_done = stop_when_done
        self.leading_files = leading_files
        self.known_files = known_files
        self.progress = progress
        self.reason = event_tree.unsupported_reason(torch)
        self.boundaries = 0
        self.step_on = "whole run"
        self.written = False
        self.stopped_early = False
        self._source_rank = 0
        self._pending = False
        self._depth = 0
        self._thread = threading.get_ident()
        self._handles: list[Any] = []
        self._mode: _OperatorLines | None = None
        self._prof: Any = None
        self._discarding = False
        self._prefixes: list[str] = []

    # ---- lifecycle
    def start(self) -> None:
        os.makedirs(self.out_dir, exist_ok=True)
        if self.reason is None:
            self._prefixes = event_tree.stripped_prefixes()
        if self.auto_steps:
            self._install_step_hooks()
        self._prof = self._profiler()
        self._prof.start()
        ACTIVE.append(self)
        if self.reason is None:
            self._mode = _OperatorLines()
            self._mode.__enter__()

    def _profiler(self) -> Any:
        activities = [torch.profiler.ProfilerActivity.CPU]
        if self.cuda:
            activities.append(torch.profiler.ProfilerActivity.CUDA)
        options: dict[str, Any] = {}
        config = event_tree.experimental_config(torch, self.all_threads)
        if config is not None:
            options["experimental_config"] = config
        with warnings.catch_warnings():  # warmup=0 is the user's choice, not worth a warning
            warnings.filterwarnings("ignore", message="Profiler won't be using warmup")
            schedule = torch.profiler.schedule(
                wait=0, warmup=self.warmup, active=self.steps or ALL_STEPS, repeat=1
            )
        return torch.profiler.profile(
            activities=activities,
            schedule=schedule,
            on_trace_ready=self._ready,
            record_shapes=True,
            profile_memory=True,
            with_stack=True,
            **options,
        )

    def _restart(self) -> None:
        """Drop what was captured so far and start again: the steps counted until now were
        of a source that a higher one replaced (module calls before the first optimizer step
        or ``step()``), so they were not the script's steps."""
        self._discarding = True
        try:
            self._prof.stop()
        finally:
            self._discarding = False
        self.boundaries = 0
        self._prof = self._profiler()
        self._prof.start()

    def finish(self) -> None:
        """Close the last step and stop the profiler (writes the files if the recording
        window was reached); safe to call twice."""
        if self._prof is None:
            return
        if self._mode is not None:
            self._mode.__exit__(None, None, None)
            self._mode = None
        for handle in self._handles:
            handle.remove()
        self._handles.clear()
        if self in ACTIVE:
            ACTIVE.remove(self)
        prof, self._prof = self._prof, None
        prof.stop()

    # ---- steps
    def step(self) -> None:
        """An explicit step boundary (the API, ``perfline.torch.step()``)."""
        self._signal("api", now=True)

    def recorded_steps(self) -> int:
        return max(0, min(self.boundaries - self.warmup, self.steps or ALL_STEPS))

    def _signal(self, source: str, now: bool) -> None:
        rank = _RANK[source]
        if rank < self._source_rank:
            return
        if rank > self._source_rank:
            self._source_rank = rank
            self.step_on = source
            if self.boundaries and not self.written:
                self._pending = False
                self._restart()  # this signal ends no recorded step: the capture starts here
                return
        if now:
            self._pending = False
            self._boundary()
        else:
            self._pending = True

    def _boundary(self) -> None:
        if self._prof is None or self.written:
            return
        self.boundaries += 1
        self._prof.step()
        if self.progress is not None:
            self.progress(self)
        if self.written and self.stop_when_done:
            self.stopped_early = True
            raise CaptureDone()

    def _install_step_hooks(self) -> None:
        from torch.nn.modules import module
        from torch.optim import optimizer

        # torch warns, at a compiled module's calls, that global module hooks also fire for
        # its wrapper (``OptimizedModule``). These hooks are perfline's, count the wrapper's
        # call as the step and step aside inside it (``_compiling``): nothing for the user to
        # act on. Installed only under ``perfline profile``, whose process is the capture's.
        warnings.filterwarnings("ignore", message=_OWN_HOOKS_WARNING, category=UserWarning)
        self._handles.append(module.register_module_forward_pre_hook(self._module_starts))
        self._handles.append(
            module.register_module_forward_hook(self._module_ends, always_call=True)
        )
        self._handles.append(optimizer.register_optimizer_step_post_hook(self._optimizer_stepped))

    def _module_starts(self, module: Any, args: Any) -> None:
        if _compiling() or threading.get_ident() != self._thread:
            return
        if self._depth == 0 and self._pending:
            self._pending = False
            self._boundary()
        self._depth += 1

    def _module_ends(self, module: Any, args: Any, output: Any) -> None:
        if _compiling() or threading.get_ident() != self._thread:
            return
        self._depth = max(0, self._depth - 1)
        if self._depth == 0:
            self._signal("module", now=False)

    def _optimizer_stepped(self, optimizer: Any, args: Any, kwargs: Any) -> None:
        if not _compiling() and threading.get_ident() == self._thread:
            self._signal("optimizer", now=False)

    def close_pending_step(self) -> None:
        """The script or block ended: its last step (pending, or the whole run when no step
        was marked) ends here. Counted, not passed to torch: ``finish`` stops the profiler,
        which closes the step's marker and saves the recording (no empty step after it)."""
        if (self._pending or self._source_rank == 0) and not self.written:
            self._pending = False
            self.boundaries += 1

    # ---- files
    def _ready(self, prof: Any) -> None:
        if self._discarding:
            return
        prof.export_chrome_trace(self.trace_path)
        found = None
        reason = self.reason
        dropped = frozenset(_stripped(self._prefixes, _own_files()))
        if reason is None:
            try:
                leading = frozenset(_stripped(self._prefixes, self.leading_files)) | {
                    "runpy.py",
                    "<frozen runpy>",
                }
                found = event_tree.statement_stacks(prof, dropped, leading)
            except Exception as error:  # the private API changed under us: function level
                reason = f"reading torch's event tree failed ({type(error).__name__}: {error})"
        resolved = {}
        if found is not None:
            resolved = event_tree.file_resolver(
                self._prefixes, [*event_tree.loaded_files(), *self.known_files]
            )
        steps = {
            "warmup": self.warmup,
            "active": self.steps,  # None: every step to the end
            "recorded": self.recorded_steps(),
            "step_on": self.step_on,
        }
        document = sidecar_writer.sidecar_document(
            self.trace_path, str(torch.__version__), steps, found, reason, resolved
        )
        document["threads"] = "all" if self.all_threads else "capturing"
        # the capture's own files as torch names them: its mode and hooks run inside the
        # program, and perfline drops their frames from the trace's nesting
        document["capture_files"] = sorted(dropped)
        sidecar_writer.write_sidecar(self.trace_path, document)
        self.written = True


def _own_files() -> list[str]:
    folder = os.path.dirname(os.path.abspath(__file__))
    return [os.path.join(folder, name) for name in os.listdir(folder) if name.endswith(".py")]


def _stripped(prefixes: list[str], paths: Any) -> list[str]:
    names = []
    for path in paths:
        absolute = os.path.abspath(path)
        names.append(absolute)
        for prefix in prefixes:
            if absolute.startswith(prefix):
                names.append(absolute[len(prefix) :])
                break
    return names
