"""The iterative-deepening driver around the C search, and its results.

The C core (ext._core.SearchCore) searches one depth at a time with the GIL released; this
module runs the iterations, the aspiration windows and MultiPV lines, decides when to stop
(depth, nodes, mate, a fixed movetime, or the soft and hard limits of clock play), and reports
one SearchInfo per completed line.

Time comes in one of two kinds, and the driver keeps them apart:

* clock play (soft_time, hard_time): no new iteration is begun after the soft limit, which is
  stretched while the best move keeps changing and shrunk when it has stayed the same for six
  iterations; a forced move or a mate seen deep enough ends the search early.  The time saved
  is spent on later moves.  The hard limit is never crossed.
* a fixed movetime (`go movetime`): the time is used whole.  The C search stops itself at the
  deadline, and nothing between iterations looks at the clock.  The search ends before the
  deadline only at another limit it was given (depth, nodes, mate), with a single legal move, with
  a mate that the exact solver proves, or when MAX_DEPTH iterations are done (a position
  searched out that fast, such as a bare-kings draw, has nothing left to search).

The table (resize_hash, clear) can be worked on in the background, so that a UCI loop answers at
once: a resize is in place at once and gives the old memory back in the background; every
search and hashfull() first waits for the clears queued before it.
"""
from __future__ import annotations

import os
import queue
import sys
import threading
import time
import traceback
import weakref
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
# A mate in m the search has seen is trusted from iteration 2m + this on: clock play then
# stops, a fixed movetime asks the exact solver for a proof first.
MATE_CONFIRMATION_PLIES = 6
# The exact solver proves mates of at most this many moves (MateSearch.move_mates), and one
# attempt gets at most this share of the time left (a long mate may not be provable in time).
MAX_PROVABLE_MATE = 60
PROOF_TIME_SHARE = 0.25
# C threads that share the clearing of a large table (engine cores, at most eight: memory
# bandwidth, not arithmetic, is the limit).
CLEAR_THREADS = max(1, min(os.cpu_count() or 1, 8))


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


class TableWorker:
    """One thread that runs table jobs in order, started with its owner: queuing a job never
    starts a thread, which on a busy machine (and while a large table is being warmed up) can
    keep the caller waiting for a long time.  The thread ends when the worker is collected."""

    def __init__(self, name: str) -> None:
        self._jobs: "queue.Queue[Optional[Callable[[], object]]]" = queue.Queue()
        self._thread = threading.Thread(target=_serve, args=(self._jobs,), name=name, daemon=True)
        self._thread.start()
        weakref.finalize(self, self._jobs.put, None)

    def run(self, job: Callable[[], object], background: bool) -> None:
        """Queue job (background) or run it here once the queued jobs are done."""
        if background:
            self._jobs.put(job)
        else:
            self.wait()
            job()

    def wait(self) -> None:
        """Return when every job queued so far is done (at once on the worker's own thread)."""
        if threading.current_thread() is not self._thread:
            self._jobs.join()


def _serve(jobs: "queue.Queue[Optional[Callable[[], object]]]") -> None:
    """A TableWorker's thread: holds no reference to its owner between jobs."""
    while True:
        job = jobs.get()
        try:
            if job is None:
                return
            job()
        except Exception:
            traceback.print_exc(file=sys.stderr)
        finally:
            job = None
            jobs.task_done()


