"""The UCI loop: stdin is read on the main thread, all engine work runs on one worker thread.

The loop is in three parts: this module (the protocol: reading lines, the commands, admitting
and starting jobs, the search's answer), uci/host.py (the engine behind it: the searcher,
the networks, Hash and Threads with their fallbacks) and uci/jobs.py (the output both threads
write through, the jobs and the worker thread).

Threads and who owns what:

* The main thread reads commands and owns the session state (options, current board).  It
  never waits on the worker: `isready` is answered at once, `stop` and `ponderhit` only touch
  the running job's StopToken, and `quit` leaves within milliseconds whatever runs.
* The worker runs queued tasks one after the other: searches, `go perft`, `bench`, and the
  commands that change what a search uses (`ucinewgame`, Hash, Clear Hash, loading the
  searcher, reading a network file for EvalFile or Use NNUE).  Only the worker touches the
  searcher and the networks, so nothing in them is ever shared, and no file is read on the
  thread that reads commands (a slow disk cannot keep isready or quit waiting).
* Every job gets its StopToken when the command arrives, before the worker starts it, so no
  `stop` or `ponderhit` can be lost: nothing ever clears a token.  A search job prints
  exactly one `bestmove`; in ponder and infinite mode it holds it until `stop`/`ponderhit`.
* Both threads write through `Output`, which flushes every line under one lock.
* The end of input is `quit` after the commands before it: what is queued is done and
  answered (isready, bench, perft, a search with a limit of its own runs to it), a search
  that ends only at `stop` (infinite, ponder, a go without limits) is stopped at once with its
  bestmove, then the engine exits.  `echo "position ...\ngo depth 12" | scacco` gives the
  depth-12 answer.

A command that would disturb a running search (`go`, `ucinewgame`, `bench`, Hash, Clear Hash)
is queued behind it when that search has been told to stop, or is a perft or bench that ends
on its own (or at `stop`); otherwise it is refused with an `info string`.  `position` and the
other options are accepted during a search: they apply to the next one.

Work on the table is quick for the worker too: a new Hash size is fresh zeroed memory from the
OS (no clearing pass), and giving back the old memory, warming up the new one and clearing a
used table (ucinewgame, Clear Hash) run on threads of the searcher's own; a search waits for a
clear queued before it, and that wait counts against its time limits (they run from `go`).

`info ... score cp X` reports the search's normalised centipawns (engine.score: on Stockfish's
scale, as the analysis reports them); the search itself works in Scacco's raw centipawns.

Importing the engine (and its Cython core) is delayed to the first command that needs it,
so the reply to `uci` goes out within milliseconds of the start.
"""
from __future__ import annotations

import os
import random
import sys
import threading
import time
import traceback
from typing import Callable, List, Optional, Tuple

from . import __version__
from .host import EngineHost
from .jobs import MAX_LINE_BYTES, Job, Output, Worker, read_lines
from .options import DEFERRED, OptionTable, standard_options
from .protocol import (format_bestmove, format_info, parse_go, parse_int, parse_position,
                          parse_setoption, printable)

__all__ = ["run", "Session", "Output", "read_lines", "MAX_LINE_BYTES"]

ENGINE_NAME = f"Scacco {__version__}"
ENGINE_AUTHOR = "the Scacco developers"

# Fail-high/fail-low lines and `currmove` lines appear only once a search is this old.
QUIET_START_MS = 3000
# `isready` waits at most this long for queued work before answering.
READY_WAIT_S = 0.05
# ...and this long when a network file is being read for an option: its verdict (an info
# string when it is refused) comes before readyok unless the disk hangs.
NETWORK_READY_WAIT_S = 3.0
# How long `quit` waits for the worker to finish before leaving anyway.
QUIT_GRACE_S = 2.0


