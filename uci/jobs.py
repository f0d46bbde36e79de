"""The UCI loop's job machinery: the line writer both threads share, the input reader, the
jobs (each with its stop token) and the worker thread that runs them in order.

See uci/loop.py for who owns what; nothing here knows the protocol's commands.
"""
from __future__ import annotations

import queue
import threading
import time
from typing import Callable, List, Optional

from .protocol import printable

__all__ = ["Output", "read_lines", "Job", "Worker", "MAX_LINE_BYTES"]

# Longer input lines are dropped whole (with an info string): a runaway GUI cannot make us
# hold gigabytes.  A game of 5000 plies in `position ... moves` is about 25 KB.
MAX_LINE_BYTES = 1 << 20


class Output:
    """Line-oriented writer shared by the threads; every line is flushed at once."""

    def __init__(self, stream) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self.broken = False

    def line(self, text: str) -> None:
        data = (text + "\n").encode("utf-8", errors="replace")
        with self._lock:
            if self.broken:
                return
            try:
                self._stream.write(data)
                self._stream.flush()
            except (OSError, ValueError):   # the GUI went away (broken pipe, closed stream)
                self.broken = True

    def info(self, text: str) -> None:
        """An `info string`; the text is made printable, so it can never end the line."""
        self.line("info string " + printable(text, 1000))


def read_lines(stream, limit: int = MAX_LINE_BYTES):
    """Yield the input lines decoded as UTF-8 (bad bytes replaced), or None for a line longer
    than `limit` bytes, which is skipped.  Ends at end of input."""
    while True:
        raw = stream.readline(limit + 1)
        if not raw:
            return
        if len(raw) > limit and not raw.endswith(b"\n"):
            while True:                      # drop the rest of the overlong line
                rest = stream.readline(limit)
                if not rest or rest.endswith(b"\n"):
                    break
            yield None
            continue
        yield raw.decode("utf-8", errors="replace")


class Job:
    """One piece of work for the worker, with its stop token and the flags both threads use.

    `lock` guards the flags; `released` is set when a search may print its bestmove (at once
    for a normal search, at stop/ponderhit in ponder or infinite mode).
    """

    def __init__(self, kind: str, hold: bool = False) -> None:
        from ..engine.search import StopToken
        self.kind = kind                  # "search", "perft", "bench", "network" or "task"
        self.token = StopToken()          # created now: a stop can never come before it
        self.lock = threading.Lock()
        self.released = threading.Event()
        if not hold:
            self.released.set()
        self.started_at = time.monotonic()
        self.cpu_started_at = time.process_time()
        self.finished = False             # the worker is done with it
        self.answered = False             # a search's bestmove is being or has been printed
        self.stop_requested = False
        self.pondering = False
        self.infinite = False
        self.bounded = False              # a search with a depth, nodes, mate or time limit
        self.ponder_limits = None         # (soft, hard) to apply at ponderhit
        self.ponderhit_at: Optional[float] = None
        self.cpu_at_ponderhit = 0.0

    def elapsed_ms(self) -> int:
        return int((time.monotonic() - self.started_at) * 1000)

    def stop(self) -> None:
        with self.lock:
            self.stop_requested = True
        self.token.stop()
        self.released.set()

    def ends_on_its_own(self) -> bool:
        """Work that ends without a `stop`: anything but a search that is infinite, pondering
        or without a limit."""
        with self.lock:
            return self.kind != "search" or (self.bounded and not self.infinite
                                             and not self.pondering)

    def is_running_search(self) -> bool:
        """A search that has not answered and was not told to stop: while one is out, what
        would disturb it is refused, and isready is answered at once."""
        with self.lock:
            return (self.kind == "search" and not self.finished and not self.answered
                    and not self.stop_requested)


class Worker:
    """The thread that runs jobs one after another, in the order they were submitted."""

    def __init__(self) -> None:
        self._queue: "queue.Queue" = queue.Queue()
        self._thread: Optional[threading.Thread] = None
        self._unfinished: List[Job] = []  # the job being run, then those queued behind it
        self._closing = False
        self._idle = threading.Condition()

    def submit(self, job: Job, target: Callable[[], None], on_error: Callable[[Job, Exception], None]) -> None:
        with self._idle:
            self._unfinished.append(job)
        self._queue.put((job, target, on_error))
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="scacco-worker", daemon=True)
            self._thread.start()

    def _loop(self) -> None:
        while True:
            job, target, on_error = self._queue.get()
            try:
                if not self._closing:
                    target()
            except Exception as exc:
                on_error(job, exc)
            finally:
                with job.lock:
                    job.finished = True
                with self._idle:
                    self._unfinished.remove(job)
                    self._idle.notify_all()

    def busy(self) -> bool:
        return bool(self._unfinished)

    def unfinished(self) -> List[Job]:
        """The job being run and those queued behind it, oldest first."""
        with self._idle:
            return list(self._unfinished)

    def wait_idle(self, timeout: Optional[float] = None) -> bool:
        """Wait until every submitted job has finished; False on timeout.  Never called by
        the thread that reads standard input, except on the way out."""
        with self._idle:
            return self._idle.wait_for(lambda: not self._unfinished, timeout)

    def close(self) -> None:
        """Run nothing more that is still queued."""
        self._closing = True
