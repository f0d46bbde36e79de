"""Time management: how long to think about one move, from the clock the GUI reports.

Clock play (wtime/btime) gives two limits, both in milliseconds from the start of the search:

* soft: do not start a new iteration after it.  The searcher stretches it when the best
  move keeps changing or the score drops, and shrinks it when the best move is stable.
  The time is spread over the moves expected to come, fewer as the game goes on (or the
  moves to the next control), so that a game of ordinary length uses nearly all its clock.
* hard: never search past it.  It stays below the time left minus the Move Overhead, so a
  GUI that is slow to read our `bestmove` still finds time on our clock.

`go movetime T` is a fixed time instead: one deadline, T less a small margin for the way out,
and the searcher uses all of it (no soft limit, nothing saved for later moves).  TimeLimits
carries either kind and says which it is; time_limits makes it from a search's SearchLimits.

Everything here is pure arithmetic on integers: no engine, no clock of its own.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, NamedTuple, Optional, Tuple

if TYPE_CHECKING:
    from .limits import SearchLimits

__all__ = ["TimeLimits", "time_limits", "clock_limits", "movetime_limit", "expected_moves",
           "MAX_HORIZON", "MOVETIME_MARGIN_MS"]

# Moves still to come when the GUI does not say (no movestogo): EXPECTED_MOVES_START at the
# first move, EXPECTED_MOVES_DROP fewer per move played, never fewer than EXPECTED_MOVES_MIN
# (EXPECTED_MOVES_MIN_SUDDEN_DEATH without an increment: then nothing refills the clock, so a
# long game must not be given up on).  Spreading the time over fewer moves as the game goes on
# is what uses the clock: a fixed horizon saves a share of what is left at every move and ends
# a game of ordinary length with much of its time unused (docs/results/engine.md measures the
# clock's use).
EXPECTED_MOVES_START = 48
EXPECTED_MOVES_DROP = 0.55
EXPECTED_MOVES_MIN = 16
EXPECTED_MOVES_MIN_SUDDEN_DEATH = 36
# With movestogo, the moves to the control plus this many: the last move before a control
# still leaves something for the way out.
MOVES_TO_GO_MARGIN = 1
MAX_HORIZON = 50
# Sudden death without an increment also keeps this many Move Overheads (at most half of
# the clock) out of every allocation: once the clock is down to them each move is answered at
# once, and the reserve pays for many more moves' worth of the way out.
SUDDEN_DEATH_RESERVE_OVERHEADS = 20
# The soft limit is this share of the even split (the optimum): the last iteration, begun
# before the soft limit (stretched by the searcher when the move is unsettled), usually runs
# past it, so a move takes about the optimum on average.
SOFT_SHARE = 0.8
# The hard limit allows this many optimums when the search is unsettled...
HARD_RATIO = 3.0
# ...but never more than this share of what is left on the clock.
HARD_SHARE = 0.8
# With a single legal move there is nothing to think about: answer at once.
SINGLE_REPLY_SOFT_MS = 20
SINGLE_REPLY_HARD_MS = 200
# `go movetime T` stops this much before T (at most a fifth of T), for the way out.
MOVETIME_MARGIN_MS = 10


def expected_moves(move_number: int, increment: int) -> float:
    """How many more moves the game is planned for at `move_number` (1 = first move) when
    the GUI does not say: see EXPECTED_MOVES_START."""
    floor = EXPECTED_MOVES_MIN if increment > 0 else EXPECTED_MOVES_MIN_SUDDEN_DEATH
    return max(float(floor), EXPECTED_MOVES_START - EXPECTED_MOVES_DROP * (max(1, move_number) - 1))


def clock_limits(time_left: int, increment: int = 0, moves_to_go: Optional[int] = None,
                 move_overhead: int = 30, single_reply: bool = False,
                 move_number: int = 1) -> Tuple[int, int]:
    """(soft_ms, hard_ms) for move `move_number` of the game with `time_left` on our clock.

    The time still to come (what is left, less the overhead, plus the increments of the moves
    up to the horizon) is split evenly over the horizon: `moves_to_go` (+ MOVES_TO_GO_MARGIN)
    when the GUI gives it, else expected_moves(move_number).  That split is the optimum: the
    soft limit is SOFT_SHARE of it, the hard limit HARD_RATIO of it and at most HARD_SHARE of
    what is left.  Sudden death without increment keeps a reserve out of what is left
    (SUDDEN_DEATH_RESERVE_OVERHEADS).  Both limits are at least 1 ms, and the hard limit never exceeds
    time_left - move_overhead unless that is below 1 ms.
    """
    increment = max(0, increment)
    move_overhead = max(0, move_overhead)
    usable = time_left - move_overhead
    sudden_death = increment == 0 and not (moves_to_go is not None and moves_to_go >= 1)
    if sudden_death:
        usable -= min(time_left // 2, SUDDEN_DEATH_RESERVE_OVERHEADS * move_overhead)
    if usable <= 1:
        return 1, 1
    if moves_to_go is not None and moves_to_go >= 1:
        horizon = float(min(moves_to_go, MAX_HORIZON) + MOVES_TO_GO_MARGIN)
    else:
        horizon = expected_moves(move_number, increment)
    pool = usable + increment * (horizon - 1)
    optimum = pool / horizon
    hard = min(HARD_RATIO * optimum, HARD_SHARE * usable)
    soft = min(max(1.0, SOFT_SHARE * optimum), hard)
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
              move_overhead: int = 30, single_reply: bool = False,
              move_number: int = 1) -> "TimeLimits":
        return cls(*clock_limits(time_left, increment, moves_to_go, move_overhead, single_reply,
                                 move_number), fixed=False)

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


def time_limits(limits: "SearchLimits", white: bool, move_overhead: int = 30,
                single_reply: bool = False, move_number: int = 1) -> Optional[TimeLimits]:
    """The time for one move that `limits` (from `go`) give the side to move (white or not):
    a fixed time for movetime, else clock play on that side's clock (with the other arguments
    of clock_limits); None for an infinite search or when neither is given."""
    if limits.infinite:
        return None
    if limits.movetime is not None:
        return TimeLimits.movetime(limits.movetime)
    time_left, increment = limits.clock(white)
    if time_left is None:
        return None
    return TimeLimits.clock(time_left, increment, limits.movestogo, move_overhead, single_reply,
                            move_number)
