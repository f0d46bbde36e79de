"""The puzzle of the day: the same puzzle for everyone on a date, from the shipped collection.

The collection is engine/data/puzzles.csv (package data; bench/make_puzzle_collection.py
makes it, see docs/puzzles.md).  The day's puzzle is row SHA-256(ISO date) mod the number of rows,
so every installation with the same collection picks the same one, and nearby dates are not
nearby rows.
"""
from __future__ import annotations

import csv
import datetime
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from . import hint_text
from ..board import board_from_fen
from .hints import puzzle_hints

__all__ = ["COLLECTION", "DailyError", "CollectionPuzzle", "load_collection", "daily_puzzle",
           "format_daily"]

COLLECTION = Path(__file__).resolve().parents[1] / "data" / "puzzles.csv"


class DailyError(ValueError):
    """The collection is missing or unreadable, or the date is not a date."""


@dataclass(frozen=True)
class CollectionPuzzle:
    puzzle_id: str
    fen: str
    moves: List[str]
    rating: int
    themes: List[str]
    game_url: str

    def hints(self) -> List[str]:
        return puzzle_hints(self.fen, self.moves, self.themes)


def load_collection(path: Optional[Path] = None) -> List[CollectionPuzzle]:
    """Every puzzle of the collection, in file order.  :raises DailyError: if unreadable."""
    path = Path(path) if path is not None else COLLECTION
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        puzzles = [CollectionPuzzle(r["PuzzleId"], r["FEN"], r["Moves"].split(), int(r["Rating"]),
                                    r["Themes"].split(), r["GameUrl"]) for r in rows]
    except (OSError, KeyError, ValueError) as error:
        raise DailyError(f"cannot read the puzzle collection {path}: {error}") from None
    if not puzzles:
        raise DailyError(f"the puzzle collection {path} is empty")
    return puzzles


def daily_puzzle(date: datetime.date, path: Optional[Path] = None) -> CollectionPuzzle:
    """The puzzle of a date (see the module docstring).  :raises DailyError: on a date that
    is not a datetime.date, or an unreadable collection."""
    if not isinstance(date, datetime.date):
        raise DailyError(f"not a date: {date!r}")
    puzzles = load_collection(path)
    digest = int(hashlib.sha256(date.isoformat().encode()).hexdigest(), 16)
    return puzzles[digest % len(puzzles)]


def format_daily(puzzle: CollectionPuzzle, date: datetime.date, solution: bool = False,
                 language: str = hint_text.DEFAULT_LANGUAGE) -> str:
    """The text `scacco puzzle` prints: title, the position to solve, themes, three hints,
    and the solution (SAN) when asked."""
    board = board_from_fen(puzzle.fen)
    first_san = board.san(puzzle.moves[0])
    board.push_uci(puzzle.moves[0])
    side = hint_text.text("side:white" if board.turn else "side:black", language)
    lines = [hint_text.text("daily_title", language, date=date.isoformat(), id=puzzle.puzzle_id,
                            rating=puzzle.rating),
             hint_text.text("daily_to_move", language, side=side, move=first_san),
             f"FEN: {board.fen()}",
             hint_text.text("daily_themes", language, themes=" ".join(puzzle.themes) or "-")]
    for n, text in enumerate(puzzle_hints(puzzle.fen, puzzle.moves, puzzle.themes, language), 1):
        lines.append(hint_text.text("daily_hint", language, n=n, text=text))
    if solution:
        lines.append(hint_text.text("daily_solution", language,
                                    line=" ".join(board.line_san(puzzle.moves[1:]))))
    return "\n".join(lines)
