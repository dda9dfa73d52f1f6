"""Running functions in child processes with a wall-clock limit that really stops them.

Each task gets its own process (started from a fork server, so the parent's threads and
imported accelerators are not inherited); a task that passes its limit is killed, not
abandoned, so it can neither hang the caller nor keep burning a core.
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


def _child(conn, fn, args) -> None:
    try:
        value = fn(*args)
    except BaseException as exc:  # reported to the parent, which decides what it means
        conn.send(("error", None, f"{type(exc).__name__}: {exc}"))
    else:
        conn.send(("ok", value, ""))
    conn.close()


def run_limited(tasks: Iterable[tuple[Hashable, Callable, tuple]], *, jobs: int,
                timeout: float | None,
                on_done: Callable[[Hashable, Outcome], None] | None = None
                ) -> dict[Hashable, Outcome]:
    """Run ``fn(*args)`` for each ``(key, fn, args)``, at most ``jobs`` at a time.

    ``fn`` must be a module-level function and ``args`` picklable. A task still running
    ``timeout`` seconds after it started is killed and reported as ``"timeout"``.
    ``on_done(key, outcome)`` is called as each task ends (e.g. to advance a progress
    bar). Returns ``{key: Outcome}``.
    """
    ctx = _context()
    pending = list(tasks)[::-1]
    running: dict[Any, tuple] = {}  # receiving end -> (key, process, start time)
    results: dict[Hashable, Outcome] = {}

    def finish(conn, outcome: Outcome) -> None:
        key, proc, _ = running.pop(conn)
        conn.close()
        proc.join(timeout=1.0)
        if proc.is_alive():
            proc.kill()
            proc.join()
        results[key] = outcome
        if on_done is not None:
            on_done(key, outcome)

    try:
        while pending or running:
            while pending and len(running) < max(1, jobs):
                key, fn, args = pending.pop()
                recv, send = ctx.Pipe(duplex=False)
                proc = ctx.Process(target=_child, args=(send, fn, args), daemon=True)
                proc.start()
                send.close()
                running[recv] = (key, proc, time.perf_counter())
            now = time.perf_counter()
            if timeout is None:
                wait_for = None
            else:
                wait_for = max(0.0, min(t0 + timeout - now for _, _, t0 in running.values()))
            ready = wait(list(running), timeout=wait_for)
            for conn in ready:
                elapsed = time.perf_counter() - running[conn][2]
                try:
                    status, value, error = conn.recv()
                except (EOFError, OSError):
                    running[conn][1].join(timeout=5.0)  # the pipe closes before the exit
                    code = running[conn][1].exitcode
                    finish(conn, Outcome("crashed", error=f"process died (exit code {code})",
                                         seconds=elapsed))
                else:
                    finish(conn, Outcome(status, value, error, elapsed))
            if timeout is not None:
                now = time.perf_counter()
                for conn in [c for c, (_, _, t0) in running.items() if now - t0 >= timeout]:
                    elapsed = now - running[conn][2]
                    running[conn][1].kill()
                    finish(conn, Outcome("timeout", error=f"stopped after {timeout:g} s",
                                         seconds=elapsed))
    finally:
        for _, proc, _ in running.values():
            proc.kill()
            proc.join()
    return results


def run_one_limited(fn: Callable, args: tuple, timeout: float | None) -> Outcome:
    """:func:`run_limited` for a single task."""
    return run_limited([(0, fn, args)], jobs=1, timeout=timeout)[0]
