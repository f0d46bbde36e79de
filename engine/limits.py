"""The limits of one search, made once (from `go`, or from a Python call) and passed whole.

A SearchLimits says what a search was asked to respect, as `go` says it (Stockfish's
LimitsType, Ethereal's Limits): a depth, a node budget, a mate to find, the moves to choose
from, time, and whether it runs until stopped (infinite) or ponders.  It is checked when it is
made, so everything downstream (engine.levels.play, engine.search.Searcher.search, its driver)
takes it as it is.  Python callers may still write the limits as keywords
(``searcher.search(board, depth=8)``): those build a SearchLimits.

Time comes in two forms, and the searcher applies only the first:

* soft_time, hard_time (clock play) or movetime (a fixed time, used whole): milliseconds from
  the start of the search, which the searcher puts on its stop token.
* the clock of a game, as the GUI reports it (wtime, btime, winc, binc, movestogo): how much of
  it one move may use depends on the Move Overhead and on when the clock started (when `go`
  arrived, or at ponderhit), which only the caller knows.  engine.timeman.time_limits turns it
  (and a `go movetime`) into the soft and hard limits that the UCI loop sets on the token, and
  the loop gives the search the limits without_time().

ponder: the time limits apply from ponderhit, not from the start, so the searcher applies none
(the caller sets them on the token at ponderhit).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, fields
from numbers import Real
from typing import Any, Dict, Optional, Sequence, Tuple

__all__ = ["SearchLimits"]

# The fields that hold time: what without_time() leaves out.
_TIME_FIELDS = ("movetime", "soft_time", "hard_time", "wtime", "btime", "winc", "binc",
                "movestogo", "ponder")
_CLOCK_FIELDS = ("wtime", "btime", "winc", "binc", "movestogo")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_count(name: str, value: Any, minimum: Optional[int]) -> None:
    """None, or an integer of at least `minimum` (None: any integer)."""
    if value is None:
        return
    if not _is_int(value) or (minimum is not None and value < minimum):
        bound = f" >= {minimum}" if minimum is not None else ""
        raise ValueError(f"{name} must be an integer{bound}, not {value!r}")


def _check_ms(name: str, value: Any) -> None:
    """None, or a number of milliseconds >= 0."""
    if value is None:
        return
    if not isinstance(value, Real) or isinstance(value, bool) or not value >= 0:
        raise ValueError(f"{name} must be a number of milliseconds >= 0, not {value!r}")


@dataclass(frozen=True)
class SearchLimits:
    """What one search must respect; None (or False) where nothing was asked.

    :param depth: iterations at most (plies of nominal depth), >= 1.
    :param nodes: nodes at most, >= 1 (a search with a node budget runs on one thread).
    :param mate: look for a mate in at most this many moves, >= 1.
    :param movetime: a fixed time in ms, used whole (no soft_time or hard_time with it).
    :param soft_time: clock play, ms: no new iteration is begun after it.
    :param hard_time: clock play, ms: the search never runs past it.
    :param wtime, btime, winc, binc, movestogo: the game's clock as `go` gives it (ms; a
        clock may be negative), for the caller's time allocation (see the module docstring).
    :param searchmoves: the moves (UCI notation) to choose among; None or empty: all.
    :param infinite: search until stopped (the soft limit and a mate found do not end it).
    :param ponder: the time limits apply from ponderhit; the searcher applies none.
    :raises ValueError: a value of the wrong kind or out of range, or movetime together with
        soft_time or hard_time.
    """

    depth: Optional[int] = None
    nodes: Optional[int] = None
    mate: Optional[int] = None
    movetime: Optional[float] = None
    soft_time: Optional[float] = None
    hard_time: Optional[float] = None
    wtime: Optional[int] = None
    btime: Optional[int] = None
    winc: Optional[int] = None
    binc: Optional[int] = None
    movestogo: Optional[int] = None
    searchmoves: Optional[Tuple[str, ...]] = None
    infinite: bool = False
    ponder: bool = False

    def __post_init__(self) -> None:
        _check_count("depth", self.depth, 1)
        _check_count("nodes", self.nodes, 1)
        if self.mate is not None and (not _is_int(self.mate) or self.mate < 1):
            raise ValueError(f"mate must be a positive number of moves, not {self.mate!r}")
        for name in ("movetime", "soft_time", "hard_time"):
            _check_ms(name, getattr(self, name))
        if self.movetime is not None and (self.soft_time is not None or self.hard_time is not None):
            raise ValueError("movetime is a fixed time: give it without soft_time and hard_time")
        for name in ("wtime", "btime", "winc", "binc"):
            _check_count(name, getattr(self, name), None)
        _check_count("movestogo", self.movestogo, 0)
        moves = self.searchmoves
        if moves is not None:
            if isinstance(moves, (str, bytes)) or not isinstance(moves, Sequence) \
                    or not all(isinstance(m, str) for m in moves):
                raise ValueError(f"searchmoves must be a sequence of moves in UCI notation, "
                                 f"not {moves!r}")
            object.__setattr__(self, "searchmoves", tuple(moves) or None)
        object.__setattr__(self, "infinite", bool(self.infinite))
        object.__setattr__(self, "ponder", bool(self.ponder))

    @classmethod
    def from_go(cls, go: Any) -> "SearchLimits":
        """The limits of a parsed `go` command (uci.protocol.GoCommand): every field the two
        share, by name (so a new `go` limit is a field here and a parameter there)."""
        return cls(**{f.name: getattr(go, f.name) for f in fields(cls) if hasattr(go, f.name)})

    @classmethod
    def of(cls, limits: Optional["SearchLimits"] = None, **keywords: Any) -> "SearchLimits":
        """`limits`, or the limits the keywords name (SearchLimits' fields); no limits at all
        without either.

        :raises ValueError: both given, or a bad value.
        :raises TypeError: a keyword that is no limit.
        """
        if limits is None:
            return cls(**keywords)
        if keywords:
            raise ValueError(f"give the limits as a SearchLimits or as keywords, not both "
                             f"({', '.join(sorted(keywords))})")
        if not isinstance(limits, SearchLimits):
            raise TypeError(f"limits must be a SearchLimits, not {type(limits).__name__}")
        return limits

    def replace(self, **changes: Any) -> "SearchLimits":
        """A copy with some fields changed (checked like a new one)."""
        return dataclasses.replace(self, **changes)

    def without_time(self) -> "SearchLimits":
        """These limits with their time left out (time fields and ponder): for a caller that
        puts the time on the search's stop token itself."""
        return self.replace(**{name: None for name in _TIME_FIELDS if name != "ponder"},
                            ponder=False)

    @property
    def has_clock(self) -> bool:
        """True when a game clock (wtime, btime, winc, binc or movestogo) is given."""
        return any(getattr(self, name) is not None for name in _CLOCK_FIELDS)

    def clock(self, white: bool) -> Tuple[Optional[int], int]:
        """(time left, increment) of the side to move (white or not); time left is None
        without a clock, the increment at least 0."""
        time_left, increment = (self.wtime, self.winc) if white else (self.btime, self.binc)
        return time_left, max(0, increment or 0)

    def keywords(self) -> Dict[str, Any]:
        """The limits that are set, as keywords of Searcher.search (and of play functions)."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if getattr(self, f.name) != f.default}
