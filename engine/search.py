"""The iterative-deepening driver around the C search, and its results.

The C core (ext._core.SearchCore) searches one iteration at a time with the GIL released (its
MultiPV lines, each in an aspiration window: the routine the helper threads and self-play run
too); this module runs the iterations, decides when to stop (the SearchLimits of
engine.limits: depth, nodes, mate, a fixed movetime, or the soft and hard limits of clock
play), and reports one SearchInfo per completed line and per failed window.

Time comes in one of two kinds, both carried by the search's StopToken, and the driver keeps
them apart:

* clock play (a soft and a hard limit): no new iteration is begun after the soft limit, which
  is stretched while the best move keeps changing or the score falls, and shrunk when the move
  has stayed the same for six iterations; a forced move or a mate seen deep enough ends the search early.  The time
  saved is spent on later moves.  The hard limit is never crossed.
* a fixed time (`go movetime`: a hard limit and no soft one): the time is used whole.  The C
  search stops itself at the deadline, and nothing between iterations looks at the clock.
  The search ends before the deadline only at another limit it was given (depth, nodes,
  mate), with a single legal move, with a mate that the exact solver proves, or when
  MAX_DEPTH iterations are done (a position searched out that fast, such as a bare-kings
  draw, has nothing left to search).

The table (resize_hash, clear) can be worked on in the background: a resize is in place at
once and gives the old memory back in the background; every search and hashfull() first
waits for the clears queued before it.
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
from typing import Callable, List, Optional, Tuple

from ..ext._core import (MAX_HASH_MB_PY, MAX_SEARCH_THREADS_PY, VALUE_INFINITE_PY,
                         VALUE_MATE_IN_MAX_PLY_PY, VALUE_MATE_PY, MateSearch, SearchCore,
                         StopToken)

from .score import material, normalised_cp, wdl, winning_chances
from .board import Board, line_text
from .limits import SearchLimits
from .mate import MAX_MATE_MOVES, proven_mate_line

__all__ = ["Searcher", "SearchInfo", "SearchResult", "SearchLimits", "StopToken", "MAX_DEPTH",
           "MAX_CP", "MAX_THREADS", "MAX_HASH_MB", "PACKAGED", "default_network"]

MAX_DEPTH = 120
# Search threads a Searcher accepts (the main one and its helpers).
MAX_THREADS = MAX_SEARCH_THREADS_PY
# The largest table a Searcher accepts, in MB.
MAX_HASH_MB = MAX_HASH_MB_PY
VALUE_MATE = VALUE_MATE_PY
VALUE_INFINITE = VALUE_INFINITE_PY
MATE_BOUND = VALUE_MATE_IN_MAX_PLY_PY
# Scores from TB_WIN_BOUND up to MATE_BOUND are wins the tablebases prove (ext/search.pxi's
# VALUE_TB_WIN - ply); they are reported as the largest centipawn score.
TB_WIN_BOUND = MATE_BOUND - 1 - 128
# A won root in the tables is searched among its fastest wins by DTZ only (not every win that
# fits in the fifty moves, Stockfish's choice): a search that sees no mate (a fixed depth, a
# small budget, KBNvK) would otherwise wander to the edge of the fifty-move rule before it
# converts.  The search still picks among those moves, the fastest mate it sees first.
TB_ROOT_PROGRESS = True
# The largest centipawn score a caller sees; larger ones are clamped to it.
MAX_CP = 9999
# `go mate N` first tries an exact proof within this many nodes (a few seconds at most).
EXACT_MATE_NODE_LIMIT = 30_000_000
# A mate in m the search has seen is trusted from iteration 2m + this on: clock play then
# stops, a fixed movetime asks the exact solver for a proof first.
MATE_CONFIRMATION_PLIES = 6
# One proof attempt during a fixed movetime gets at most this share of the time left.
PROOF_TIME_SHARE = 0.25
# With node_time on, the soft limit is also scaled by (NODE_SHARE_BASE - share) * NODE_SHARE_SCALE,
# share being the part of the main thread's nodes spent under the best move so far: a move the
# search keeps confirming cheaply is played sooner, one whose rivals keep taking effort later.
# The two are set so that the factor is about 1 on average, leaving the clock's overall use
# as it was.  Taken into account from NODE_SHARE_DEPTH iterations on (the first ones are too
# small to say).
NODE_SHARE_BASE = 1.3
NODE_SHARE_SCALE = 1.4
NODE_SHARE_DEPTH = 6
# C threads that share the clearing of a large table (engine cores, at most eight: memory
# bandwidth, not arithmetic, is the limit).
CLEAR_THREADS = max(1, min(os.cpu_count() or 1, 8))


def score_to_cp_mate(score: int):
    """(cp, mate) for a score: mate in moves (+ we mate, - we are mated) or centipawns.

    Centipawns stay below MAX_CP in size: the search's non-mate scores are the evaluation
    (within the core's EVAL_LIMIT) and VALUE_WON (a win whose mate does not fit before the
    fifty-move rule), both below it, so the bound never cuts a real score; it keeps any score that is neither from
    reaching a GUI as an impossible centipawn value.
    """
    if score >= MATE_BOUND:
        return None, (VALUE_MATE - score + 1) // 2
    if score <= -MATE_BOUND:
        return None, -((VALUE_MATE + score) // 2)
    if abs(score) >= TB_WIN_BOUND:
        return (MAX_CP if score > 0 else -MAX_CP), None
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
    score: int = 0  # raw internal score; score_cp is normalised (engine.score)
    wdl: Optional[Tuple[int, int, int]] = None  # win, draw, loss per mille (engine.score.wdl)
    tbhits: int = 0  # tablebase probes that found their position (root moves included)


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

    @property
    def wdl(self) -> Optional[Tuple[int, int, int]]:
        """(win, draw, loss) per mille of the side to move, from the best line."""
        return self.lines[0].wdl if self.lines else None


def _pv_text(board: Board, codes: List[int]) -> List[str]:
    """A line of move codes from board's position in UCI."""
    return line_text(board, codes, Board.move_uci, Board.push_code)


