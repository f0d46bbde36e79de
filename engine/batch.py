"""A batch runner: one plain function over a stream of items, in worker processes or on a
Ray cluster, results back in the order of the items.

The function must be importable at module level (the spawn start method and Ray both send it
by name) and its arguments and result picklable.  At most `window` items are in flight, so a
long input streams in constant memory.  Whatever goes wrong with one item comes back in that
item's place as a Failure, and the batch goes on:

* an exception raised by the function (any Exception, not only the expected kind);
* a worker process that died under it (killed by the system, for instance out of memory).
  Which of the items in flight killed the worker cannot be known, so those items are run
  again one at a time in a fresh pool: the one that kills its worker again is the Failure
  (WorkerDied), the others give their results.

Closing the iterator early (the caller was interrupted, or stopped reading) terminates the
workers at once instead of waiting for the items in flight.  Workers ignore Ctrl-C (the
terminal sends it to the whole process group; the caller decides what happens) and, on Linux,
end when the parent process dies.
"""
from __future__ import annotations

import collections
import multiprocessing
import os
import signal
import sys
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable, Iterable, Iterator, List, Optional, Tuple

__all__ = ["default_jobs", "run_local", "run_ray", "run_batch", "Failure", "WorkerDied"]


class Failure:
    """What run_* yields in place of a result when the item could not be done."""

    def __init__(self, error: BaseException) -> None:
        self.error = error

    def __repr__(self) -> str:
        return f"Failure({self.error!r})"


class WorkerDied(RuntimeError):
    """The process working on an item ended without giving a result."""


def default_jobs() -> int:
    """Every core this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _guarded(function: Callable[..., Any], args: Tuple[Any, ...]) -> Any:
    try:
        return function(*args)
    except Exception as error:  # reported by the caller with the item's place
        return Failure(error)


def _in_process(function, items) -> Iterator[Any]:
    for args in items:
        yield _guarded(function, args)


def _worker_start() -> None:
    """Run in each worker process before its first item."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            pr_set_pdeathsig = 1
            ctypes.CDLL(None).prctl(pr_set_pdeathsig, signal.SIGTERM)
        except (OSError, AttributeError):  # no prctl: the worker ends after its item instead
            pass


class _Pool:
    """A ProcessPoolExecutor that can be replaced when broken and terminated at once."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self.context = multiprocessing.get_context("spawn")
        self.executor: Optional[ProcessPoolExecutor] = None

    def submit(self, function, args):
        if self.executor is None:
            self.executor = ProcessPoolExecutor(max_workers=self.jobs, mp_context=self.context,
                                                initializer=_worker_start)
        try:
            return self.executor.submit(_guarded, function, args)
        except BrokenProcessPool as error:
            # A worker died since the last item was sent: this item never ran, and its
            # outcome is the broken pool's, as for the items in flight (run_local runs it
            # again alone).
            future: Future = Future()
            future.set_exception(error)
            return future

    def close(self) -> None:
        executor, self.executor = self.executor, None
        if executor is None:
            return
        # The executor keeps its processes in a private mapping; terminating them is the
        # only way not to wait for the items in flight (Python 3.14 has terminate_workers()).
        processes = list((getattr(executor, "_processes", None) or {}).values())
        executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            if process.is_alive():
                process.terminate()
        for process in processes:
            process.join(5)
        executor.shutdown(wait=True)


def _outcome(future) -> Tuple[bool, Any]:
    """(True, result) or (False, None) when the future's worker died."""
    try:
        return True, future.result()
    except (BrokenProcessPool, CancelledError):
        return False, None


def run_local(function: Callable[..., Any], items: Iterable[Tuple[Any, ...]], jobs: int = 1,
              window: Optional[int] = None) -> Iterator[Any]:
    """function(*args) for each args tuple, in `jobs` spawned processes (in this process
    when jobs is 1), yielded in the items' order."""
    if jobs <= 1:
        yield from _in_process(function, items)
        return
    window = window or 2 * jobs
    pool = _Pool(jobs)
    source = iter(items)
    pending: collections.deque = collections.deque()     # [args, future]
    try:
        while True:
            for args in source:
                pending.append([args, pool.submit(function, args)])
                if len(pending) >= window:
                    break
            if not pending:
                return
            done, result = _outcome(pending[0][1])
            if done:
                pending.popleft()
                yield result
                continue
            # A worker died.  The pool is broken: every item not finished before it broke is
            # run again alone, so that the one that kills its worker is known.
            pool.close()
            results: List[Any] = []
            for args, future in pending:
                done, result = _outcome(future)
                if not done:
                    done, result = _outcome(pool.submit(function, args))
                    if not done:
                        pool.close()
                        result = Failure(WorkerDied(
                            "the worker process died (killed by the system; perhaps out of "
                            "memory)"))
                results.append(result)
            pending.clear()
            yield from results
    finally:
        pool.close()


def run_ray(function: Callable[..., Any], items: Iterable[Tuple[Any, ...]],
            address: Optional[str] = None, window: Optional[int] = None) -> Iterator[Any]:
    """function(*args) for each args tuple as Ray tasks (one CPU each), yielded in order.
    Connects to the cluster at address unless Ray is already initialised in this process.
    A task whose worker died (or that Ray could not run) is a Failure.

    :raises ImportError: when Ray is not installed (the `ray` extra).
    """
    import ray

    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    task = ray.remote(num_cpus=1)(_guarded)
    window = window or max(2, 2 * int(ray.cluster_resources().get("CPU", 1)))
    pending: collections.deque = collections.deque()

    def collect(reference):
        try:
            return ray.get(reference)
        except Exception as error:  # a dead worker or a lost task: this item only
            return Failure(WorkerDied(f"the Ray task failed: {error}"))

    try:
        for args in items:
            pending.append(task.remote(function, args))
            if len(pending) >= window:
                yield collect(pending.popleft())
        while pending:
            yield collect(pending.popleft())
    finally:
        for reference in pending:
            ray.cancel(reference, force=True)


def run_batch(function: Callable[..., Any], items: Iterable[Tuple[Any, ...]], jobs: int = 1,
              ray_address: Optional[str] = None) -> Iterator[Any]:
    """run_ray when a Ray address is given, else run_local."""
    if ray_address is not None:
        return run_ray(function, items, ray_address)
    return run_local(function, items, jobs)
