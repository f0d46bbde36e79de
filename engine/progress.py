"""Progress of long work on stderr, shared by `scacco analyse`, `scacco puzzles` and
`scacco datagen`.

On a terminal a bar is redrawn in place a few times a second; anywhere else (a pipe, a log
file) a plain line is written every few seconds, so that a log stays readable.  Each line gives
the items done out of the total, the positions per second and the time left, estimated from the
items done so far in this run.
"""
from __future__ import annotations

import sys
import time
from typing import IO, Optional

__all__ = ["Progress", "clock"]

BAR_WIDTH = 30


def clock(seconds: float) -> str:
    """H:MM:SS."""
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


class Progress:
    """Items done (positions, or games with `noun="games"`) out of `total`.

    `first` items were done before this run (a resumed job): they count towards the total but
    not towards the rate.  When the items are games, `advance(1, positions=n)` also counts the
    positions they held, which is what the rate is given in."""

    def __init__(self, total: int, stream: Optional[IO[str]] = None, *, noun: str = "positions",
                 first: int = 0, interval: Optional[float] = None) -> None:
        self.total, self.first, self.noun = total, first, noun
        self.done = first
        self.positions = 0
        self.stream = stream if stream is not None else sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.interval = interval if interval is not None else (0.2 if self.tty else 5.0)
        self.start = time.monotonic()
        self.last = float("-inf")     # the first advance shows at once

    def advance(self, count: int = 1, positions: Optional[int] = None) -> None:
        self.done += count
        self.positions += count if positions is None else positions
        now = time.monotonic()
        if now - self.last >= self.interval or self.done >= self.total:
            self.last = now
            self.show(now)

    def text(self, now: float) -> str:
        elapsed = max(now - self.start, 1e-6)
        done_now = self.done - self.first
        left = (self.total - self.done) * elapsed / done_now if done_now > 0 else 0.0
        if self.noun == "positions":
            done = f"{self.done}/{self.total} positions"
        else:
            done = f"{self.noun} {self.done}/{self.total}, positions {self.positions}"
        return f"{done}, {self.positions / elapsed:.1f} positions/s, {clock(left)} left"

    def show(self, now: Optional[float] = None) -> None:
        text = self.text(time.monotonic() if now is None else now)
        if self.tty:
            filled = int(BAR_WIDTH * self.done / self.total) if self.total else BAR_WIDTH
            filled = min(BAR_WIDTH, filled)
            self.stream.write(f"\r[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {text}\x1b[K")
            if self.done >= self.total:
                self.stream.write("\n")
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
