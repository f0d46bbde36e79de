"""A batch runner: one plain function over a stream of items, in worker processes or on a
Ray cluster, results back in the order of the items.

The function must be importable at module level (the spawn start method and Ray both send it
by name) and its arguments and result picklable.  At most `window` items are in flight, so a
long input streams in constant memory.  An exception raised by the function for one item is
returned in that item's place (the caller reports it and goes on); it never stops the batch.
Analysis and training data generation use it; puzzle finding is meant to share it.
"""
from __future__ import annotations

import collections
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Callable, Iterable, Iterator, Optional, Tuple

__all__ = ["default_jobs", "run_local", "run_ray", "run_batch", "Failure"]


class Failure:
    """What run_* yields in place of a result when the function raised for that item."""

    def __init__(self, error: BaseException) -> None:
        self.error = error

    def __repr__(self) -> str:
        return f"Failure({self.error!r})"


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


def run_local(function: Callable[..., Any], items: Iterable[Tuple[Any, ...]], jobs: int = 1,
              window: Optional[int] = None) -> Iterator[Any]:
    """function(*args) for each args tuple, in `jobs` spawned processes (in this process
    when jobs is 1), yielded in the items' order."""
    if jobs <= 1:
        yield from _in_process(function, items)
        return
    window = window or 2 * jobs
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        pending: collections.deque = collections.deque()
        for args in items:
            pending.append(pool.submit(_guarded, function, args))
            if len(pending) >= window:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def run_ray(function: Callable[..., Any], items: Iterable[Tuple[Any, ...]],
            address: Optional[str] = None, window: Optional[int] = None) -> Iterator[Any]:
    """function(*args) for each args tuple as Ray tasks (one CPU each), yielded in order.
    Connects to the cluster at address unless Ray is already initialised in this process.

    :raises ImportError: when Ray is not installed (the `ray` extra).
    """
    import ray

    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    task = ray.remote(num_cpus=1)(_guarded)
    window = window or max(2, 2 * int(ray.cluster_resources().get("CPU", 1)))
    pending: collections.deque = collections.deque()
    for args in items:
        pending.append(task.remote(function, args))
        if len(pending) >= window:
            yield ray.get(pending.popleft())
    while pending:
        yield ray.get(pending.popleft())


def run_batch(function: Callable[..., Any], items: Iterable[Tuple[Any, ...]], jobs: int = 1,
              ray_address: Optional[str] = None) -> Iterator[Any]:
    """run_ray when a Ray address is given, else run_local."""
    if ray_address is not None:
        return run_ray(function, items, ray_address)
    return run_local(function, items, jobs)
