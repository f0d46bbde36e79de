"""The UCI loop: stdin is read on the main thread, the search runs on a worker thread.

Threads and who owns what:

* The main thread reads commands and owns the session state (options, current board).  It
  never waits on a running search: `isready` is answered at once, `stop` and `ponderhit`
  only flip flags and tell the searcher.
* One worker thread, started with the session, runs the jobs (a search, `go perft`, `bench`)
  one at a time, each on its own copy of the board; the search releases the GIL, so the reader
  keeps reading.  The reader never starts a thread: on a busy machine, and while a large table
  is being warmed up, a new thread can take a long time to get going.  A search job prints
  exactly one `bestmove`; in ponder and infinite mode it holds it until `stop`/`ponderhit`.
* Both write through `Output`, which flushes every line under one lock.

Commands that would disturb a running search (`go`, `ucinewgame`, `bench`, setting Hash or
Clear Hash) wait for it if it is already stopping (after `stop`) or about to finish on its
own (`go perft`, `bench`); otherwise they are refused with an `info string`.  `position`
and the other options are accepted during a search: they apply to the next one.

The main thread never does slow work on the table: a new Hash size is allocated at once (fresh
zeroed pages cost nothing to get, and a refusal is reported right away), while giving back the
old memory, warming up the new one and clearing a used table (ucinewgame, Clear Hash) run in the
background.  A search waits for a clear queued before it, and that wait counts against its time
limits (they run from `go`).

Importing the engine (and its Cython core) is delayed to the first command that needs it,
so the reply to `uci` goes out within milliseconds of the start.
"""
from __future__ import annotations

import os
import queue
import random
import sys
import threading
import time
import traceback
from typing import Callable, List, Optional

from . import __version__
from .options import OptionTable, standard_options
from .protocol import (format_bestmove, format_info, parse_go, parse_int, parse_position,
                          parse_setoption, printable)

__all__ = ["run", "Session", "Output", "read_lines", "MAX_LINE_BYTES"]

ENGINE_NAME = f"Scacco {__version__}"
ENGINE_AUTHOR = "the Scacco developers"

# Longer input lines are dropped whole (with an info string): a runaway GUI cannot make us
# hold gigabytes.  A game of 5000 plies in `position ... moves` is about 25 KB.
MAX_LINE_BYTES = 1 << 20
# Fail-high/fail-low lines and `currmove` lines appear only once a search is this old.
QUIET_START_MS = 3000
# How long `quit` waits for the worker to finish before leaving anyway.
QUIT_GRACE_S = 2.0


class Output:
    """Line-oriented writer shared by the threads; every line is flushed at once."""

    def __init__(self, stream) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self.broken = False

    def line(self, text: str) -> None:
        data = (text + "\n").encode("utf-8", errors="replace")
        with self._lock:
            if self.broken:
                return
            try:
                self._stream.write(data)
                self._stream.flush()
            except (OSError, ValueError):   # the GUI went away (broken pipe, closed stream)
                self.broken = True

    def info(self, text: str) -> None:
        """An `info string`; the text is made printable, so it can never end the line."""
        self.line("info string " + printable(text, 1000))


def read_lines(stream, limit: int = MAX_LINE_BYTES):
    """Yield the input lines decoded as UTF-8 (bad bytes replaced), or None for a line longer
    than `limit` bytes, which is skipped.  Ends at end of input."""
    while True:
        raw = stream.readline(limit + 1)
        if not raw:
            return
        if len(raw) > limit and not raw.endswith(b"\n"):
            while True:                      # drop the rest of the overlong line
                rest = stream.readline(limit)
                if not rest or rest.endswith(b"\n"):
                    break
            yield None
            continue
        yield raw.decode("utf-8", errors="replace")


class Job:
    """One piece of work on the worker thread, with the flags the two threads share.

    `lock` guards the flags; `released` is set when a search may print its bestmove (at once
    for a normal search, at stop/ponderhit in ponder or infinite mode).
    """

    def __init__(self, kind: str, hold: bool = False) -> None:
        self.kind = kind                  # "search", "perft" or "bench"
        self.lock = threading.Lock()
        self.released = threading.Event()
        if not hold:
            self.released.set()
        self.started_at = time.monotonic()
        self.cpu_started_at = time.process_time()
        self.running = False              # the searcher has been entered
        self.finished = False             # the result (bestmove) is being or has been printed
        self.stop_requested = False
        self.pondering = False
        self.infinite = False
        self.ponder_limits = None         # the TimeLimits to apply at ponderhit
        self.ponderhit_at: Optional[float] = None
        self.cpu_at_ponderhit = 0.0
        self.done = threading.Event()     # the worker has finished with the job

    def elapsed_ms(self) -> int:
        return int((time.monotonic() - self.started_at) * 1000)


