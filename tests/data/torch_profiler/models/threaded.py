"""Inference on two threads of a pool started before profiling (each thread runs its own
small MLP): the torch.profiler test model of perfline's "threads" fixture. make_traces.py drives
it: ``start_workers()``, then ``run_round()`` once per profiled step, then ``stop_workers()``."""

import queue
import threading

import torch
from torch import nn

_jobs: "queue.Queue[int | None]" = queue.Queue()
_done: "queue.Queue[int]" = queue.Queue()
_threads: list[threading.Thread] = []


def make_model(width: int) -> nn.Module:
    return nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, width))


def infer(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        y = model(x)
        return y.softmax(dim=-1)


def _worker(width: int) -> None:
    torch.manual_seed(width)
    model = make_model(width)
    x = torch.randn(16, width)
    while (job := _jobs.get()) is not None:
        infer(model, x)
        _done.put(job)


def start_workers(widths: tuple[int, ...] = (64, 96)) -> None:
    for width in widths:
        thread = threading.Thread(target=_worker, args=(width,), name=f"worker-{width}")
        thread.start()
        _threads.append(thread)


def run_round() -> None:
    for job in range(len(_threads)):
        _jobs.put(job)
    for _ in _threads:
        _done.get()


def stop_workers() -> None:
    for _ in _threads:
        _jobs.put(None)
    for thread in _threads:
        thread.join()
    _threads.clear()
