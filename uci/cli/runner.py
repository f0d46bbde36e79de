"""The driver of the commands that work game by game on a PGN file (`analyse`, `puzzles`).

It counts the games (the progress line's total), sends each readable game to the work
function through engine.batch (worker processes or Ray), and hands every game's outcome, in
the file's order, to the command's `Sink`: a result, or a failure with its reason.  A game the
reader could not read, a game the work function raised for (whatever the exception) and a
game whose worker died are each one failure; the other games go on.

Each outcome is recorded in the run's Journal (when the command writes files), so an
interrupted run can be resumed: the recorded outcomes are handed to the sink again, in order,
and the work goes on with the next game.  SIGINT, SIGTERM and SIGHUP interrupt a run
(engine/stopping.py): the workers are stopped at once, the sink is told, and the run says how
far it got.
"""
from __future__ import annotations

import collections
import contextlib
import sys
from dataclasses import dataclass
from typing import IO, Any, Callable, Dict, Iterator, List, Optional, Tuple

from ...engine.stopping import Interrupted, held, interrupted_status
from .common import EXIT_FAILED
from .files import Journal, OutputError

__all__ = ["Sink", "RunEnd", "run_games", "count_games", "report_stop"]


class Sink:
    """What a command does with each game's outcome, in the file's order."""

    def result(self, number: int, result: Any) -> None:
        raise NotImplementedError

    def failure(self, number: int, reason: str) -> None:
        raise NotImplementedError

    # how a result is recorded in the journal, and read back from it
    def encode(self, result: Any) -> Dict[str, Any]:
        raise NotImplementedError

    def decode(self, data: Dict[str, Any]) -> Any:
        raise NotImplementedError

    def positions(self, result: Any) -> int:
        """The positions a result covers (what the progress line counts)."""
        raise NotImplementedError


@dataclass
class RunEnd:
    """How a run ended."""

    games: int                       # games in the file
    done: int = 0                    # results
    failed: int = 0                  # failures (unreadable games included)
    read: int = 0                    # games the reader could read (all of them on a resume)
    interrupted: Optional[Interrupted] = None
    error: Optional[str] = None      # a fault that stopped the run (the finished work kept)

    @property
    def stopped(self) -> bool:
        return self.interrupted is not None or self.error is not None

    @property
    def finished(self) -> int:
        return self.done + self.failed


def count_games(path: str, prog: str) -> Tuple[int, int]:
    """(games, positions of their main lines) of a PGN file, read once, streaming; the
    reader's warning about the file's encoding is said here, once, before any work."""
    from ...engine.pgn import MainLineBuilder, read_games
    games = positions = 0
    warnings: List[str] = []
    for moves in read_games(path, MainLineBuilder(), warnings=warnings):
        games += 1
        positions += len(moves) + 1
    for text in warnings:
        print(f"{prog}: {path}: warning: {text}", file=sys.stderr, flush=True)
    return games, positions


def _reason(error: BaseException) -> str:
    """A failure's reason: the message of an expected error, the type too for the rest."""
    from ...engine.review.analysis import AnalysisError
    from ...engine.batch import WorkerDied
    from ...engine.trainer.puzzle_finder import FinderError
    if isinstance(error, (AnalysisError, FinderError, WorkerDied)):
        return str(error)
    return f"unexpected {type(error).__name__}: {error}"


def run_games(path: str, function: Callable[..., Any], item: Callable[[int, str], tuple],
              sink: Sink, *, journal: Optional[Journal], resume: bool, jobs: int,
              ray_address: Optional[str], stderr: IO[str], games: int, positions: int) -> RunEnd:
    """Runs function(*item(number, pgn_text)) for every game of the PGN file (see the module
    docstring).  The caller has already counted the file (games, positions) and enters
    interruptible(); the JournalError of a bad resume is raised before anything is done."""
    from ...engine.batch import Failure, run_batch
    from ...engine.pgn import read_games
    from ...engine.progress import Progress

    end = RunEnd(games=games)
    records: List[Dict[str, Any]] = journal.load() if (journal is not None and resume) else []
    skip = len(records)
    submitted: collections.deque = collections.deque()      # numbers sent to the workers
    unreadable: collections.deque = collections.deque()     # (number, reason), in order

    def items() -> Iterator[tuple]:
        for number, game in enumerate(read_games(path), 1):
            if number <= skip:
                continue
            if game.errors:
                unreadable.append((number, "skipping " + "; ".join(map(str, game.errors))))
                continue
            end.read += 1
            submitted.append(number)
            yield item(number, str(game))

    def fail(number: int, reason: str) -> None:
        with held():
            sink.failure(number, reason)
            end.failed += 1
            if journal is not None:
                journal.add({"n": number, "failed": reason})

    def unreadable_before(number: Optional[int]) -> None:
        while unreadable and (number is None or unreadable[0][0] < number):
            fail(*unreadable.popleft())

    try:
        first = 0
        with held():
            for record in records:      # written again: the outputs are new files
                if "failed" in record:
                    sink.failure(record["n"], record["failed"])
                    end.failed += 1
                else:
                    result = sink.decode(record["result"])
                    sink.result(record["n"], result)
                    first += sink.positions(result)
                    end.done += 1
            end.read = end.finished
            if journal is not None:
                journal.start(records)
        progress = Progress(positions, stderr, first=first)
        with contextlib.closing(iter(run_batch(function, items(), jobs=jobs,
                                               ray_address=ray_address))) as outcomes:
            for outcome in outcomes:
                number = submitted.popleft()
                unreadable_before(number)
                if isinstance(outcome, Failure):
                    reason = _reason(outcome.error)
                    if not reason.startswith(f"game {number}:"):
                        reason = f"game {number}: {reason}"
                    fail(number, reason)
                    continue
                with held():
                    sink.result(number, outcome)
                    end.done += 1
                    if journal is not None:
                        journal.add({"n": number, "result": sink.encode(outcome)})
                progress.advance(sink.positions(outcome))
        unreadable_before(None)
    except Interrupted as signal_seen:
        end.interrupted = signal_seen
    except (OutputError, OSError):
        raise                        # an output cannot be written: the command discards them
    except Exception as error:  # a fault of the driver itself: stop as if interrupted
        end.error = f"unexpected {type(error).__name__}: {error}"
    return end


def report_stop(prog: str, end: RunEnd, kept: str, stderr: IO[str] = sys.stderr) -> int:
    """The line a stopped run ends with (how far it got, how to go on); its exit status."""
    cause = end.interrupted.name if end.interrupted is not None else end.error
    stderr.write(f"\n{prog}: stopped by {cause} after {end.finished} of {end.games} games; "
                 f"{kept}; the same command with --resume goes on from game "
                 f"{end.finished + 1}\n")
    stderr.flush()
    if end.interrupted is not None:
        return interrupted_status(end.interrupted.signum)
    return EXIT_FAILED