def mate_result(board: Board, k: int, codes: List[int], nodes: int, elapsed_ms: int,
                hashfull: int) -> SearchResult:
    """The result of a proven mate in k along the line `codes` (move codes from board): one
    line scored mate k, as `go mate` and the playing levels report it."""
    pv = _pv_text(board, codes)
    info = SearchInfo(depth=2 * k - 1, seldepth=2 * k - 1, multipv=1, score_cp=None, score_mate=k,
                      bound=None, nodes=nodes, nps=nodes * 1000 // elapsed_ms if elapsed_ms else 0,
                      time_ms=elapsed_ms, hashfull=hashfull, pv=pv, score=VALUE_MATE - (2 * k - 1),
                      wdl=(1000, 0, 0))
    return SearchResult(pv[0], pv[1] if len(pv) > 1 else None, None, k, pv, 2 * k - 1, nodes,
                        [info], info.score)


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


class _Packaged:
    """The sentinel for Searcher's default evaluation: the network shipped in the package."""

    def __repr__(self) -> str:
        return "PACKAGED"


PACKAGED = _Packaged()
_packaged_refusal: List[str] = []     # why the packaged network cannot be used, said once


def default_network():
    """The default evaluation's network: the one in the package, or None (the classical
    evaluation, said once on stderr) when the installed file cannot be used."""
    from .nnue import NetworkError, packaged_network
    if _packaged_refusal:
        return None
    try:
        return packaged_network()
    except NetworkError as error:
        _packaged_refusal.append(str(error))
        print(f"scacco: {error}; evaluating with the classical evaluation", file=sys.stderr)
        return None



def _trial_switch(attribute: str, what: str) -> property:
    """A Searcher property for the search core's switch `attribute`, a search feature on trial:
    True when `what`."""
    def get(self) -> bool:
        return self._core.switch(attribute)

    def set(self, on: bool) -> None:
        self._core.set_switch(attribute, bool(on))

    return property(get, set, doc=f"True when {what}.  A switch while its own match against the "
                                  f"search without it runs; which are on in a new Searcher is "
                                  f"in docs/development.md.  Set it between searches.")