class Session:
    """The engine as the GUI sees it: options, the current position, the queued jobs."""

    def __init__(self, out: Output, options: Optional[OptionTable] = None) -> None:
        self.out = out
        self.options = options if options is not None else OptionTable(standard_options())
        self.debug = False
        self._board = None
        self._worker = Worker()
        self.host = EngineHost(out, self.options, self.submit, self._store)
        self._rng = random.Random()       # the playing levels' choices
        # isready answers that wait for the worker: (locked once given, give it)
        self._ready_answers: List[Tuple[threading.Lock, Callable[[], None]]] = []
        self._commands = {
            "uci": self.cmd_uci,
            "debug": self.cmd_debug,
            "isready": self.cmd_isready,
            "setoption": self.cmd_setoption,
            "ucinewgame": self.cmd_ucinewgame,
            "position": self.cmd_position,
            "go": self.cmd_go,
            "stop": self.cmd_stop,
            "ponderhit": self.cmd_ponderhit,
            "quit": self.cmd_quit,
            "bench": self.cmd_bench,
            "d": self.cmd_display,
            "eval": self.cmd_eval,
        }

    # -- dispatch ----------------------------------------------------------------------

    def handle(self, line: str) -> bool:
        """Run one input line; False when the engine should exit."""
        tokens = line.split()
        if not tokens:
            return True
        handler = self._commands.get(tokens[0])
        if handler is None:
            self.out.info(f"unknown command: {printable(line.strip(), 200)}")
            return True
        try:
            return handler(tokens[1:], line) is not False
        except Exception as exc:       # a bug in one command must not end the game
            traceback.print_exc(file=sys.stderr)
            self.out.info(f"internal error in {tokens[0]}: {type(exc).__name__}: {exc}")
            return True

    # -- lazily loaded engine ----------------------------------------------------------

    @property
    def board(self):
        """The current position (the start position until `position` says otherwise)."""
        if self._board is None:
            from ..engine.board import Board
            self._board = Board()
        return self._board

    # -- jobs --------------------------------------------------------------------------

    def busy(self) -> bool:
        return self._worker.busy()

    def wait_idle(self, timeout: Optional[float] = None) -> bool:
        """Wait for every queued job (tests and shutdown; the reader never waits)."""
        return self._worker.wait_idle(timeout)

    def searching(self) -> bool:
        """Is a search out (running or queued) that was not told to stop?"""
        return any(job.is_running_search() for job in self._worker.unfinished())

    def admit(self, what: str) -> bool:
        """May `what`, which must not disturb a search, be queued now?  Not while a search
        is out that was not told to stop (it is then refused with an info string)."""
        if self.searching():
            self.out.info(f"{what} ignored: a search is running (send stop first)")
            return False
        return True

    def submit(self, job: Job, target: Callable[[], None]) -> None:
        """Queue a job for the worker."""
        self._worker.submit(job, target, self._job_failed)

    def _network_work_queued(self) -> bool:
        return any(job.kind == "network" for job in self._worker.unfinished())

    def _job_failed(self, job: Job, exc: Exception) -> None:
        traceback.print_exc(file=sys.stderr)
        self.out.info(f"internal error in {job.kind}: {type(exc).__name__}: {exc}")

    # -- commands ----------------------------------------------------------------------

    def cmd_uci(self, args: List[str], line: str) -> None:
        self.out.line(f"id name {ENGINE_NAME}")
        self.out.line(f"id author {ENGINE_AUTHOR}")
        for declaration in self.options.declarations():
            self.out.line(declaration)
        self.out.line("uciok")

    def cmd_debug(self, args: List[str], line: str) -> None:
        if args == ["on"] or args == ["off"]:
            self.debug = args[0] == "on"
        else:
            self.out.info("debug takes on or off")

    def cmd_isready(self, args: List[str], line: str) -> None:
        """readyok once the engine has caught up with what came before (a stopped search has
        printed its bestmove, a queued ucinewgame is done), but never later than
        READY_WAIT_S, and at once while a search runs that was not told to stop."""
        if self.host.searcher_pending:
            self.board                          # the core is loaded here, the searcher...
            self.submit(Job("task"), self.host.searcher)   # ...on the worker (Hash may be large)
        if not self.busy() or self.searching():
            self.out.line("readyok")
            return
        once = threading.Lock()

        def answer() -> None:
            if once.acquire(blocking=False):
                self.out.line("readyok")
        # A quit before the answer is due still gives it (see shutdown).
        self._ready_answers = [(lock, give) for lock, give in self._ready_answers
                               if not lock.locked()] + [(once, answer)]
        wait = NETWORK_READY_WAIT_S if self._network_work_queued() else READY_WAIT_S
        timer = threading.Timer(wait, answer)
        timer.daemon = True
        timer.start()
        self.submit(Job("task"), answer)

    def cmd_setoption(self, args: List[str], line: str) -> None:
        try:
            name, text = parse_setoption(line)
        except ValueError as error:
            self.out.info(str(error))
            return
        option = self.options.find(name)
        if option is None:
            self.out.info(f"unknown option: {name}")
            return
        try:
            value = option.parse(text)
        except ValueError as error:
            self.out.info(f"{error}; {option.name} unchanged")
            return
        if not option.while_searching and not self.admit(f"setoption {option.name}"):
            return
        try:
            deferred = option.on_change is not None and option.on_change(self, value) is DEFERRED
        except ValueError as error:
            self.out.info(f"{error}; {option.name} unchanged")
            return
        if not deferred:
            self._store(option, value)

    def _store(self, option, value) -> None:
        """Record an option's value once it has taken effect."""
        self.options.store(option, value)
        if self.debug:
            self.out.info(f"{option.name} set to {value}")

    def cmd_ucinewgame(self, args: List[str], line: str) -> None:
        if self.admit("ucinewgame"):
            self.host.clear_hash()

    def cmd_position(self, args: List[str], line: str) -> None:
        from ..engine.board import STARTING_FEN, Board
        try:
            command = parse_position(args)
            board = Board(command.fen or STARTING_FEN, chess960=self.options["UCI_Chess960"])
        except ValueError as error:
            self.out.info(f"{error}; position unchanged")
            return
        for number, move in enumerate(command.moves, 1):
            try:
                board.push_uci(move)
            except ValueError as error:
                self.out.info(f"move {number} ({move}) rejected: {error}; the position is the "
                              f"one before it")
                break
        self._board = board

    def cmd_go(self, args: List[str], line: str) -> None:
        try:
            go = parse_go(args)
        except ValueError as error:
            self.out.info(f"{error}; go ignored")
            return
        if not self.admit("go"):
            return
        if go.perft is not None:
            self._start_perft(go.perft)
        else:
            self._start_search(go)

    def cmd_stop(self, args: List[str], line: str) -> None:
        # Everything outstanding: the running job and any queued behind it (a queued search
        # then answers at once, with its one bestmove).
        for job in self._worker.unfinished():
            job.stop()

    def cmd_ponderhit(self, args: List[str], line: str) -> None:
        # The newest search still out: whatever work was queued after it (a searcher being
        # loaded, an isready) is not what the ponderhit is about.
        searches = [job for job in self._worker.unfinished() if job.kind == "search"]
        if not searches:
            return
        job = searches[-1]
        with job.lock:
            if job.finished or not job.pondering:
                return
            job.pondering = False
            job.ponderhit_at = time.monotonic()
            job.cpu_at_ponderhit = time.process_time()
            limits = job.ponder_limits
            # Pondering already spent the soft limit on this very position: answer now (clock
            # play only: a movetime is used whole from the ponderhit).
            done_thinking = (limits is not None and not job.infinite and not limits.fixed
                             and job.elapsed_ms() >= limits.soft_ms)
        if self.debug:      # before the release, so it cannot come after the bestmove
            self.out.info(f"ponderhit after {job.elapsed_ms()} ms of pondering: limits {limits}")
        if done_thinking:
            job.stop()
        elif limits is not None:
            job.token.set_limits(limits.soft_ms, limits.hard_ms)
        if not job.infinite:
            job.released.set()

    def cmd_quit(self, args: List[str], line: str) -> bool:
        return False

    def cmd_bench(self, args: List[str], line: str) -> None:
        # bench [DEPTH [THREADS]]: THREADS defaults to the Threads option.  Both bounds are
        # refused rather than clamped, as `scacco bench` refuses them.
        from .cli.common import MAX_SEARCH_DEPTH
        from .options import MAX_THREADS
        depth, threads = None, self.options["Threads"]
        try:
            if args:
                depth = parse_int(args[0], "bench depth", 1, MAX_SEARCH_DEPTH, clamp=False)
            if len(args) > 1:
                threads = parse_int(args[1], "bench threads", 1, MAX_THREADS, clamp=False)
        except ValueError as error:
            self.out.info(str(error))
            return
        if not self.admit("bench"):
            return
        from ..engine.signature import run_bench
        job = Job("bench")
        self.submit(job, lambda: run_bench(depth=depth, out=self.out.line, stop=job.token,
                                           threads=threads, network=self.host.active_network(),
                                           tablebase=self.host.tablebase))

    def cmd_display(self, args: List[str], line: str) -> None:
        board = self.board
        border = " +---+---+---+---+---+---+---+---+"
        rows = ["", border]
        for rank in range(7, -1, -1):
            cells = " | ".join(board.piece_at(rank * 8 + f) or " " for f in range(8))
            rows += [f" | {cells} | {rank + 1}", border]
        rows += ["   a   b   c   d   e   f   g   h", "",
                 f"Fen: {board.fen(shredder=board.chess960)}",
                 f"Key: {board.zobrist_key():016X}",
                 f"Checkers: {' '.join(board.checkers())}"]
        for row in rows:
            self.out.line(row.rstrip())

    def cmd_eval(self, args: List[str], line: str) -> None:
        # Safe during a search: a board's evaluation shares nothing with a searcher's.  The
        # network's line comes at once when the network is in memory and no queued work may
        # change it; otherwise from the worker, in turn (no file is read on this thread).
        from ..engine.evaluation import eval_table
        board = self.board
        for row in eval_table(board).splitlines():
            self.out.line(row)
        if self.host.network_ready() and not self._network_work_queued():
            self.host.network_line(board)
        else:
            board = board.copy()
            self.submit(Job("task"), lambda: self.host.network_line(board))

    # -- jobs --------------------------------------------------------------------------

    def _start_perft(self, depth: int) -> None:
        board = self.board.copy()
        job = Job("perft")

        def perft():
            total = 0
            counts = board.divide(depth, stop=job.token)
            if job.token.stopped:
                self.out.info(f"perft {depth} stopped after {len(counts)} of "
                              f"{len(board.legal_moves())} root moves")
                return
            for move, count in counts:
                self.out.line(f"{move}: {count}")
                total += count
            self.out.line("")
            self.out.line(f"Nodes searched: {total}")
        self.submit(job, perft)

    def _root_moves(self, board, legal: List[str], searchmoves: Optional[List[str]]) -> List[str]:
        """The moves to search: the legal ones among `searchmoves` (in our notation), or all."""
        if not searchmoves:
            return legal
        chosen, rejected = [], []
        for text in searchmoves:
            try:
                move = board.move_uci(board.parse_uci(text))
            except ValueError:
                rejected.append(text)
                continue
            if move not in chosen:
                chosen.append(move)
        if rejected:
            self.out.info(f"searchmoves: ignoring illegal {' '.join(rejected)}")
        if not chosen and legal:
            self.out.info("searchmoves: no legal move given; searching all moves")
        return chosen or legal

    def _time_limits(self, search_limits, board, root_count: int):
        """TimeLimits from movetime (fixed: a hard limit and no soft one) or the clock of the
        side to move; None if neither, or infinite (engine.timeman.time_limits)."""
        from ..engine.timeman import time_limits
        return time_limits(search_limits, board.turn, self.options["Move Overhead"],
                           single_reply=root_count == 1, move_number=board.fullmove_number)

    def _start_search(self, go) -> None:
        from ..engine.limits import SearchLimits
        board = self.board.copy()
        legal = board.legal_moves()
        root = self._root_moves(board, legal, go.searchmoves)
        search_limits = SearchLimits.from_go(go).replace(
            searchmoves=root if len(root) < len(legal) else None)
        kwargs = self.options.search_args()
        kwargs["multipv"] = max(1, min(kwargs.get("multipv", 1), len(root)))
        limits = self._time_limits(search_limits, board, len(root))
        job = Job("search", hold=go.ponder or go.infinite)
        job.pondering, job.infinite = go.ponder, go.infinite
        job.bounded = not go.infinite and (limits is not None or go.depth is not None
                                           or go.nodes is not None or go.mate is not None)
        if go.ponder:
            job.ponder_limits = limits
        elif limits is not None:
            # our clock runs from the moment go arrived; a movetime has no soft limit
            job.token.set_limits(limits.soft_ms, limits.hard_ms)
        if self.debug:
            self.out.info(f"go: limits {limits}, {search_limits.keywords()}, options {kwargs}")
        # The time is on the job's token (from go, or from ponderhit): the search gets the rest.
        search_limits = search_limits.without_time()
        self.submit(job, lambda: self._search(job, board, legal, root, search_limits, kwargs))

    def _search(self, job: Job, board, legal, root, search_limits, kwargs) -> None:
        """Worker: search, check the answer, wait for release if holding, print bestmove.
        The bestmove is printed whatever happens: a GUI waits for it."""
        best, ponder = (root[0] if root else None), None
        try:
            if not legal:
                self.out.line(f"info depth 0 score {'mate 0' if board.is_check() else 'cp 0'}")
            else:
                searcher = self.host.searcher()
                if searcher is not None and self.debug:
                    state = "in memory" if searcher.table_in_memory else "pages still coming"
                    self.out.info(f"go: hash {searcher.hash_mb} MB ({state})")
                if searcher is not None:
                    best, ponder = self._run_searcher(job, searcher, board, root,
                                                      search_limits, kwargs)
        finally:
            job.released.wait()
            if self.debug:      # the time our clock ran: from go, or from ponderhit
                since, cpu_since, event = job.started_at, job.cpu_started_at, "go"
                if job.ponderhit_at is not None:
                    since, cpu_since, event = job.ponderhit_at, job.cpu_at_ponderhit, "ponderhit"
                self.out.info(f"answered {int((time.monotonic() - since) * 1000)} ms after {event} "
                              f"(cpu {int((time.process_time() - cpu_since) * 1000)} ms)")
            with job.lock:          # before the line: the GUI may answer it at once
                job.answered = True
            self.out.line(format_bestmove(best, ponder))

    def _run_searcher(self, job: Job, searcher, board, root, search_limits, kwargs):
        """(best, ponder) from the searcher under the job's token, checked for legality."""
        token = job.token
        if token.stopped:
            # Stopped (or out of time) before the search began: one quick iteration, which a
            # fresh token lets run, gives a sound move at once.
            from ..engine.search import StopToken
            token = StopToken()
            search_limits = search_limits.replace(depth=1, nodes=None, mate=None, infinite=False)
        best = ponder = None
        try:
            from ..engine.levels import play
            result = play(searcher, board, search_limits, rng=self._rng, stop=token,
                          on_info=lambda info: self._on_info(job, info),
                          on_currmove=lambda *a: self._on_currmove(job, *a), **kwargs)
            best, ponder = result.best_move, result.ponder_move
        except Exception as exc:
            traceback.print_exc(file=sys.stderr)
            self.out.info(f"search failed: {type(exc).__name__}: {exc}")
        return self._checked_answer(board, root, best, ponder)

    def _checked_answer(self, board, root: List[str], best, ponder):
        """The searcher's answer if legal; else the first root move and no ponder move."""
        if best not in root:
            if best is not None:
                self.out.info(f"search returned {best}, not a legal root move")
            return root[0], None
        if ponder is not None:
            after = board.copy()
            after.push_uci(best)
            if ponder not in after.legal_moves():
                ponder = None
        return best, ponder

    def _on_info(self, job: Job, info) -> None:
        try:
            if info.bound is not None and job.elapsed_ms() < QUIET_START_MS:
                return
            self.out.line(format_info(info, self.options["UCI_ShowWDL"]))
        except Exception:
            traceback.print_exc(file=sys.stderr)

    def _on_currmove(self, job: Job, depth: int, move: str, number: int) -> None:
        try:
            if job.elapsed_ms() >= QUIET_START_MS:
                self.out.line(f"info depth {depth} currmove {move} currmovenumber {number}")
        except Exception:
            traceback.print_exc(file=sys.stderr)

    # -- shutdown ----------------------------------------------------------------------

    def finish(self) -> None:
        """End of input: `quit` after what came before.  What ends on its own is done and
        answered (queued isready, bench, perft, a search with a depth, nodes, mate or time
        limit, which runs to it); a search that only a stop would end (infinite, ponder, a
        go without limits) is stopped now and gives its bestmove.  Returns when the worker
        is idle, or as soon as the output is gone (the GUI left: nobody reads the answers).
        The input thread may wait here: there is no input left to read."""
        for job in self._worker.unfinished():
            if not job.ends_on_its_own():
                job.stop()
        while not self._worker.wait_idle(0.1):
            if self.out.broken:
                return

    def shutdown(self) -> bool:
        """Stop the running job, drop the queued ones, give every isready its readyok; True if
        the worker finished within the grace period."""
        self._worker.close()
        for job in self._worker.unfinished():
            job.stop()
        finished = self._worker.wait_idle(QUIT_GRACE_S)
        for _, give in self._ready_answers:     # after a stopped search's bestmove
            give()
        return finished


def run(stdin=None, stdout=None) -> int:
    """Speak UCI until `quit` or the end of input; returns the exit status."""
    stdin = stdin if stdin is not None else sys.stdin.buffer
    out = Output(stdout if stdout is not None else sys.stdout.buffer)
    session = Session(out)
    try:
        for line in read_lines(stdin):
            if line is None:
                out.info(f"input line longer than {MAX_LINE_BYTES} bytes ignored")
                continue
            if not session.handle(line) or out.broken:
                break
        else:
            session.finish()      # the end of input: quit once what came before is answered
    except KeyboardInterrupt:
        pass
    if not session.shutdown():
        # The worker is stuck in C code (a deep perft): leave without waiting for it.
        os._exit(0)
    return 0
