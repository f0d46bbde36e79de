"""The iterative-deepening driver around the C search, and its results.

The C core (ext._core.SearchCore) searches one depth at a time with the GIL released; this
module runs the iterations, the aspiration windows and MultiPV lines, decides when to stop
(depth, nodes, mate, soft and hard time), and reports one SearchInfo per completed line.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Sequence

from ..ext._core import (MATE_BOUND_PY, VALUE_INFINITE_PY, VALUE_MATE_PY, MateSearch, SearchCore,
                         StopToken)

from .board import Board
from .puzzles import MAX_MATE_MOVES, proven_mate_line

__all__ = ["Searcher", "SearchInfo", "SearchResult", "StopToken", "MAX_DEPTH", "MAX_CP"]

MAX_DEPTH = 120
VALUE_MATE = VALUE_MATE_PY
VALUE_INFINITE = VALUE_INFINITE_PY
MATE_BOUND = MATE_BOUND_PY
# No centipawn score reaches a caller at or beyond 10000.
MAX_CP = 9999
# `go mate N` first tries an exact proof within this many nodes (a few seconds at most).
EXACT_MATE_NODE_LIMIT = 30_000_000


def score_to_cp_mate(score: int):
    """(cp, mate) for a score: mate in moves (+ we mate, - we are mated) or centipawns.

    Centipawns stay below MAX_CP in size: the search's non-mate scores are the evaluation
    (at most 8000) and VALUE_WON (9000, a win whose mate does not fit before the fifty-move
    rule), so the bound never cuts a real score; it keeps any score that is neither from
    reaching a GUI as an impossible centipawn value.
    """
    if score >= MATE_BOUND:
        return None, (VALUE_MATE - score + 1) // 2
    if score <= -MATE_BOUND:
        return None, -((VALUE_MATE + score) // 2)
    return max(-MAX_CP, min(MAX_CP, score)), None


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

    Every search runs under a StopToken: the caller's (``stop=``), created before the search
    starts so that a stop can never be lost, or a fresh one.  The token carries the stop flag
    and the time limits and is shared by everything the search runs (C search, mate proof).

    :param hash_mb: transposition table size in megabytes.
    """

    def __init__(self, hash_mb: int = 16) -> None:
        self._check_hash(hash_mb)
        self._core = SearchCore(hash_mb)
        self._mate_solver: Optional[MateSearch] = None
        self._token = StopToken()

    @staticmethod
    def _check_hash(mb) -> None:
        if not isinstance(mb, int) or not 1 <= mb <= 65536:
            raise ValueError(f"hash size must be an integer number of MB in 1..65536, not {mb!r}")

    def resize_hash(self, mb: int) -> None:
        """Reallocate the table (emptied).  :raises ValueError: out of range; MemoryError."""
        self._check_hash(mb)
        self._core.resize_hash(mb)

    def clear(self) -> None:
        """Empty the table, the histories, the pawn cache and the mate table (new game)."""
        self._core.clear()
        if self._mate_solver is not None:
            self._mate_solver.clear()

    def hashfull(self) -> int:
        return self._core.hashfull()

    def stop(self) -> None:
        """Stop the running (or last) search's token.  Thread-safe.  A caller that may stop a
        search before it starts passes its own token (search(stop=...)) and stops that."""
        self._token.stop()

    @property
    def stop_requested(self) -> bool:
        """True once the running or last search was stopped or ran past its hard limit."""
        return self._token.stopped

    # -- the driver ---------------------------------------------------------------------

    def search(self, board: Board, *, depth: Optional[int] = None, nodes: Optional[int] = None,
               mate: Optional[int] = None, soft_time: Optional[float] = None,
               hard_time: Optional[float] = None, multipv: int = 1,
               searchmoves: Optional[Sequence[str]] = None, infinite: bool = False,
               on_info: Optional[Callable[[SearchInfo], None]] = None,
               on_currmove: Optional[Callable[[int, str, int], None]] = None,
               stop: Optional[StopToken] = None) -> SearchResult:
        """Search board (not modified) at full strength within the limits; see the module
        docstring.  Playing levels are a layer above this (engine.levels.play).

        soft_time and hard_time (ms from now) are added to the token's own limits (the tighter
        wins); infinite ignores the soft limit.  Any mate >= 1 is accepted: up to
        MAX_MATE_MOVES moves it is first proven exactly, beyond that searched for.

        :raises ValueError: on a searchmoves entry that is not a legal move, or a bad limit.
        """
        if mate is not None and (not isinstance(mate, int) or mate < 1):
            raise ValueError(f"mate must be a positive number of moves, not {mate!r}")
        token = stop if stop is not None else StopToken()
        self._token = token
        if soft_time is not None or hard_time is not None:
            token.tighten(soft_time, hard_time)
        return self._search(board, token, depth=depth, nodes=nodes, mate=mate, multipv=multipv,
                            searchmoves=searchmoves, infinite=infinite, on_info=on_info,
                            on_currmove=on_currmove)

    @property
    def mate_solver(self) -> MateSearch:
        """This searcher's exact mate solver (created on first use)."""
        if self._mate_solver is None:
            self._mate_solver = MateSearch()
        return self._mate_solver

    def _search(self, board: Board, token: StopToken, *, depth, nodes, mate, multipv,
                searchmoves, infinite, on_info, on_currmove) -> SearchResult:
        core = self._core
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
            return self._run(board, core, token, depth=depth, nodes=nodes, mate=mate,
                             multipv=multipv, searchmoves=searchmoves, infinite=infinite,
                             on_info=on_info)
        finally:
            core.set_root_move_callback(None)

    def _run(self, board: Board, core, token: StopToken, *, depth, nodes, mate, multipv,
             searchmoves, infinite, on_info) -> SearchResult:
        proof_nodes = 0
        if mate is not None and not infinite and multipv == 1 and not searchmoves \
                and mate <= MAX_MATE_MOVES:
            proven, proof_nodes = self._exact_mate(board, token, mate, depth, nodes, on_info)
            if proven is not None:
                return proven
            if token.stopped:
                depth = 1     # the limits ended the proof: the quickest legal answer
            elif nodes is not None:
                nodes = max(1, nodes - proof_nodes)
        if mate is not None and depth is None and nodes is None and token.soft_limit is None \
                and not token.has_hard_limit and not infinite:
            depth = 2 * mate + 4      # no mate proven within n: a search of matching depth
        max_depth = MAX_DEPTH if depth is None or infinite else max(1, min(depth, MAX_DEPTH))
        core.start(token, nodes or 0)

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
            lines = [self._info(board, i, iteration, None, proof_nodes) for i in range(max(finished, 1))]
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
            timed = token.soft_limit is not None
            if timed and core.root_count == 1 and iteration >= 4:
                break  # a forced move needs no thinking
            if self._time_is_up(token, best_history):
                break
            if best_score >= MATE_BOUND and iteration >= 2 * ((VALUE_MATE - best_score + 1) // 2) + 6 \
                    and depth is None and mate is None:
                if timed:
                    break

        if not completed:
            completed = [self._info(board, 0, max(completed_depth, 1), None, proof_nodes)]
        best = completed[0]
        pv = best.pv
        ponder = pv[1] if len(pv) > 1 else self._ponder_from_table(board, pv[0])
        return SearchResult(pv[0], ponder, best.score_cp, best.score_mate, pv,
                            completed_depth, core.nodes + proof_nodes, completed, best.score)

    def _exact_mate(self, board: Board, token: StopToken, n: int, depth: Optional[int],
                    nodes: Optional[int], on_info):
        """(result, nodes): the proven shortest mate within n moves, or None when there is none
        or the limits ended the proof.  A depth limit d bounds the mates looked for to those
        that fit in d plies; a node limit and the token bound the proof; with a hard deadline
        the proof may use half the time left, so that an ordinary search still has some."""
        solver = self.mate_solver
        if depth is not None:
            n = min(n, max(1, (depth + 1) // 2))
        node_limit = min(EXACT_MATE_NODE_LIMIT, nodes) if nodes else EXACT_MATE_NODE_LIMIT
        remaining = token.remaining_hard_ms()
        time_limit = None if remaining is None else max(0.0, remaining / 2)
        start = time.monotonic()
        proof = proven_mate_line(board, n, solver, node_limit=node_limit, stop=token,
                                 time_limit_ms=time_limit)
        if proof is None:
            return None, solver.nodes
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
                            solver.nodes, [info], info.score), solver.nodes

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

    def _time_is_up(self, token: StopToken, best_history: List[int]) -> bool:
        """Soft limit: stretched while the best move keeps changing, shrunk when it is stable."""
        soft = token.soft_limit
        if soft is None:
            return False
        changes = sum(1 for a, b in zip(best_history[-4:], best_history[-3:]) if a != b)
        factor = 1.0 + 0.4 * changes
        if len(best_history) >= 6 and all(m == best_history[-1] for m in best_history[-6:]):
            factor *= 0.6
        return token.soft_elapsed_ms() >= soft[1] * factor

    def _info(self, board: Board, index: int, depth: int, bound: Optional[str],
              extra_nodes: int = 0) -> SearchInfo:
        core = self._core
        move, score, previous, seldepth, pv_codes = core.root_move(index)
        if score == -VALUE_INFINITE:
            score = previous if previous != -VALUE_INFINITE else 0
        pv = self._pv_text(board, pv_codes)
        elapsed = max(core.elapsed_ms(), 0.001)
        cp, mate = score_to_cp_mate(score)
        nodes = core.nodes + extra_nodes
        return SearchInfo(depth=depth, seldepth=max(seldepth, depth), multipv=index + 1, score_cp=cp,
                          score_mate=mate, bound=bound, nodes=nodes,
                          nps=int(nodes * 1000 / elapsed), time_ms=int(elapsed),
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