class Searcher:
    """Owns a transposition table and the search histories; searches one board at a time.

    Every search runs under a StopToken: the caller's (``stop=``), created before the search
    starts so that a stop can never be lost, or a fresh one.  The token carries the stop flag
    and the time limits and is shared by everything the search runs (C search, mate proof).

    With threads > 1 a search is a Lazy SMP one: helper C threads search the same root
    beside the main one, sharing the table (see ext/search.pxi), and the answer is voted among
    the threads' last completed iterations.

    :param hash_mb: transposition table size in megabytes.
    :param threads: search threads, 1..MAX_THREADS.
    :param network: the evaluation: PACKAGED (the default) for the network shipped in the
        package (the classical evaluation, said once on stderr, when the installed file cannot
        be used), another NnueNetwork, or None for the classical evaluation.
    """

    def __init__(self, hash_mb: int = 16, threads: int = 1, network=PACKAGED) -> None:
        self._check_hash(hash_mb)
        self._check_threads(threads)
        if network is PACKAGED:
            network = default_network()
        self._core = SearchCore(hash_mb)
        self._core.set_threads(threads)
        if network is not None:
            self._core.set_network(network)
        self._clears = TableWorker("scacco-clear")        # searches wait for these
        self._releases = TableWorker("scacco-release")    # and not for these
        self._mate_solver: Optional[MateSearch] = None
        self._token = StopToken()
        self._tablebase = None            # engine.tablebase.Tablebase, or None
        self._tb_rule50 = True
        self._tb_limit = 7
        self._root_tb_hits = 0            # root moves the tables ranked in this search
        self._root_tb_score: Optional[int] = None   # the root's result when the tables ranked it
        self._node_time = True

    @staticmethod
    def _check_hash(mb) -> None:
        if not isinstance(mb, int) or not 1 <= mb <= MAX_HASH_MB:
            raise ValueError(f"hash size must be an integer number of MB in 1..{MAX_HASH_MB}, "
                             f"not {mb!r}")

    @staticmethod
    def _check_threads(count) -> None:
        if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_THREADS:
            raise ValueError(f"threads must be an integer in 1..{MAX_THREADS}, not {count!r}")

    @property
    def threads(self) -> int:
        """Threads a search uses."""
        return self._core.threads

    def set_threads(self, count: int) -> None:
        """Search with `count` threads from the next search on (helpers get fresh histories).
        Not during a search.

        :raises ValueError: out of range.
        :raises MemoryError: when the helpers cannot be allocated; the thread count stays.
        """
        self._check_threads(count)
        self._core.set_threads(count)

    singular_extensions = _trial_switch(
        "singular_extensions",
        "the search extends a table move that no other move comes near (singular extensions, "
        "with their multi-cut and negative extensions)")
    correction_history = _trial_switch(
        "correction_history",
        "the static evaluation is corrected by what searches of positions with the same pawns, "
        "or with the same pieces of one colour, found (pawn and non-pawn correction histories)")
    network_scaling = _trial_switch(
        "network_scaling",
        "the search scales the network's static evaluation down as material comes off (an "
        "endgame's score against a middlegame's) and towards a draw as the fifty-move counter "
        "runs; the scores it reports are then on that scale")
    far_continuation = _trial_switch(
        "far_continuation",
        "the search orders and rates quiet moves by the continuation history of the side's own "
        "moves four and six plies back too, not only of the last two moves")
    history_pruning = _trial_switch(
        "history_pruning",
        "the histories take part in pruning quiet moves: near the horizon a quiet move they "
        "rate badly enough is not tried, and the futility margin follows them")
    best_move_history = _trial_switch(
        "best_move_history",
        "the histories learn from the best move of every node that has one, not only from a "
        "move that fails high: also from a PV node's move that raised alpha")

    @property
    def node_time(self) -> bool:
        """True when clock play also weighs the share of the search spent on the best move
        (NODE_SHARE_BASE) and a search the clock or a stop interrupts keeps a move that beat the
        last iteration's best in the unfinished iteration; on by default, a switch while its own
        match against the timing without them runs (docs/development.md)."""
        return self._node_time

    @node_time.setter
    def node_time(self, on: bool) -> None:
        self._node_time = bool(on)

    @property
    def network(self):
        """The NnueNetwork the search evaluates with, or None: the classical evaluation."""
        return self._core.network

    def set_network(self, network) -> None:
        """Evaluate with `network` (an NnueNetwork from engine.nnue.read_network), or with the
        classical evaluation for None, from the next search on, in every thread; the table is
        emptied (it keeps static evaluations).  Not during a search.

        :raises TypeError: for anything but an NnueNetwork or None.
        :raises MemoryError: when the accumulators cannot be allocated; nothing changes then.
        """
        if network is self._core.network:
            return
        self._core.set_network(network)
        self.clear()

    @property
    def tablebase(self):
        """The engine.tablebase.Tablebase the search uses, or None."""
        return self._tablebase

    def set_tablebase(self, tablebase, probe_depth: int = 1, probe_limit: int = 7,
                      rule50: bool = True) -> None:
        """Use the Syzygy tables of `tablebase` (an engine.tablebase.Tablebase, or None for
        none) from the next search on, as Stockfish's options: below the root, positions of at
        most probe_limit pieces reached by a capture or pawn move, at a remaining depth of at
        least probe_depth; with rule50, a win the fifty-move rule spoils is a draw.  A root
        position in the tables is searched among the moves that keep its result (see
        engine.tablebase.keep_result_moves).  Not during a search.

        :raises ValueError: probe_depth outside 1..100 or probe_limit outside 0..7."""
        if not isinstance(probe_depth, int) or not 1 <= probe_depth <= 100:
            raise ValueError(f"probe depth must be in 1..100, not {probe_depth!r}")
        if not isinstance(probe_limit, int) or not 0 <= probe_limit <= 7:
            raise ValueError(f"probe limit must be in 0..7, not {probe_limit!r}")
        self._core.set_tablebase(None if tablebase is None else tablebase.core,
                                 probe_limit, probe_depth, bool(rule50))
        self._tablebase = tablebase
        self._tb_rule50 = bool(rule50)
        self._tb_limit = probe_limit

    def _tablebase_root_moves(self, board: Board) -> Optional[set]:
        """The root moves that keep the tables' result (codes), or None when the root is not
        in the tables (or a move leads out of them).  Sets the root's tbhits and score."""
        from .tablebase import keep_result_moves
        tablebase = self._tablebase
        if (tablebase is None or self._tb_limit == 0
                or sum(c.isalpha() for c in board.fen().split()[0]) > min(self._tb_limit, tablebase.max_pieces)):
            return None
        ranking = tablebase.rank_moves(board)
        if not ranking:
            return None
        self._root_tb_hits = len(ranking)
        # The positions since the last capture or pawn move: a win must not make one of them
        # occur a third time (a draw), and once one has come back, only the fastest
        # conversions are played (Stockfish's rule: the DTZ then falls at every move).
        seen = [board.zobrist_key()]
        walker = board.copy()
        for _ in range(board.halfmove_clock):
            try:
                walker.pop()
            except IndexError:
                break
            seen.append(walker.zobrist_key())
        repeating = []
        for r in ranking:
            after = board.copy()
            after.push_uci(r.move)
            if seen.count(after.zobrist_key()) >= 2:
                repeating.append(r.move)
        keep = keep_result_moves(ranking, board.halfmove_clock, self._tb_rule50,
                                 repeated=len(set(seen)) < len(seen), repeating=repeating,
                                 progress=TB_ROOT_PROGRESS)
        best = ranking[0].wdl
        draw_band = 1 if self._tb_rule50 else 0
        self._root_tb_score = (TB_WIN_BOUND if best > draw_band else
                               -TB_WIN_BOUND if best < -draw_band else 0)
        return {board.parse_uci(m) for m in keep}

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
        """Empty the table, the histories, the pawn cache and the mate table (new game).  The
        histories are cleared at once; the table, if it has been searched since it was last
        emptied, by CLEAR_THREADS C threads zeroing what the search wrote (or, while the OS is
        still supplying its pages, by fresh memory: see ext/tt.pxi), with background=True on a
        thread of its own that the next search waits for."""
        self._core.clear_histories()
        if self._mate_solver is not None:
            self._mate_solver.clear()
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
        """Stop the running (or last) search's token.  Thread-safe.  A caller that may stop a
        search before it starts passes its own token (search(stop=...)) and stops that."""
        self._token.stop()

    @property
    def stop_requested(self) -> bool:
        """True once the running or last search was stopped or ran past its hard limit."""
        return self._token.stopped

    # -- the driver ---------------------------------------------------------------------

    def search(self, board: Board, limits: Optional[SearchLimits] = None, *, multipv: int = 1,
               on_info: Optional[Callable[[SearchInfo], None]] = None,
               on_currmove: Optional[Callable[[int, str, int], None]] = None,
               stop: Optional[StopToken] = None, single_thread: bool = False,
               use_tablebase: bool = True, **limit_keywords) -> SearchResult:
        """Search board (not modified) at full strength within the limits: a SearchLimits, or
        its fields as keywords (``search(board, depth=8)``); see the module docstring.  Playing
        levels are a layer above this (engine.levels.play).  The search uses the searcher's
        threads, or only the main one with single_thread (the playing levels).  A search with
        a node limit always runs on one thread: a node budget is asked for so that the same
        search gives the same answer (analysis, tests, testers' node-limited games), which
        threads racing for the table would not.

        Times are milliseconds from this call, added to the token's own limits (the tighter
        wins): soft_time and hard_time for clock play, or movetime for a fixed time that is
        used whole (a hard limit with no soft one; see the module docstring).  infinite
        ignores the soft limit; ponder applies no time (the caller sets it on the token at
        ponderhit).  A game clock (wtime...) is the caller's to allocate
        (engine.timeman.time_limits).  Any mate >= 1 is accepted: up to MAX_MATE_MOVES moves
        it is first proven exactly, beyond that searched for.

        use_tablebase=False searches without the tables set by set_tablebase (the playing
        levels below full strength).

        :raises ValueError: on a searchmoves entry that is not a legal move, a bad limit (see
            SearchLimits), or a game clock.
        :raises TypeError: a keyword that is no limit.
        """
        limits = SearchLimits.of(limits, **limit_keywords)
        if limits.has_clock:
            raise ValueError("a game clock (wtime, btime, winc, binc, movestogo) is allocated by "
                             "engine.timeman.time_limits: give the search soft_time and hard_time")
        token = stop if stop is not None else StopToken()
        self._token = token
        if not limits.ponder:
            if limits.soft_time is not None or limits.hard_time is not None:
                token.tighten(limits.soft_time, limits.hard_time,
                              origin_ms=time.monotonic() * 1000.0)
            if limits.movetime is not None:
                token.tighten(None, limits.movetime)
        self.wait_for_table()
        return self._search(board, token, limits, multipv, on_info, on_currmove,
                            parallel=not (single_thread or limits.nodes is not None),
                            use_tablebase=use_tablebase)

    @property
    def mate_solver(self) -> MateSearch:
        """This searcher's exact mate solver (created on first use)."""
        if self._mate_solver is None:
            self._mate_solver = MateSearch()
        return self._mate_solver

    def _search(self, board: Board, token: StopToken, limits: SearchLimits, multipv: int,
                on_info, on_currmove, parallel: bool, use_tablebase: bool = True) -> SearchResult:
        core = self._core
        allowed = None
        if limits.searchmoves:
            allowed = {board.parse_uci(m) for m in limits.searchmoves}
        self._root_tb_hits = 0
        self._root_tb_score = None
        self._core.set_tablebase_enabled(use_tablebase)
        if use_tablebase and self._tablebase is not None and board.castling_fen() == "-":
            kept = self._tablebase_root_moves(board)
            if kept is not None:
                narrowed = kept if allowed is None else (allowed & kept)
                allowed = narrowed or allowed
        core.set_position(board)
        if core.setup_root(allowed) == 0:
            return SearchResult(None, None, 0 if not board.is_check() else None,
                                -0 if board.is_check() else None)
        multipv = max(1, min(multipv, core.root_count))
        if on_currmove is not None:
            def report(depth: int, code: int, number: int) -> None:
                on_currmove(depth, board.move_uci(code), number)
            core.set_root_move_callback(report)
        if on_info is not None:
            def report_window(depth: int, pv_index: int, fail_low: bool) -> None:
                bound = "upperbound" if fail_low else "lowerbound"
                on_info(self._info(board, pv_index, depth, bound))
            core.set_window_callback(report_window)
        try:
            return self._run(board, core, token, limits, multipv, on_info,
                             forced=len(board.legal_move_codes()) == 1, parallel=parallel)
        finally:
            core.stop_helpers()
            core.set_root_move_callback(None)
            core.set_window_callback(None)

    def _run(self, board: Board, core, token: StopToken, limits: SearchLimits, multipv: int,
             on_info, forced: bool, parallel: bool) -> SearchResult:
        depth, nodes, mate, infinite = limits.depth, limits.nodes, limits.mate, limits.infinite
        proof_nodes = 0
        if mate is not None and not infinite and multipv == 1 and not limits.searchmoves \
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
        if parallel:
            core.start_helpers(max_depth)
        proofs_tried = set()

        best_history: List[int] = []
        score_history: List[int] = []
        completed: List[SearchInfo] = []
        completed_depth = 0
        for iteration in range(1, max_depth + 1):
            # The lines, each in its aspiration window, the root moves sorted best first once
            # all are done (a failed window is reported through the window callback).
            finished = core.search_iteration(iteration, multipv)
            if core.stopped and iteration > 1:
                if self._node_time and multipv == 1 and completed:
                    better = self._interrupted_best(board, completed[0], proof_nodes)
                    if better is not None:
                        completed = [better]
                        if on_info is not None:
                            on_info(better)
                break
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
            score_history.append(best_score)
            if mate is not None and best_score >= MATE_BOUND and (VALUE_MATE - best_score + 1) // 2 <= mate:
                if not infinite:
                    break
            if infinite:
                continue
            # Clock play has a soft limit; a fixed time (movetime) only a hard one.
            clock_play = token.soft_limit is not None
            fixed_time = not clock_play and token.has_hard_limit
            # A single legal move needs no thinking (four plies find a ponder move); clock play
            # also takes a single move left by searchmoves as forced.
            if iteration >= 4 and ((fixed_time and forced) or (clock_play and core.root_count == 1)):
                break
            # Mate in mate_moves, seen at an iteration deep enough to trust it.
            mate_moves = (VALUE_MATE - best_score + 1) // 2 if best_score >= MATE_BOUND else None
            mate_settled = mate_moves is not None and iteration >= 2 * mate_moves + MATE_CONFIRMATION_PLIES
            if fixed_time:
                # The deadline in the C search ends a movetime search; between iterations only
                # a mate proved exactly may end it sooner.
                if mate_settled and self._mate_is_proved(board, token, best_history[-1], mate_moves,
                                                         proofs_tried):
                    break
                continue
            if self._time_is_up(token, best_history, score_history,
                                self._best_node_share(core)
                                if self._node_time and iteration >= NODE_SHARE_DEPTH else None):
                break
            if mate_settled and depth is None and mate is None and clock_play:
                break  # clock play: a mate seen this deep is played without proof

        if not completed:
            completed = [self._info(board, 0, max(completed_depth, 1), None, proof_nodes)]
        core.stop_helpers()
        best = completed[0]
        if multipv == 1 and core.threads > 1:
            voted = self._vote(board, core, best, proof_nodes)
            if voted is not best:
                best = voted
                completed = [voted]
                completed_depth = max(completed_depth, voted.depth)
                if on_info is not None:
                    on_info(voted)
        pv = best.pv
        ponder = pv[1] if len(pv) > 1 else self._ponder_from_table(board, pv[0])
        return SearchResult(pv[0], ponder, best.score_cp, best.score_mate, pv,
                            completed_depth, core.nodes + proof_nodes, completed, best.score)

    def _vote(self, board: Board, core, main: SearchInfo, proof_nodes: int) -> SearchInfo:
        """The answer of a parallel search: every thread's last completed iteration votes for
        its best move with weight (score - worst score + 14) * depth, and the move with the
        most votes is played, with the line of the deepest thread that chose it (the main
        thread's on a tie).  A mate found is never voted down: the fastest mate (or, when
        every thread is mated, the slowest) wins outright."""
        entries = [(main.depth, board.parse_uci(main.pv[0]), main.score, main.seldepth, None)]
        for depth, move, score, seldepth, pv in core.thread_results():
            if score != -VALUE_INFINITE and pv:
                entries.append((depth, move, score, seldepth, pv))
        if len(entries) == 1:
            return main
        lowest = min(e[2] for e in entries)
        votes: dict = {}
        for depth, move, score, _, _ in entries:
            votes[move] = votes.get(move, 0) + (score - lowest + 14) * depth
        chosen = 0
        for i, (depth, move, score, _, _) in enumerate(entries[1:], 1):
            best_depth, best_move, best_score = entries[chosen][:3]
            if best_score >= MATE_BOUND or score >= MATE_BOUND:
                better = score > best_score
            elif votes[move] != votes[best_move]:
                better = votes[move] > votes[best_move]
            else:
                better = move == best_move and depth > best_depth
            if better:
                chosen = i
        if chosen == 0:
            return main
        depth, _, score, seldepth, pv_codes = entries[chosen]
        return self._line_info(board, 1, depth, seldepth, score, pv_codes, None, proof_nodes)

    def _mate_is_proved(self, board: Board, token: StopToken, move: int, k: int, tried: set) -> bool:
        """Does move force mate within k moves?  Asked of the exact solver once per (move, k)
        and search, within PROOF_TIME_SHARE of the time left: no proof in time is a no, and
        the search goes on to the deadline."""
        left_ms = token.remaining_hard_ms()
        if (move, k) in tried or k > MAX_MATE_MOVES or left_ms is None or left_ms <= 0:
            return False
        tried.add((move, k))
        solver = self.mate_solver
        solver.set_position(board)
        solver.reset(EXACT_MATE_NODE_LIMIT, token, PROOF_TIME_SHARE * left_ms)
        return solver.move_mates(move, k) is True

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
        result = mate_result(board, k, codes, solver.nodes,
                             max(1, int((time.monotonic() - start) * 1000)), self._core.hashfull())
        if on_info is not None:
            on_info(result.lines[0])
        return result, solver.nodes

    def _time_is_up(self, token: StopToken, best_history: List[int],
                    score_history: List[int], node_share: Optional[float] = None) -> bool:
        """Soft limit: stretched while the best move keeps changing or the score falls, shrunk
        when the best move is stable; with node_time on, also scaled by the best move's share
        of the nodes (NODE_SHARE_BASE)."""
        soft = token.soft_limit
        if soft is None:
            return False
        changes = sum(1 for a, b in zip(best_history[-4:], best_history[-3:]) if a != b)
        factor = 1.0 + 0.4 * changes
        if len(best_history) >= 6 and all(m == best_history[-1] for m in best_history[-6:]):
            factor *= 0.6
        factor *= self._falling_score_factor(score_history)
        if self._node_time and node_share is not None:
            factor *= (NODE_SHARE_BASE - node_share) * NODE_SHARE_SCALE
        return time.monotonic() * 1000.0 - soft[0] >= soft[1] * factor

    @staticmethod
    def _best_node_share(core) -> Optional[float]:
        """The share of the main thread's nodes so far spent under the best root move (the
        root moves are sorted after a finished iteration), or None before any."""
        total = sum(core.root_move_nodes(i) for i in range(core.root_count))
        return core.root_move_nodes(0) / total if total > 0 else None

    def _interrupted_best(self, board: Board, last: SearchInfo, extra_nodes: int) -> Optional[SearchInfo]:
        """The line of a root move that beat the last iteration's best in the iteration a stop
        interrupted, or None.  The iteration searches the old best first; a root move is only
        given a score once its search is complete, and after the first one only when it raises
        alpha, so any other scored move is better at the new depth."""
        core = self._core
        best_index, best_score = None, -VALUE_INFINITE
        for i in range(core.root_count):
            score = core.root_move(i)[1]
            if score > best_score:
                best_index, best_score = i, score
        if best_index is None:
            return None
        move, score, _, seldepth, pv_codes = core.root_move(best_index)
        if board.move_uci(move) == last.pv[0]:
            return None
        return self._line_info(board, 1, last.depth, seldepth, score, pv_codes, None, extra_nodes)

    @staticmethod
    def _falling_score_factor(scores: List[int]) -> float:
        """More time when the score has dropped below the iterations before it (the position
        is less clear than it looked).  The drop is measured in winning chances (Win%, the
        logistic curve of engine.score.winning_chances: 30 cp matter near equality, not at +10), against the
        mean Win% of the three iterations before: 1 + (DROP - 1) / 20 for a drop of DROP
        points, the first point free (the odd-even wobble of the iterations), at most 1.5.
        1 when it has not fallen, and for mate scores."""
        if len(scores) < 4 or any(abs(v) >= MATE_BOUND for v in scores[-4:]):
            return 1.0
        # Win% points: 50 per unit of lichess's winning chances (unclamped: a drop far from
        # equality stays small rather than vanishing).
        before = sum(50.0 * winning_chances(v) for v in scores[-4:-1]) / 3.0
        drop = before - 50.0 * winning_chances(scores[-1])
        return 1.0 + min(max(drop - 1.0, 0.0), 10.0) / 20.0

    def _info(self, board: Board, index: int, depth: int, bound: Optional[str],
              extra_nodes: int = 0) -> SearchInfo:
        move, score, previous, seldepth, pv_codes = self._core.root_move(index)
        if score == -VALUE_INFINITE:
            score = previous if previous != -VALUE_INFINITE else 0
        return self._line_info(board, index + 1, depth, seldepth, score, pv_codes, bound,
                               extra_nodes)

    def _line_info(self, board: Board, multipv: int, depth: int, seldepth: int, score: int,
                   pv_codes: List[int], bound: Optional[str], extra_nodes: int) -> SearchInfo:
        """A SearchInfo for one line of the running search (every thread's nodes counted)."""
        core = self._core
        elapsed = max(core.elapsed_ms(), 0.001)
        raw, mate = score_to_cp_mate(score)
        if mate is None:
            on_board = material(board)
            cp = normalised_cp(raw, core.network, on_board)
            chances = wdl(cp, on_board)
        else:
            cp, chances = None, (1000, 0, 0) if mate > 0 else (0, 0, 1000)
        nodes = core.nodes + extra_nodes
        if self._root_tb_score is not None and mate is None:
            # The root's result is the tables': a proven win or loss is shown as such (a
            # mate the search sees is shown instead), a draw as 0.
            tb_score = self._root_tb_score
            score = tb_score
            cp = 0 if tb_score == 0 else (MAX_CP if tb_score > 0 else -MAX_CP)
            chances = (0, 1000, 0) if tb_score == 0 else ((1000, 0, 0) if tb_score > 0 else (0, 0, 1000))
        elif abs(score) >= TB_WIN_BOUND and mate is None:
            cp = MAX_CP if score > 0 else -MAX_CP
            chances = (1000, 0, 0) if score > 0 else (0, 0, 1000)
        return SearchInfo(depth=depth, seldepth=max(seldepth, depth), multipv=multipv, score_cp=cp,
                          score_mate=mate, bound=bound, nodes=nodes,
                          nps=int(nodes * 1000 / elapsed), time_ms=int(elapsed),
                          hashfull=core.hashfull(), pv=_pv_text(board, pv_codes), score=score,
                          wdl=chances, tbhits=core.tbhits + self._root_tb_hits)

    def _ponder_from_table(self, board: Board, best: str) -> Optional[str]:
        walker = board.copy()
        walker.push_uci(best)
        code = self._core.probe_move(walker)
        return walker.move_uci(code) if code is not None else None
