"""Time management: how long to think about one move, from the clock the GUI reports.

Clock play (wtime/btime) gives two limits, both in milliseconds from the start of the search:

* soft: do not start a new iteration after it.  The searcher stretches it when the best
  move keeps changing or the score drops, and shrinks it when the best move is stable.
* hard: never search past it.  It stays below the time left minus the Move Overhead, so a
  GUI that is slow to read our `bestmove` still finds time on our clock.

`go movetime T` is a fixed time instead: one deadline, T less a small margin for the way out,
and the searcher uses all of it (no soft limit, nothing saved for later moves).  TimeLimits
carries either kind and says which it is.

Everything here is pure arithmetic on integers: no engine, no clock of its own.
"""
from __future__ import annotations

from typing import Any, Dict, NamedTuple, Optional, Tuple

__all__ = ["TimeLimits", "clock_limits", "movetime_limit", "DEFAULT_HORIZON", "MAX_HORIZON",
           "MOVETIME_MARGIN_MS"]

# Moves we plan for when the GUI does not say how many remain before the next control.
DEFAULT_HORIZON = 40
MAX_HORIZON = 50
# The soft limit is this share of the even split: the last iteration, begun before the soft
# limit, usually runs past it, so a move takes between one and HARD_RATIO soft limits.
SOFT_SHARE = 0.6
# The hard limit allows this many soft limits when the search is unsettled (so that even a
# game in which every move runs into the hard limit keeps about 1% of a 40-move control)...
HARD_RATIO = 2.5
# ...but never more than this share of what is left on the clock.
HARD_SHARE = 0.8
# With a single legal move there is nothing to think about: answer at once.
SINGLE_REPLY_SOFT_MS = 20
SINGLE_REPLY_HARD_MS = 200
# `go movetime T` stops this much before T (at most a fifth of T), for the way out.
MOVETIME_MARGIN_MS = 10


def clock_limits(time_left: int, increment: int = 0, moves_to_go: Optional[int] = None,
                 move_overhead: int = 30, single_reply: bool = False) -> Tuple[int, int]:
    """(soft_ms, hard_ms) for a move with `time_left` on our clock.

    The time still to come (what is left, less the overhead, plus the increments of the moves
    up to the horizon) is split evenly over the horizon: `moves_to_go`
    when the GUI gives it, else DEFAULT_HORIZON.  Both limits are at least 1 ms, and the hard
    limit never exceeds time_left - move_overhead unless that is below 1 ms.
    """
    increment = max(0, increment)
    move_overhead = max(0, move_overhead)
    usable = time_left - move_overhead
    if usable <= 1:
        return 1, 1
    horizon = DEFAULT_HORIZON if not moves_to_go or moves_to_go < 1 else min(moves_to_go, MAX_HORIZON)
    pool = usable + increment * (horizon - 1)
    soft = max(1.0, SOFT_SHARE * pool / horizon)
    hard = min(HARD_RATIO * soft, HARD_SHARE * usable)
    soft = min(soft, hard)
    if single_reply:
        soft = min(soft, SINGLE_REPLY_SOFT_MS)
        hard = min(hard, SINGLE_REPLY_HARD_MS)
    hard_ms = max(1, int(hard))
    return max(1, min(int(soft), hard_ms)), hard_ms


def movetime_limit(movetime: int) -> int:
    """The deadline in ms for `go movetime T`: T less the margin (at least 1 ms)."""
    return max(1, movetime - min(MOVETIME_MARGIN_MS, movetime // 5))


class TimeLimits(NamedTuple):
    """The time for one move in ms, from the start of the search (or from ponderhit).

    fixed False (clock play): soft_ms and hard_ms as clock_limits gives them.
    fixed True (`go movetime`): soft_ms is None and hard_ms is the deadline, used whole.
    """

    soft_ms: Optional[int]
    hard_ms: int
    fixed: bool

    @classmethod
    def clock(cls, time_left: int, increment: int = 0, moves_to_go: Optional[int] = None,
              move_overhead: int = 30, single_reply: bool = False) -> "TimeLimits":
        return cls(*clock_limits(time_left, increment, moves_to_go, move_overhead, single_reply),
                   fixed=False)

    @classmethod
    def movetime(cls, movetime: int) -> "TimeLimits":
        return cls(None, movetime_limit(movetime), fixed=True)

    def after(self, spent_ms: int) -> "TimeLimits":
        """The same limits once spent_ms have gone by (each at least 1 ms)."""
        soft = None if self.soft_ms is None else max(1, self.soft_ms - spent_ms)
        return TimeLimits(soft, max(1, self.hard_ms - spent_ms), self.fixed)

    def search_args(self) -> Dict[str, Any]:
        """The keywords of Searcher.search for these limits."""
        if self.fixed:
            return {"movetime": self.hard_ms}
        return {"soft_time": self.soft_ms, "hard_time": self.hard_ms}