def _physical_memory_mb() -> Optional[int]:
    """Installed memory in MB where the OS says (POSIX), else None."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // (1 << 20)
    except (ValueError, OSError, AttributeError):
        return None


class Worker:
    """The thread that runs the jobs, in order; started with the session, ended by close()."""

    def __init__(self) -> None:
        self._jobs: "queue.SimpleQueue[Optional[Callable[[], None]]]" = queue.SimpleQueue()
        threading.Thread(target=self._serve, name="scacco-worker", daemon=True).start()

    def _serve(self) -> None:
        while True:
            work = self._jobs.get()
            if work is None:
                return
            work()
            work = None

    def run(self, work: Callable[[], None]) -> None:
        self._jobs.put(work)

    def close(self) -> None:
        self._jobs.put(None)


class Session:
    """The engine as the GUI sees it: options, the current position, the running job."""

    def __init__(self, out: Output, options: Optional[OptionTable] = None) -> None:
        self.out = out
        self.options = options if options is not None else OptionTable(standard_options())
        self.debug = False
        self._board = None
        self._searcher = None
        self._searcher_error: Optional[str] = None
        self._job: Optional[Job] = None
        self._worker = Worker()
        self._rng = random.Random()       # the playing levels' choices
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

    def searcher(self):
        """The searcher, created on first use; None (said once) if it cannot be loaded."""
        if self._searcher is None and self._searcher_error is None:
            try:
                from ..engine.search import Searcher
                self._searcher = Searcher(hash_mb=self.options["Hash"])
            except Exception as exc:
                self._searcher_error = f"{type(exc).__name__}: {exc}"
                traceback.print_exc(file=sys.stderr)
                self.out.info(f"the search could not be loaded ({self._searcher_error}); "
                              f"playing the first legal move")
        return self._searcher

    def resize_hash(self, mb: int) -> None:
        """Option hook: a new table size (refused when larger than half the machine's memory,
        or when it cannot be allocated: the old table then stays).  The allocation is
        immediate; the old table is given back in the background."""
        memory = _physical_memory_mb()
        if memory is not None and mb > memory // 2:
            raise ValueError(f"Hash {mb} MB is more than half of this machine's {memory} MB")
        searcher = self.searcher()
        if searcher is not None:
            try:
                searcher.resize_hash(mb, background=True)
            except MemoryError:
                raise ValueError(f"Hash {mb} MB could not be allocated (the table stays "
                                 f"{searcher.hash_mb} MB)") from None

    def clear_hash(self) -> None:
        """Option hook (and ucinewgame): empty the histories now and the table in the
        background."""
        searcher = self.searcher()
        if searcher is not None:
            searcher.clear(background=True)

    # -- the running job ---------------------------------------------------------------

    def busy(self) -> bool:
        job = self._job
        return job is not None and not job.finished

    def make_idle(self, what: str) -> bool:
        """Wait for the running job if it will end by itself soon; else refuse `what`."""
        job = self._job
        if job is None:
            return True
        with job.lock:
            wait = job.finished or job.stop_requested or job.kind != "search"
        if not wait:
            self.out.info(f"{what} ignored: a search is running (send stop first)")
            return False
        job.done.wait()
        self._job = None
        return True

    def start_job(self, job: Job, target: Callable[[], None]) -> None:
        def work():
            try:
                target()
            except Exception as exc:
                traceback.print_exc(file=sys.stderr)
                self.out.info(f"internal error in {job.kind}: {type(exc).__name__}: {exc}")
            finally:
                with job.lock:
                    job.finished = True
                job.done.set()
        self._job = job
        self._worker.run(work)

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
        # While idle this is the moment to load the engine: GUIs wait for readyok anyway.
        if not self.busy():
            self.board
            self.searcher()
        self.out.line("readyok")

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
        if not option.while_searching and not self.make_idle(f"setoption {option.name}"):
            return
        try:
            if option.on_change is not None:
                option.on_change(self, value)
        except ValueError as error:
            self.out.info(f"{error}; {option.name} unchanged")
            return
        self.options.store(option, value)
        if self.debug:
            self.out.info(f"{option.name} set to {value}")

    def cmd_ucinewgame(self, args: List[str], line: str) -> None:
        if self.make_idle("ucinewgame"):
            self.clear_hash()

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
        if not self.make_idle("go"):
            return
        if go.perft is not None:
            self._start_perft(go.perft)
        else:
            self._start_search(go)

    def cmd_stop(self, args: List[str], line: str) -> None:
        job = self._job
        if job is None:
            return
        with job.lock:
            if job.finished:
                return
            job.stop_requested = True
            running = job.running
        job.released.set()
        if running and job.kind == "search":
            self._searcher.stop()

    def cmd_ponderhit(self, args: List[str], line: str) -> None:
        job = self._job
        if job is None or job.kind != "search":
            return
        with job.lock:
            if job.finished or not job.pondering:
                return
            job.pondering = False
            job.ponderhit_at = time.monotonic()
            job.cpu_at_ponderhit = time.process_time()
            running = job.running
            limits = job.ponder_limits
            # Pondering already spent the soft limit on this very position: answer now (clock
            # play only: a movetime is used whole from the ponderhit).
            done_thinking = (limits is not None and not job.infinite and not limits.fixed
                             and job.elapsed_ms() >= limits.soft_ms)
            if done_thinking:
                job.stop_requested = True
        if self.debug:      # before the release, so it cannot come after the bestmove
            self.out.info(f"ponderhit after {job.elapsed_ms()} ms of pondering: limits {limits}")
        if not job.infinite:
            job.released.set()
        if running and done_thinking:
            self._searcher.stop()
        elif running and limits is not None:
            self._apply_limits(limits)

    def cmd_quit(self, args: List[str], line: str) -> bool:
        return False

    def cmd_bench(self, args: List[str], line: str) -> None:
        depth = None
        if args:
            try:
                depth = parse_int(args[0], "bench depth", 1, 64)
            except ValueError as error:
                self.out.info(str(error))
                return
        if not self.make_idle("bench"):
            return
        from ..engine.bench import run_bench
        self.start_job(Job("bench"), lambda: run_bench(depth=depth, out=self.out.line))

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
        from ..engine.evaluation import eval_table
        for row in eval_table(self.board).splitlines():
            self.out.line(row)

    # -- jobs --------------------------------------------------------------------------

    def _start_perft(self, depth: int) -> None:
        board = self.board.copy()

        def perft():
            total = 0
            for move, count in board.divide(depth):
                self.out.line(f"{move}: {count}")
                total += count
            self.out.line("")
            self.out.line(f"Nodes searched: {total}")
        self.start_job(Job("perft"), perft)

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

    def _time_limits(self, go, board, root_count: int):
        """TimeLimits from movetime (fixed) or the clock of the side to move; None if neither."""
        from ..engine.timeman import TimeLimits
        if go.movetime is not None:
            return TimeLimits.movetime(go.movetime)
        time_left, increment = go.clock(board.turn)
        if time_left is None:
            return None
        return TimeLimits.clock(time_left, increment, go.movestogo, self.options["Move Overhead"],
                                single_reply=root_count == 1)

    def _apply_limits(self, limits) -> None:
        """Tell the running search its TimeLimits, counted from now (after ponderhit)."""
        if limits.fixed:
            self._searcher.set_movetime(limits.hard_ms)
        else:
            self._searcher.set_time_limits(limits.soft_ms, limits.hard_ms)

    def _start_search(self, go) -> None:
        board = self.board.copy()
        legal = board.legal_moves()
        root = self._root_moves(board, legal, go.searchmoves)
        kwargs = self.options.search_args()
        kwargs.update(depth=go.depth, nodes=go.nodes, mate=go.mate, infinite=go.infinite,
                      searchmoves=root if len(root) < len(legal) else None)
        kwargs["multipv"] = max(1, min(kwargs.get("multipv", 1), len(root)))
        limits = None if go.infinite else self._time_limits(go, board, len(root))
        job = Job("search", hold=go.ponder or go.infinite)
        job.pondering, job.infinite = go.ponder, go.infinite
        if go.ponder:
            job.ponder_limits = limits
            limits = None
        searcher = self.searcher() if legal else None
        if self.debug:
            table = ""
            if searcher is not None:
                state = "in memory" if searcher.table_in_memory else "pages still coming"
                table = f"hash {searcher.hash_mb} MB ({state}), "
            self.out.info(f"go: limits {limits or job.ponder_limits}, {table}options {kwargs}")
        self.start_job(job, lambda: self._search(job, searcher, board, legal, root, kwargs, limits))

    def _search(self, job: Job, searcher, board, legal, root, kwargs, limits) -> None:
        """Worker: search, check the answer, wait for release if holding, print bestmove.
        The bestmove is printed whatever happens: a GUI waits for it."""
        best, ponder = (root[0] if root else None), None
        try:
            if not legal:
                self.out.line(f"info depth 0 score {'mate 0' if board.is_check() else 'cp 0'}")
            elif searcher is not None:
                best, ponder = self._run_searcher(job, searcher, board, root, kwargs, limits)
        finally:
            job.released.wait()
            with job.lock:
                job.finished = True
            if self.debug:      # the time our clock ran: from go, or from ponderhit
                since, cpu_since, event = job.started_at, job.cpu_started_at, "go"
                if job.ponderhit_at is not None:
                    since, cpu_since, event = job.ponderhit_at, job.cpu_at_ponderhit, "ponderhit"
                self.out.info(f"answered {int((time.monotonic() - since) * 1000)} ms after {event} "
                              f"(cpu {int((time.process_time() - cpu_since) * 1000)} ms)")
            self.out.line(format_bestmove(best, ponder))

    def _run_searcher(self, job: Job, searcher, board, root, kwargs, limits):
        """(best, ponder) from the searcher within the job's limits, checked for legality."""
        searcher.wait_for_table()         # a queued clear, before the limits are worked out
        with job.lock:
            job.running = True
            stopped = job.stop_requested
            if job.ponderhit_at is not None and job.ponder_limits is not None:
                limits = job.ponder_limits
        if stopped:     # a stop came before the search began: one quick iteration
            kwargs.update(depth=1, nodes=None, mate=None, infinite=False)
            limits = None
        if limits is not None:
            since = job.ponderhit_at if job.ponderhit_at is not None else job.started_at
            spent = int((time.monotonic() - since) * 1000)
            kwargs.update(limits.after(spent).search_args())
        best = ponder = None
        try:
            play = self.options.play_function()
            callbacks = dict(on_info=lambda info: self._on_info(job, info),
                             on_currmove=lambda *a: self._on_currmove(job, *a))
            if play is None:
                from ..engine.levels import play as play_at_level
                result = play_at_level(searcher, board, rng=self._rng, **callbacks, **kwargs)
            else:
                result = play(searcher, board, **callbacks, **kwargs)
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

    def _reassert(self, job: Job) -> None:
        """Called from the searcher's callbacks: repeat a stop or a ponderhit that may have
        arrived while the search was starting (and resetting its limits)."""
        if job.stop_requested:
            self._searcher.stop()
        elif job.ponderhit_at is not None and job.ponder_limits is not None:
            spent = int((time.monotonic() - job.ponderhit_at) * 1000)
            self._apply_limits(job.ponder_limits.after(spent))
            job.ponder_limits = None       # once is enough

    def _on_info(self, job: Job, info) -> None:
        try:
            self._reassert(job)
            if info.bound is not None and job.elapsed_ms() < QUIET_START_MS:
                return
            self.out.line(format_info(info))
        except Exception:
            traceback.print_exc(file=sys.stderr)

    def _on_currmove(self, job: Job, depth: int, move: str, number: int) -> None:
        try:
            self._reassert(job)
            if job.elapsed_ms() >= QUIET_START_MS:
                self.out.line(f"info depth {depth} currmove {move} currmovenumber {number}")
        except Exception:
            traceback.print_exc(file=sys.stderr)

    # -- shutdown ----------------------------------------------------------------------

    def shutdown(self) -> bool:
        """Stop any job and end the worker; True if the job ended within the grace period."""
        job = self._job
        ended = True
        if job is not None:
            self.cmd_stop([], "stop")
            ended = job.done.wait(QUIT_GRACE_S)
        self._worker.close()
        return ended


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
    except KeyboardInterrupt:
        pass
    if not session.shutdown():
        # The worker is stuck in C code (a deep perft): leave without waiting for it.
        os._exit(0)
    return 0
