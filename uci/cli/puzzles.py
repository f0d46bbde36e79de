"""`scacco puzzles`: find puzzles in every game of a PGN file, locally or on Ray.

Each game goes through the game-by-game driver (uci/cli/runner.py) to engine.trainer.puzzle_finder,
and its puzzles, their themes tagged (engine.trainer.themes.tag_puzzle, in the worker), come back as
CSV rows in the lichess puzzle database's columns.  The CSV is written as the games come back
and renamed over --out when the run ends; an interrupted run renames what it finished and
`--resume` goes on from there.
"""
from __future__ import annotations

import csv
import os
import sys
from dataclasses import dataclass
from typing import Any, Dict, List, Optional

from ...engine.stopping import held, interruptible
from .common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, MAX_NODES, Parser, warn
from .files import (Journal, JournalError, OutputError, OutputFile, check_outputs,
                    input_identity, journal_path)
from .runner import Sink, count_games, report_stop, run_games

__all__ = ["CSV_COLUMNS", "puzzle_row", "find_rows", "main"]

PROG = "scacco puzzles"
CSV_COLUMNS = ["PuzzleId", "FEN", "Moves", "Rating", "Themes", "GameUrl"]


def puzzle_row(puzzle) -> Dict[str, Any]:
    """A found puzzle (engine.trainer.puzzle_finder.FoundPuzzle) as a CSV row, its themes tagged."""
    from ...engine.trainer.themes import tag_puzzle
    return {"PuzzleId": puzzle.puzzle_id, "FEN": puzzle.fen, "Moves": " ".join(puzzle.moves),
            "Rating": puzzle.rating,
            "Themes": " ".join(tag_puzzle(puzzle.fen, puzzle.moves, puzzle.chess960)),
            "GameUrl": puzzle.game_url}


@dataclass
class FoundRows:
    """One game's puzzles as CSV rows, and its positions (for the progress line)."""

    rows: List[Dict[str, Any]]
    positions: int


def find_rows(text: str, budget, number: int, source: str,
              syzygy_path: Optional[str] = None) -> FoundRows:
    """The work of one game (a plain function, run by worker processes and Ray tasks); the
    tables' folders, when given, are opened in the worker."""
    from ...engine.trainer.puzzle_finder import find_puzzles_pgn
    found = find_puzzles_pgn(text, budget, number, source, syzygy_path)
    return FoundRows([puzzle_row(puzzle) for puzzle in found.puzzles], found.positions)


class CsvSink(Sink):
    def __init__(self, out: OutputFile, path: str, stderr) -> None:
        self.out, self.path, self.stderr = out, path, stderr
        self.writer = csv.DictWriter(out, CSV_COLUMNS)
        self.writer.writeheader()
        self.found = 0

    def result(self, number: int, rows: FoundRows) -> None:
        self.writer.writerows(rows.rows)
        self.out.flush()
        self.found += len(rows.rows)

    def failure(self, number: int, reason: str) -> None:
        self.stderr.write(f"{PROG}: {self.path}: {reason}\n")
        self.stderr.flush()

    def encode(self, rows: FoundRows) -> Dict[str, Any]:
        return {"rows": rows.rows, "positions": rows.positions}

    def decode(self, data: Dict[str, Any]) -> FoundRows:
        return FoundRows(data["rows"], data["positions"])

    def positions(self, rows: FoundRows) -> int:
        return rows.positions


def parser() -> Parser:
    from ...engine.trainer.puzzle_finder import FinderBudget
    defaults = FinderBudget()
    p = Parser(prog=PROG,
               description="Find puzzles in games: positions where exactly one move wins or "
                           "mates and the line stays forcing. CSV in the lichess puzzle "
                           "database's columns (PuzzleId,FEN,Moves,Rating,Themes,GameUrl); "
                           "progress on stderr.")
    p.add_argument("pgn", metavar="GAMES.pgn", help="the games")
    p.add_argument("--out", required=True, metavar="PUZZLES.csv", help="the CSV to write")
    factor = defaults.pair_nodes // defaults.scan_nodes
    p.bounded("--nodes", low=1, high=MAX_NODES // factor, default=defaults.scan_nodes,
              metavar="N", help=f"nodes per game position (default {defaults.scan_nodes}); a "
                                f"puzzle's moves get {factor} times as many")
    p.add_syzygy_path("judge the positions these Syzygy tables hold by the tables: a puzzle "
                      "there needs exactly one move that keeps the win")
    p.add_resume()
    p.add_jobs()
    p.add_ray("search the games")
    return p


def main(argv, stderr=None) -> int:
    from ...engine.trainer.puzzle_finder import FinderBudget

    stderr = stderr if stderr is not None else sys.stderr
    p = parser()
    args = p.parse_args(argv)
    p.input_file(args.pgn)
    p.check_ray(args.ray)
    jobs = p.jobs(args)
    tablebase = p.tablebase(args.syzygy_path)
    # the folders in full: the workers open the tables themselves
    syzygy_path = (None if tablebase is None else
                   os.pathsep.join(os.path.abspath(folder) for folder in tablebase.folders))
    problem = check_outputs([args.pgn], [("--out", args.out)])
    if problem:
        p.error(problem)
    defaults = FinderBudget()
    factor = defaults.pair_nodes // defaults.scan_nodes
    budget = FinderBudget(scan_nodes=args.nodes, pair_nodes=args.nodes * factor)
    journal = Journal(journal_path(args.out), {
        "command": "puzzles", "input": input_identity(args.pgn),
        "settings": dict(budget.__dict__, **({"syzygy_path": syzygy_path}
                                             if syzygy_path else {})),
        "outputs": [["--out", os.path.abspath(args.out)]]})
    if args.resume:
        try:
            journal.load()
        except JournalError as error:
            p.error(str(error))
    games, positions = count_games(args.pgn, PROG)
    try:
        out = OutputFile("--out", args.out, newline="")
    except OutputError as error:
        p.error(str(error))
    sink = CsvSink(out, args.pgn, stderr)
    try:
        with interruptible():
            end = run_games(args.pgn, find_rows,
                            lambda number, text: ((text, budget, number, args.pgn)
                                                  + ((syzygy_path,) if syzygy_path else ())),
                            sink,
                            journal=journal, resume=args.resume, jobs=jobs,
                            ray_address=args.ray, stderr=stderr, games=games,
                            positions=positions)
            with held(raise_after=False):
                if end.read == 0 and not end.stopped:
                    out.discard()
                    journal.close(finished=True)
                    warn(PROG, f"{args.pgn}: no PGN game could be read; nothing written")
                    return EXIT_USAGE
                out.commit()
    except (OutputError, OSError) as error:
        journal.close(finished=False)
        warn(PROG, f"{error}; {args.out} is unchanged; --resume goes on from the games recorded")
        return EXIT_FAILED
    finally:
        out.discard()                 # what was not committed (a fault) leaves no trace
    journal.close(finished=not end.stopped)
    if end.stopped:
        return report_stop(PROG, end, f"the puzzles of the finished games are in {args.out}",
                           stderr)
    warn(PROG, f"{sink.found} puzzles from {end.done} games -> {args.out}")
    return EXIT_FAILED if end.failed else EXIT_OK
