"""Running functions in child processes with a wall-clock limit that really stops them.

Tasks run in ``jobs`` worker processes (forked, or started from a fork server so that
the parent's threads and imported accelerators are not inherited), each reused for task
after task; a task that passes its limit is killed with its process, not abandoned, so
it can neither hang the caller nor keep burning a core, and a fresh worker takes its
place.
"""

from __future__ import annotations

import multiprocessing as mp
import sys
import threading
import time
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Any

__all__ = ["Outcome", "run_limited", "run_one_limited"]

_CTX = None


@dataclass(frozen=True)
class Outcome:
    """How one task ended.

    ``status`` is ``"ok"`` (``value`` holds the return value), ``"error"`` (``error``
    holds ``"Type: message"``), ``"timeout"`` (killed at the limit) or ``"crashed"``
    (the process died without answering, e.g. out of memory).
    """

    status: str
    value: Any = None
    error: str = ""
    seconds: float = 0.0


def _context():
    """``fork`` while this process has one thread and no JAX (cheapest, nothing to
    re-import); otherwise a fork server, which never inherits threads."""
    global _CTX
    methods = mp.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1 and "jax" not in sys.modules:
        return mp.get_context("fork")
    if _CTX is None:
        _CTX = mp.get_context("forkserver" if "forkserver" in methods else "spawn")
        if "forkserver" in methods:
            _CTX.set_forkserver_preload(["numpy", "scipy.stats", "robustfit"])
    return _CTX


def _worker(conn) -> None:
    """Run the tasks the parent sends, one at a time, until it sends None or goes away."""
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        fn, args = task
        try:
            value = fn(*args)
        except BaseException as exc:  # reported to the parent, which decides what it means
            conn.send(("error", None, f"{type(exc).__name__}: {exc}"))
        else:
            conn.send(("ok", value, ""))


class _Worker:
    """A child process that runs tasks in turn: started once, reused while it answers
    (a fork per task cost ~15 ms, and each new child re-warmed every cache), killed and
    replaced when a task passes its limit or the process dies."""

    def __init__(self, ctx):
        self.conn, child_end = ctx.Pipe(duplex=True)
        self.proc = ctx.Process(target=_worker, args=(child_end,), daemon=True)
        self.proc.start()
        child_end.close()
        self.key = None
        self.started = 0.0

    def submit(self, key, fn, args) -> None:
        self.key, self.started = key, time.perf_counter()
        self.conn.send((fn, args))

    def kill(self) -> None:
        self.proc.kill()
        self.proc.join()
        self.conn.close()

    def stop(self) -> None:
        """Ask the worker to end; one that does not within a second is killed."""
        try:
            self.conn.send(None)
        except (OSError, ValueError):  # the pipe is already broken: nothing to ask
            self.kill()
            return
        self.proc.join(timeout=1.0)
        if self.proc.is_alive():
            self.kill()
        else:
            self.conn.close()


def run_limited(tasks: Iterable[tuple[Hashable, Callable, tuple]], *, jobs: int,
                timeout: float | None,
                on_done: Callable[[Hashable, Outcome], None] | None = None
                ) -> dict[Hashable, Outcome]:
    """Run ``fn(*args)`` for each ``(key, fn, args)``, at most ``jobs`` at a time.

    ``fn`` must be a module-level function and ``args`` picklable. A task still running
    ``timeout`` seconds after it started is killed (with the process running it) and
    reported as ``"timeout"``. ``on_done(key, outcome)`` is called as each task ends
    (e.g. to advance a progress bar). Returns ``{key: Outcome}``.
    """
    ctx = _context()
    pending = list(tasks)[::-1]
    idle: list[_Worker] = []
    busy: dict[Any, _Worker] = {}  # the parent's end of the pipe -> worker
    results: dict[Hashable, Outcome] = {}

    def finish(worker: _Worker, outcome: Outcome, reusable: bool) -> None:
        del busy[worker.conn]
        results[worker.key] = outcome
        if reusable:
            idle.append(worker)
        else:
            worker.kill()
        if on_done is not None:
            on_done(worker.key, outcome)

    try:
        while pending or busy:
            while pending and len(busy) < max(1, jobs):
                key, fn, args = pending.pop()
                worker = idle.pop() if idle else _Worker(ctx)
                worker.submit(key, fn, args)
                busy[worker.conn] = worker
            if timeout is None:
                wait_for = None
            else:
                now = time.perf_counter()
                wait_for = max(0.0, min(w.started + timeout - now for w in busy.values()))
            for conn in wait(list(busy), timeout=wait_for):
                worker = busy[conn]
                elapsed = time.perf_counter() - worker.started
                try:
                    status, value, error = conn.recv()
                except (EOFError, OSError):
                    worker.proc.join(timeout=5.0)  # the pipe closes before the exit
                    code = worker.proc.exitcode
                    finish(worker, Outcome("crashed", error=f"process died (exit code "
                                                            f"{code})", seconds=elapsed),
                           reusable=False)
                else:
                    finish(worker, Outcome(status, value, error, elapsed), reusable=True)
            if timeout is not None:
                now = time.perf_counter()
                for worker in [w for w in busy.values() if now - w.started >= timeout]:
                    finish(worker, Outcome("timeout", error=f"stopped after {timeout:g} s",
                                           seconds=now - worker.started), reusable=False)
    finally:
        for worker in busy.values():
            worker.kill()
        for worker in idle:
            worker.stop()
    return results


def run_one_limited(fn: Callable, args: tuple, timeout: float | None) -> Outcome:
    """:func:`run_limited` for a single task."""
    return run_limited([(0, fn, args)], jobs=1, timeout=timeout)[0]
