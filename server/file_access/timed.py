"""File operations on worker threads that the caller stops waiting for.

A read that never ends (a device or a file system that stops answering, a FIFO opened by
a path the checks missed) must not hold the thread that asked: the daemon's request
threads, its engine loop and its shutdown. ``call(work, seconds, source)`` runs ``work`` on
one of a few daemon threads and waits at most ``seconds``; past that the caller gets an
``InputError`` and the work is marked abandoned (``Abandon.is_set()``: a read loop stops at
its next chunk, and its result is dropped). The threads are daemon threads, so one stuck
in the kernel never keeps the process from exiting (``SIGTERM`` still stops the daemon).
At most ``MOST_THREADS`` run; while ``MOST_STUCK`` abandoned operations are still stuck,
new ones are refused at once instead of queueing behind them.
Cost: a hand-over to a waiting thread and back per operation (tens of microseconds).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from typing import Generic, TypeVar

from perfline.core.errors import InputError

T = TypeVar("T")

#: The most worker threads.
MOST_THREADS = 16
#: While this many abandoned operations still run, new ones are refused.
MOST_STUCK = 8


class Abandon:
    """Whether the caller stopped waiting for an operation (its deadline passed)."""

    __slots__ = ("_flag",)

    def __init__(self) -> None:
        self._flag = False

    def is_set(self) -> bool:
        return self._flag

    def set(self) -> None:
        self._flag = True


class _Task(Generic[T]):
    __slots__ = ("abandon", "done", "error", "finished", "value", "work")

    def __init__(self, work: Callable[[Abandon], T]) -> None:
        self.work = work
        self.done = threading.Event()
        self.value: T | None = None
        self.error: BaseException | None = None
        self.abandon = Abandon()
        self.finished = False


class TimedWorkers:
    """A small pool of daemon threads that run file operations with a deadline."""

    def __init__(self, most_threads: int = MOST_THREADS, most_stuck: int = MOST_STUCK) -> None:
        self._lock = threading.Lock()
        self._ready = threading.Condition(self._lock)
        self._tasks: deque[_Task[object]] = deque()
        self._threads = 0
        self._idle = 0
        self._stuck = 0
        self._most_threads = most_threads
        self._most_stuck = most_stuck

    @property
    def stuck(self) -> int:
        """Abandoned operations still running."""
        with self._lock:
            return self._stuck

    def call(self, work: Callable[[Abandon], T], seconds: float, source: str) -> T:
        """``work(abandon)``'s value, or ``InputError`` naming ``source`` after ``seconds``."""
        task: _Task[T] = _Task(work)
        with self._lock:
            if self._stuck >= self._most_stuck:
                raise InputError(
                    source,
                    f"not read: {self._stuck} earlier file operations have not ended "
                    "(a device or file system that does not answer)",
                )
            self._tasks.append(task)  # type: ignore[arg-type]
            if self._idle == 0 and self._threads < self._most_threads:
                self._threads += 1
                threading.Thread(target=self._serve, name="perfline-file", daemon=True).start()
            else:
                self._ready.notify()
        if not task.done.wait(seconds):
            with self._lock:
                if not task.finished:
                    task.abandon.set()
                    self._stuck += 1
            if task.abandon.is_set():
                raise InputError(source, f"reading the file took longer than {seconds:g} s")
        if task.error is not None:
            raise task.error
        return task.value  # type: ignore[return-value]

    def _serve(self) -> None:
        while True:
            with self._lock:
                while not self._tasks:
                    self._idle += 1
                    self._ready.wait()
                    self._idle -= 1
                task = self._tasks.popleft()
                if task.abandon.is_set():  # its caller gave up while it queued
                    self._stuck -= 1
                    continue
            self._run(task)
            del task  # what it read is the caller's: not kept while this thread waits

    def _run(self, task: _Task[object]) -> None:
        try:
            task.value = task.work(task.abandon)
        except BaseException as error:  # handed to the caller
            task.error = error
        with self._lock:
            task.finished = True
            if task.abandon.is_set():
                self._stuck -= 1
                task.value = task.error = None
        task.done.set()


#: The process's workers (every guarded read goes through them).
WORKERS = TimedWorkers()


def call(work: Callable[[Abandon], T], seconds: float, source: str) -> T:
    """``WORKERS.call``: run a file operation with a deadline."""
    return WORKERS.call(work, seconds, source)
