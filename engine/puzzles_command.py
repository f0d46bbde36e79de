"""`scacco puzzles`: find puzzles in every game of a PGN file, locally or on a Ray cluster.

The file is read twice, streaming: once to count the positions (for the progress line),
once to send the games, one PGN text each, to engine.puzzle_finder.find_puzzles_pgn through
the batch runner (engine/batch.py, the same as `scacco analyse`).  Puzzles go to the CSV as
their games come back, in the file's order, with their themes (engine.themes.tag_puzzle),
in the lichess puzzle database's columns.  A bad game is reported on stderr with its number
and the others go on.
"""
from __future__ import annotations

import csv
import os
import sys
from typing import IO, Iterator, List, Optional

from .analyse_command import _count as count_games
from .batch import Failure, run_batch
from .pgn import read_games
from .progress import Progress
from .puzzle_finder import FinderBudget, FinderError, FoundPuzzle, find_puzzles_pgn
from .themes import tag_puzzle

__all__ = ["CSV_COLUMNS", "find_in_file", "puzzle_row"]

CSV_COLUMNS = ["PuzzleId", "FEN", "Moves", "Rating", "Themes", "GameUrl"]


def puzzle_row(puzzle: FoundPuzzle) -> dict:
    """A found puzzle as a CSV row, its themes tagged."""
    return {"PuzzleId": puzzle.puzzle_id, "FEN": puzzle.fen, "Moves": " ".join(puzzle.moves),
            "Rating": puzzle.rating, "Themes": " ".join(tag_puzzle(puzzle.fen, puzzle.moves)),
            "GameUrl": puzzle.game_url}


def _items(path: str, source: str, budget: FinderBudget, errors: IO[str],
           bad: List[int]) -> Iterator[tuple]:
    for number, game in enumerate(read_games(path), 1):
        if game.errors:
            for error in game.errors:
                errors.write(f"scacco puzzles: {path}: skipping game {number}: {error}\n")
            bad.append(number)
            continue
        yield str(game), budget, number, source


def find_in_file(path: str, out: str, budget: FinderBudget = FinderBudget(), *, jobs: int = 1,
                 ray_address: Optional[str] = None, source: Optional[str] = None,
                 stderr: Optional[IO[str]] = None) -> int:
    """Writes the puzzles of every game of the PGN file at path to the CSV file out; returns
    the exit status (0; 1 when some game could not be searched; 2, writing nothing, when no
    game could be).  The CSV is written to out.part and renamed at the end, so an
    interrupted run leaves an earlier out as it was."""
    stderr = stderr if stderr is not None else sys.stderr
    source = source or path
    _, positions = count_games(path)
    progress = Progress(positions, stderr)
    bad: List[int] = []
    found = searched = 0
    partial = out + ".part"
    with open(partial, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, CSV_COLUMNS)
        writer.writeheader()
        items = _items(path, source, budget, stderr, bad)
        for outcome in run_batch(find_puzzles_pgn, items, jobs=jobs, ray_address=ray_address):
            if isinstance(outcome, Failure):
                error = outcome.error
                stderr.write(f"scacco puzzles: {path}: {error}\n")
                if isinstance(error, FinderError):
                    bad.append(-1)
                    continue
                os.remove(partial)
                raise error
            searched += 1
            for puzzle in outcome.puzzles:
                writer.writerow(puzzle_row(puzzle))
                found += 1
            handle.flush()
            progress.advance(outcome.positions)
    if searched == 0:
        os.remove(partial)
        stderr.write(f"scacco puzzles: {path}: no PGN game could be read; nothing written\n")
        return 2
    os.replace(partial, out)
    stderr.write(f"scacco puzzles: {found} puzzles from {searched} games -> {out}\n")
    return 1 if bad else 0