class Searcher:
    """Owns a transposition table and the search histories; searches one board at a time.

    :param hash_mb: transposition table size in megabytes.
    :raises ValueError: on a size outside 1..65536; MemoryError when it cannot be allocated.
    """

    def __init__(self, hash_mb: int = 16) -> None:
        self._check_hash(hash_mb)
        self._core = SearchCore(hash_mb)
        self._clears = TableWorker("scacco-clear")        # searches wait for these
        self._releases = TableWorker("scacco-release")    # and not for these
        self._stop_requested = False
        self._mate_solver: Optional[MateSearch] = None
        self._soft_start = 0.0
        self._soft_ms: Optional[float] = None
        self._fixed_time = False          # the deadline is a fixed movetime: no soft limit
        self._deadline: Optional[float] = None   # time.monotonic() of the hard deadline

    @staticmethod
    def _check_hash(mb) -> None:
        if not isinstance(mb, int) or not 1 <= mb <= 65536:
            raise ValueError(f"hash size must be an integer number of MB in 1..65536, not {mb!r}")

    def resize_hash(self, mb: int, *, background: bool = False) -> None:
        """Give the table mb MB of fresh, empty memory.  The new table is in place when this
        returns, whatever the size (the OS hands out zeroed pages at once).  Returning the old
        memory can take a while for a large used table; then a C thread asks the OS for the
        new pages (see ext/tt.pxi).  Both happen before this returns, or with background=True
        on a thread of their own that searches do not wait for.

        :raises ValueError: out of range.
        :raises MemoryError: when the memory cannot be allocated; the old table stays in use.
        """
        self._check_hash(mb)
        self._core.resize_hash(mb)
        self._give_back(background)

    def clear(self, *, background: bool = False) -> None:
        """Empty the table and the histories (new game).  The histories are cleared at once;
        the table, if it has been searched since it was last emptied, by CLEAR_THREADS C
        threads zeroing what the search wrote (or, while the OS is still supplying its pages,
        by fresh memory: see ext/tt.pxi), with background=True on a thread of its own that the
        next search waits for."""
        self._core.clear_histories()
        core = self._core

        def clear_table() -> None:
            if core.clear_table(CLEAR_THREADS) < 0:
                self._give_back(background)     # fresh memory replaced it
        self._clears.run(clear_table, background)

    def wait_for_table(self) -> None:
        """Return when the clears queued by clear(background=True) are done (every search
        and hashfull() call this first)."""
        self._clears.wait()

    def wait_for_release(self) -> None:
        """Return when old tables queued for release (background=True) are given back and the
        current table's warm-up has been started."""
        self._releases.wait()

    def _give_back(self, background: bool) -> None:
        """Return retired tables to the OS, then start the current table's warm-up."""
        core = self._core

        def give_back() -> None:
            core.release_retired()
            core.start_warm_up()
        self._releases.run(give_back, background)

    @property
    def hash_mb(self) -> int:
        """The size of the table in MB (the new one as soon as resize_hash has returned)."""
        return self._core.hash_mb

    @property
    def table_in_memory(self) -> bool:
        """True once the OS has supplied every page of the table (its background warm-up is
        done); until then searches run slower where they first touch a page."""
        return self._core.table_warmed

    def hashfull(self) -> int:
        """Permille of the table written in the last search (after any queued table work)."""
        self.wait_for_table()
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
        """Clock play: (re)set the soft and hard limits, measured from now (after ponderhit).
        Thread-safe."""
        self._soft_start = time.monotonic()
        self._soft_ms = soft_ms
        self._fixed_time = False
        self._set_deadline(hard_ms)

    def set_movetime(self, ms: float) -> None:
        """A fixed movetime of ms from now (after ponderhit): the search uses all of it.
        Thread-safe."""
        self._fixed_time = True
        self._soft_ms = None
        self._set_deadline(ms)

    def _set_deadline(self, hard_ms: Optional[float]) -> None:
        self._deadline = time.monotonic() + hard_ms / 1000.0 if hard_ms is not None else None
        self._core.set_hard_limit(hard_ms)

    # -- the driver ---------------------------------------------------------------------

    def search(self, board: Board, *, depth: Optional[int] = None, nodes: Optional[int] = None,
               mate: Optional[int] = None, soft_time: Optional[float] = None,
               hard_time: Optional[float] = None, movetime: Optional[float] = None,
               multipv: int = 1, searchmoves: Optional[Sequence[str]] = None,
               infinite: bool = False,
               on_info: Optional[Callable[[SearchInfo], None]] = None,
               on_currmove: Optional[Callable[[int, str, int], None]] = None) -> SearchResult:
        """Search board (not modified) at full strength; the first limit reached ends it.
        Times are milliseconds from this call: soft_time and hard_time for clock play, or
        movetime for a fixed time that is used whole (see the module docstring).  Playing
        levels are a layer above this (engine.levels.play).

        :raises ValueError: on movetime together with soft_time or hard_time, or a searchmoves
            entry that is not a legal move.
        """
        started = time.monotonic()
        if movetime is not None and (soft_time is not None or hard_time is not None):
            raise ValueError("movetime is a fixed time: give it without soft_time and hard_time")
        self.wait_for_table()
        return self._search(board, started, depth=depth, nodes=nodes, mate=mate,
                            soft_time=soft_time, hard_time=hard_time, movetime=movetime,
                            multipv=multipv, searchmoves=searchmoves, infinite=infinite,
                            on_info=on_info, on_currmove=on_currmove)

    @property
    def mate_solver(self) -> MateSearch:
        """This searcher's exact mate solver (created on first use); stop() reaches it."""
        return self._solver()

    def _solver(self) -> MateSearch:
        if self._mate_solver is None:
            self._mate_solver = MateSearch()
        return self._mate_solver

    def _search(self, board: Board, started: float, *, depth, nodes, mate, soft_time, hard_time,
                movetime, multipv, searchmoves, infinite, on_info, on_currmove) -> SearchResult:
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
            return self._run(board, core, started, depth=depth, nodes=nodes, mate=mate,
                             soft_time=soft_time, hard_time=hard_time, movetime=movetime,
                             multipv=multipv, searchmoves=searchmoves, infinite=infinite,
                             on_info=on_info, forced=len(board.legal_move_codes()) == 1)
        finally:
            core.set_root_move_callback(None)

    def _run(self, board: Board, core, started: float, *, depth, nodes, mate, soft_time,
             hard_time, movetime, multipv, searchmoves, infinite, on_info,
             forced: bool) -> SearchResult:
        fixed = movetime is not None
        hard_ms = movetime if fixed else hard_time

        def hard_left() -> Optional[float]:
            """The hard limit less the time already spent in this call (None: no limit)."""
            if hard_ms is None:
                return None
            return max(0.0, hard_ms - (time.monotonic() - started) * 1000.0)

        if mate is not None and mate >= 1 and not infinite and multipv == 1 and not searchmoves:
            proven = self._exact_mate(board, mate, on_info, hard_left())
            if proven is not None:
                return proven
            if self._stop_requested:
                # stopped during the proof: a normal one-ply answer still gives a legal move
                depth = 1
            elif depth is None and nodes is None and soft_time is None and hard_ms is None:
                # no mate within n (or no proof in time): an ordinary search of matching depth
                depth = 2 * mate + 4
        max_depth = MAX_DEPTH if depth is None or infinite else max(1, min(depth, MAX_DEPTH))
        self._soft_start = started
        self._soft_ms = None if fixed else soft_time
        self._fixed_time = fixed
        limit = hard_left()
        self._deadline = time.monotonic() + limit / 1000.0 if limit is not None else None
        core.start(nodes or 0, limit)
        if self._stop_requested:
            core.stop()
        proofs_tried = set()

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
            # A single legal move needs no thinking (four plies find a ponder move); clock play
            # also takes a single move left by searchmoves as forced.
            if iteration >= 4 and ((self._fixed_time and forced)
                                   or (self._soft_ms is not None and core.root_count == 1)):
                break
            # Mate in mate_moves, seen at an iteration deep enough to trust it.
            mate_moves = (VALUE_MATE - best_score + 1) // 2 if best_score >= MATE_BOUND else None
            mate_settled = mate_moves is not None and iteration >= 2 * mate_moves + MATE_CONFIRMATION_PLIES
            if self._fixed_time:
                # The deadline in the C search ends a movetime search; between iterations only
                # a mate proved exactly may end it sooner.
                if mate_settled and self._mate_is_proved(board, best_history[-1], mate_moves,
                                                         proofs_tried):
                    break
                continue
            if self._time_is_up(best_history):
                break
            if mate_settled and depth is None and mate is None and self._soft_ms is not None:
                break  # clock play: a mate seen this deep is played without proof

        if not completed:
            completed = [self._info(board, 0, max(completed_depth, 1), None)]
        best = completed[0]
        pv = best.pv
        ponder = pv[1] if len(pv) > 1 else self._ponder_from_table(board, pv[0])
        return SearchResult(pv[0], ponder, best.score_cp, best.score_mate, pv,
                            completed_depth, core.nodes, completed, best.score)

    def _mate_is_proved(self, board: Board, move: int, k: int, tried: set) -> bool:
        """Does move force mate within k moves?  Asked of the exact solver once per (move, k)
        and search, within PROOF_TIME_SHARE of the time left: no proof in time is a no, and
        the search goes on to the deadline."""
        if (move, k) in tried or k > MAX_PROVABLE_MATE or self._deadline is None:
            return False
        tried.add((move, k))
        left_ms = (self._deadline - time.monotonic()) * 1000.0
        if left_ms <= 0:
            return False
        solver = self._solver()
        solver.set_position(board)
        solver.reset(EXACT_MATE_NODE_LIMIT, PROOF_TIME_SHARE * left_ms)
        return solver.move_mates(move, k) is True

    def _exact_mate(self, board: Board, n: int, on_info,
                    time_limit_ms: Optional[float] = None) -> Optional[SearchResult]:
        """Prove the shortest mate within n moves; None when there is none or no proof came
        within EXACT_MATE_NODE_LIMIT nodes and time_limit_ms."""
        solver = self._solver()
        start = time.monotonic()
        proof = proven_mate_line(board, n, solver, node_limit=EXACT_MATE_NODE_LIMIT,
                                 time_limit_ms=time_limit_ms)
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
        """Clock play's soft limit: stretched while the best move keeps changing, shrunk when it
        is stable (the time saved is spent on later moves).  Never asked with a movetime."""
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
