"""Scacco's public Python API: the board, the searcher and its limits.

Everything that runs per search node lives in the Cython core (`ext`); this package is the
facade that feels like python-chess, plus the once-per-iteration driver of the search.
"""
from engine.board import STARTING_FEN, Board, Outcome, Termination

__all__ = ["Board", "Outcome", "Termination", "STARTING_FEN"]
__version__ = "0.1.0"
