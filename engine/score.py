"""The one home of score units: how the search's raw centipawns become the normalised ones
everybody downstream reads (UCI `score cp`, the analysis, hints, puzzles), and the
winning-chances curve on normalised centipawns.

Each evaluation has its own scale (cp_scale): the raw units of the classical evaluation and
of the network differ.  Normalised centipawns are meant to read as Stockfish's do (+100 about
a 50% chance to win); bench/cp_scale_fit.py measures ours against Stockfish 15.1's.
"""
from __future__ import annotations

import math

__all__ = ["WIN_SCALE_X50", "CP_SCALE", "NETWORK_WIN_SCALE_X50", "NETWORK_CP_SCALE", "cp_scale",
           "WIN_MULTIPLIER", "winning_chances"]

# Scacco centipawns -> normalised centipawns (+100: 50% to win).  WIN_SCALE_X50 is where the
# logistic fit of P(win) against the score of Scacco's self-play with the classical evaluation
# crosses 50% (bench/fit_win_scale.py; the games and the fit are in docs/results/analysis.md).
WIN_SCALE_X50 = 128.3
CP_SCALE = 100.0 / WIN_SCALE_X50
# The same fit for the search with the packaged network (bench/fit_win_scale.py --network).
# In the network's self-play a given score wins less often than in the classical one's (more
# draws), so each evaluation has its own scale.
NETWORK_WIN_SCALE_X50 = 207.5
NETWORK_CP_SCALE = 100.0 / NETWORK_WIN_SCALE_X50

# lichess's WinPercent logistic: its slope on normalised centipawns.
WIN_MULTIPLIER = -0.00368208


def cp_scale(network) -> float:
    """The factor from the centipawns of a search evaluating with `network` to normalised
    ones: CP_SCALE for the classical evaluation (None), NETWORK_CP_SCALE for a network (fitted
    on the packaged one; another network is taken to read in the same units, which the
    trainer's --calibrate-scale gives it)."""
    return CP_SCALE if network is None else NETWORK_CP_SCALE


def winning_chances(cp: float) -> float:
    """lichess's winning chances of the side with cp normalised centipawns, on -1..1."""
    return max(-1.0, min(1.0, 2.0 / (1.0 + math.exp(WIN_MULTIPLIER * cp)) - 1.0))
