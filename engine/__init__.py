"""Scacco's public Python API: the board, the searcher and its limits.

Everything that runs per search node lives in the Cython core (`scacco.ext`); this package is
the facade that feels like python-chess, plus the once-per-iteration driver of the search.
Inside it the modules form layers: board, then puzzles (mate proofs), then search, then levels
(a playing strength wraps a searcher; the searcher does not know levels exist).
"""
from .._version import __version__
from .board import STARTING_FEN, Board, Outcome, Termination

__all__ = ["Board", "Outcome", "Termination", "STARTING_FEN", "__version__"]
