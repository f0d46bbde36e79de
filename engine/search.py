"""The iterative-deepening driver around the C search, and its results.

The C core (ext._core.SearchCore) searches one depth at a time with the GIL released; this
module runs the iterations, the aspiration windows and MultiPV lines, decides when to stop
(depth, nodes, mate, soft and hard time), and reports one SearchInfo per completed line.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Sequence

from ..ext._core import MATE_BOUND_PY, VALUE_INFINITE_PY, VALUE_MATE_PY, MateSearch, SearchCore

from .board import Board
from .puzzles import proven_mate_line

__all__ = ["Searcher", "SearchInfo", "SearchResult", "MAX_DEPTH"]

MAX_DEPTH = 120
VALUE_MATE = VALUE_MATE_PY
VALUE_INFINITE = VALUE_INFINITE_PY
MATE_BOUND = MATE_BOUND_PY
# `go mate N` first tries an exact proof within this many nodes (a few seconds at most).
EXACT_MATE_NODE_LIMIT = 30_000_000


def score_to_cp_mate(score: int):
    """(cp, mate) for a score: mate in moves (+ we mate, - we are mated) or centipawns."""
    if score >= MATE_BOUND:
        return None, (VALUE_MATE - score + 1) // 2
    if score <= -MATE_BOUND:
        return None, -((VALUE_MATE + score) // 2)
    return score, None


@dataclass
class SearchInfo:
    """What one completed iteration (one MultiPV line of it) found."""

    depth: int
    seldepth: int
    multipv: int
    score_cp: Optional[int]
    score_mate: Optional[int]
    bound: Optional[str]
    nodes: int
    nps: int
    time_ms: int
    hashfull: int
    pv: List[str]
    score: int = 0  # raw internal score


@dataclass
class SearchResult:
    """The outcome of a search: best move (None without legal moves), ponder move, score, pv."""

    best_move: Optional[str]
    ponder_move: Optional[str]
    score_cp: Optional[int]
    score_mate: Optional[int]
    pv: List[str] = field(default_factory=list)
    depth: int = 0
    nodes: int = 0
    lines: List[SearchInfo] = field(default_factory=list)
    score: int = 0


class Searcher:
    """Owns a transposition table and the search histories; searches one board at a time.

    :param hash_mb: transposition table size in megabytes.
    """

    def __init__(self, hash_mb: int = 16) -> None:
        self._check_hash(hash_mb)
        self._core = SearchCore(hash_mb)
        self._lock = threading.Lock()
        self._stop_requested = False
        self._mate_solver: Optional[MateSearch] = None
        self._soft_start = 0.0
        self._soft_ms: Optional[float] = None

    @staticmethod
    def _check_hash(mb) -> None:
        if not isinstance(mb, int) or not 1 <= mb <= 65536:
            raise ValueError(f"hash size must be an integer number of MB in 1..65536, not {mb!r}")

    def resize_hash(self, mb: int) -> None:
        """Reallocate the table (emptied).  :raises ValueError: out of range; MemoryError."""
        self._check_hash(mb)
        self._core.resize_hash(mb)

    def clear(self) -> None:
        """Empty the table and the histories (new game)."""
        self._core.clear()

    def hashfull(self) -> int:
        return self._core.hashfull()

    def stop(self) -> None:
        """Make a running search return at once with its best move.  Thread-safe."""
        self._stop_requested = True
        self._core.stop()
        if self._mate_solver is not None:
            self._mate_solver.stop()

    @property
    def stop_requested(self) -> bool:
        """True once stop() was called for the search that is running or last ran."""
        return self._stop_requested

    def set_time_limits(self, soft_ms: Optional[float], hard_ms: Optional[float]) -> None:
        """(Re)set the time limits, measured from now (after ponderhit).  Thread-safe."""
        self._soft_start = time.monotonic()
        self._soft_ms = soft_ms
        self._core.set_hard_limit(hard_ms)

    # -- the driver ---------------------------------------------------------------------

    def search(self, board: Board, *, depth: Optional[int] = None, nodes: Optional[int] = None,
               mate: Optional[int] = None, soft_time: Optional[float] = None,
               hard_time: Optional[float] = None, multipv: int = 1,
               searchmoves: Optional[Sequence[str]] = None, infinite: bool = False,
               on_info: Optional[Callable[[SearchInfo], None]] = None,
               on_currmove: Optional[Callable[[int, str, int], None]] = None) -> SearchResult:
        """Search board (not modified) at full strength within the limits; see the module
        docstring.  Playing levels are a layer above this (engine.levels.play).

        :raises ValueError: on a searchmoves entry that is not a legal move.
        """
        return self._search(board, depth=depth, nodes=nodes, mate=mate, soft_time=soft_time,
                            hard_time=hard_time, multipv=multipv, searchmoves=searchmoves,
                            infinite=infinite, on_info=on_info, on_currmove=on_currmove)

    @property
    def mate_solver(self) -> MateSearch:
        """This searcher's exact mate solver (created on first use); stop() reaches it."""
        return self._solver()

    def _solver(self) -> MateSearch:
        if self._mate_solver is None:
            self._mate_solver = MateSearch()
        return self._mate_solver

    def _search(self, board: Board, *, depth, nodes, mate, soft_time, hard_time, multipv,
                searchmoves, infinite, on_info, on_currmove) -> SearchResult:
        core = self._core
        self._stop_requested = False
        allowed = None
        if searchmoves:
            allowed = {board.parse_uci(m) for m in searchmoves}
        core.set_position(board)
        if core.setup_root(allowed) == 0:
            return SearchResult(None, None, 0 if not board.is_check() else None,
                                -0 if board.is_check() else None)
        multipv = max(1, min(multipv, core.root_count))
        if on_currmove is not None:
            def report(depth: int, code: int, number: int) -> None:
                on_currmove(depth, board.move_uci(code), number)
            core.set_root_move_callback(report)
        try:
            return self._run(board, core, depth=depth, nodes=nodes, mate=mate, soft_time=soft_time,
                             hard_time=hard_time, multipv=multipv, searchmoves=searchmoves,
                             infinite=infinite, on_info=on_info)
        finally:
            core.set_root_move_callback(None)

    def _run(self, board: Board, core, *, depth, nodes, mate, soft_time, hard_time, multipv,
             searchmoves, infinite, on_info) -> SearchResult:
        if mate is not None and mate >= 1 and not infinite and multipv == 1 and not searchmoves:
            proven = self._exact_mate(board, mate, on_info)
            if proven is not None:
                return proven
            if self._stop_requested:
                # stopped during the proof: a normal one-ply answer still gives a legal move
                depth = 1
            elif depth is None and nodes is None and soft_time is None and hard_time is None:
                # no mate within n (or no proof in time): an ordinary search of matching depth
                depth = 2 * mate + 4
        max_depth = MAX_DEPTH if depth is None or infinite else max(1, min(depth, MAX_DEPTH))
        self._soft_start = time.monotonic()
        self._soft_ms = soft_time
        core.start(nodes or 0, hard_time)
        if self._stop_requested:
            core.stop()

        scores = [0] * multipv
        best_history: List[int] = []
        completed: List[SearchInfo] = []
        completed_depth = 0
        for iteration in range(1, max_depth + 1):
            lines: List[SearchInfo] = []
            finished = 0
            for pv_index in range(multipv):
                score = self._aspiration(iteration, scores[pv_index], pv_index, board, on_info)
                if core.stopped:
                    break
                scores[pv_index] = score
                core.sort_root(pv_index)
                finished += 1
            if core.stopped and iteration > 1:
                break
            if finished == multipv:
                # A later line can score above an earlier one (the searches are not exact):
                # report the lines best first.
                core.sort_root(0)
            completed_depth = iteration
            # Stopped inside the first iteration: report the lines that were finished (at least
            # one, whose move is legal whatever happened).
            lines = [self._info(board, i, iteration, None) for i in range(max(finished, 1))]
            completed = lines
            if on_info is not None:
                for info in lines:
                    on_info(info)
            if core.stopped:
                break
            best_history.append(core.root_move(0)[0])
            # Stop conditions checked once per iteration
            best_score = core.root_move(0)[1]
            if mate is not None and best_score >= MATE_BOUND and (VALUE_MATE - best_score + 1) // 2 <= mate:
                if not infinite:
                    break
            if infinite:
                continue
            if self._soft_ms is not None and core.root_count == 1 and iteration >= 4:
                break  # a forced move needs no thinking
            if self._time_is_up(best_history):
                break
            if best_score >= MATE_BOUND and iteration >= 2 * ((VALUE_MATE - best_score + 1) // 2) + 6 \
                    and depth is None and mate is None:
                if self._soft_ms is not None:
                    break

        if not completed:
            completed = [self._info(board, 0, max(completed_depth, 1), None)]
        best = completed[0]
        pv = best.pv
        ponder = pv[1] if len(pv) > 1 else self._ponder_from_table(board, pv[0])
        return SearchResult(pv[0], ponder, best.score_cp, best.score_mate, pv,
                            completed_depth, core.nodes, completed, best.score)

    def _exact_mate(self, board: Board, n: int, on_info) -> Optional[SearchResult]:
        """Prove the shortest mate within n moves; None when there is none or no proof came."""
        solver = self._solver()
        start = time.monotonic()
        proof = proven_mate_line(board, n, solver, node_limit=EXACT_MATE_NODE_LIMIT)
        if proof is None:
            return None
        k, codes = proof
        pv = self._pv_text(board, codes)
        elapsed = max(1, int((time.monotonic() - start) * 1000))
        info = SearchInfo(depth=2 * k - 1, seldepth=2 * k - 1, multipv=1, score_cp=None, score_mate=k,
                          bound=None, nodes=solver.nodes, nps=solver.nodes * 1000 // elapsed,
                          time_ms=elapsed, hashfull=self._core.hashfull(), pv=pv,
                          score=VALUE_MATE - (2 * k - 1))
        if on_info is not None:
            on_info(info)
        return SearchResult(pv[0], pv[1] if len(pv) > 1 else None, None, k, pv, 2 * k - 1,
                            solver.nodes, [info], info.score)

    def _aspiration(self, depth: int, previous: int, pv_index: int, board: Board,
                    on_info) -> int:
        core = self._core
        if depth < 5 or abs(previous) >= MATE_BOUND:
            return core.search_root(depth, -VALUE_INFINITE, VALUE_INFINITE, pv_index)
        delta = 15
        alpha = max(previous - delta, -VALUE_INFINITE)
        beta = min(previous + delta, VALUE_INFINITE)
        while True:
            score = core.search_root(depth, alpha, beta, pv_index)
            if core.stopped:
                return score
            if score <= alpha:
                beta = (alpha + beta) // 2
                alpha = max(score - delta, -VALUE_INFINITE)
                bound = "upperbound"
            elif score >= beta:
                beta = min(score + delta, VALUE_INFINITE)
                bound = "lowerbound"
            else:
                return score
            core.sort_root(pv_index)
            if on_info is not None:
                on_info(self._info(board, pv_index, depth, bound))
            delta += delta // 2 + 5

    def _time_is_up(self, best_history: List[int]) -> bool:
        """Soft limit: stretched while the best move keeps changing, shrunk when it is stable."""
        if self._soft_ms is None:
            return False
        changes = sum(1 for a, b in zip(best_history[-4:], best_history[-3:]) if a != b)
        factor = 1.0 + 0.4 * changes
        if len(best_history) >= 6 and all(m == best_history[-1] for m in best_history[-6:]):
            factor *= 0.6
        elapsed_ms = (time.monotonic() - self._soft_start) * 1000.0
        return elapsed_ms >= self._soft_ms * factor

    def _info(self, board: Board, index: int, depth: int, bound: Optional[str]) -> SearchInfo:
        core = self._core
        move, score, previous, seldepth, pv_codes = core.root_move(index)
        if score == -VALUE_INFINITE:
            score = previous if previous != -VALUE_INFINITE else 0
        pv = self._pv_text(board, pv_codes)
        elapsed = max(core.elapsed_ms(), 0.001)
        cp, mate = score_to_cp_mate(score)
        return SearchInfo(depth=depth, seldepth=max(seldepth, depth), multipv=index + 1, score_cp=cp,
                          score_mate=mate, bound=bound, nodes=core.nodes,
                          nps=int(core.nodes * 1000 / elapsed), time_ms=int(elapsed),
                          hashfull=core.hashfull(), pv=pv, score=score)

    @staticmethod
    def _pv_text(board: Board, codes: List[int]) -> List[str]:
        walker = board.copy()
        out = []
        for code in codes:
            out.append(walker.move_uci(code))
            walker.push_code(code)
        return out

    def _ponder_from_table(self, board: Board, best: str) -> Optional[str]:
        walker = board.copy()
        walker.push_uci(best)
        code = self._core.probe_move(walker)
        return walker.move_uci(code) if code is not None else None
