"""Time management: how long to think about one move, from the clock the GUI reports.

Two limits come out, both in milliseconds from the start of the search:

* soft: do not start a new iteration after it.  The searcher stretches it when the best
  move keeps changing or the score drops, and shrinks it when the best move is stable.
* hard: never search past it.  It stays below the time left minus the Move Overhead, so a
  GUI that is slow to read our `bestmove` still finds time on our clock.

Everything here is pure arithmetic on integers: no engine, no clock of its own.
"""
from __future__ import annotations

from typing import Optional, Tuple

__all__ = ["clock_limits", "movetime_limits", "DEFAULT_HORIZON", "MAX_HORIZON"]

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


def movetime_limits(movetime: int) -> Tuple[int, int]:
    """(soft_ms, hard_ms) for `go movetime T`: think the whole time, stop a little before it."""
    limit = max(1, movetime - min(MOVETIME_MARGIN_MS, movetime // 5))
    return limit, limit
