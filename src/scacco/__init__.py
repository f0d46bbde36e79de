"""Scacco: a UCI chess engine in Python with a Cython core.

The package is laid out in three layers, each importing only the ones below it:

* ``scacco.ext``: the C-level core (bitboards, move generation, evaluation, search);
* ``scacco.engine``: the Python API (boards, the searcher, playing levels, puzzles);
* ``scacco.uci``: the UCI protocol loop and the ``scacco`` command line.

The public API is re-exported here (``scacco.Board``, ``scacco.Searcher``, ...).  It is
imported on first use, so that ``import scacco`` and the reply to ``uci`` stay fast.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._version import __version__

if TYPE_CHECKING:
    from .engine.board import STARTING_FEN, Board, Outcome, Termination
    from .engine.levels import Level, level_for_elo, level_for_skill, play
    from .engine.mate import mating_moves
    from .engine.limits import SearchLimits
    from .engine.search import SearchInfo, SearchResult, Searcher

# name -> the module (relative to this package) that defines it
_PUBLIC = {
    "Board": ".engine.board",
    "Outcome": ".engine.board",
    "Termination": ".engine.board",
    "STARTING_FEN": ".engine.board",
    "Searcher": ".engine.search",
    "SearchInfo": ".engine.search",
    "SearchResult": ".engine.search",
    "SearchLimits": ".engine.limits",
    "Level": ".engine.levels",
    "level_for_elo": ".engine.levels",
    "level_for_skill": ".engine.levels",
    "play": ".engine.levels",
    "mating_moves": ".engine.mate",
}

__all__ = ["__version__", *_PUBLIC]


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'scacco' has no attribute {name!r}")
    import importlib
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(__all__)
