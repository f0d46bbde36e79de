"""The one home of score units: how the search's raw centipawns become the normalised ones
everybody downstream reads (UCI `score cp`, the analysis, hints, puzzles), the win-draw-loss
model of the evaluation bar (UCI_ShowWDL), and the winning-chances curve on normalised
centipawns.

Normalised centipawns read as Stockfish 15.1's do: each evaluation's raw units are put on
Stockfish's scale by a factor that depends on the material left (the evaluations read
middlegames and endgames differently from Stockfish), fitted by bench/cp_scale_fit.py on
positions of real games.  The playing levels work in raw units and never read these.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Tuple

__all__ = ["Scale", "NETWORK_SCALE", "CLASSICAL_SCALE", "scale_of", "material", "normalised_cp",
           "WdlModel", "WDL_MODEL", "POWER_LOW", "POWER_HIGH", "wdl", "WIN_MULTIPLIER",
           "winning_chances"]

# Material as the scale and the WDL model count it: both sides' pieces at 1, 3, 3, 5, 9 (pawn,
# knight, bishop, rook, queen), kings not counted; 78 in the starting position.
PIECE_MATERIAL = {"p": 1, "n": 3, "b": 3, "r": 5, "q": 9}


def material(board) -> int:
    """The material of `board` (a Board or CoreBoard; anything with fen())."""
    placement = board.fen().split(" ", 1)[0].lower()
    return sum(PIECE_MATERIAL.get(ch, 0) for ch in placement)


@dataclass(frozen=True)
class Scale:
    """Stockfish centipawns of one evaluation's raw units: a straight line of slope
    factor(material) up to `knee` raw units in size, then a curve through the same point that
    grows as |raw| ** exponent (the evaluations' large scores grow faster than Stockfish's).
    The factor is `middlegame` at `full` material and above, `endgame` at `bare` and below,
    linear between."""

    middlegame: float
    endgame: float
    full: int = 60
    bare: int = 20
    knee: float = math.inf
    exponent: float = 1.0

    def factor(self, material: int) -> float:
        share = (min(max(material, self.bare), self.full) - self.bare) / (self.full - self.bare)
        return self.endgame + (self.middlegame - self.endgame) * share

    def to_cp(self, raw: float, material: int) -> float:
        """Raw units in a position of `material` as Stockfish centipawns (unrounded)."""
        size = abs(raw)
        if size > self.knee:
            size = self.knee * (size / self.knee) ** self.exponent
        return math.copysign(self.factor(material) * size, raw)

    def to_raw(self, cp: float, material: int) -> float:
        """The inverse of to_cp: the raw units that read `cp` centipawns."""
        size = abs(cp) / self.factor(material)
        if size > self.knee:
            size = self.knee * (size / self.knee) ** (1.0 / self.exponent)
        return math.copysign(size, cp)


# The packaged network's raw units and the classical evaluation's (bench/cp_scale_fit.py: the
# curve whose winning chances come closest, in squares, to those of Stockfish 15.1's score on
# the same positions, its knee, exponent and two ends found on a grid; the figures and the
# held-out check are in docs/results/analysis.md).  Both evaluations read scores beyond a few
# pawns much larger than Stockfish does.
NETWORK_SCALE = Scale(middlegame=1.19, endgame=0.98, full=78, bare=20, knee=400, exponent=0.5)
CLASSICAL_SCALE = Scale(middlegame=1.38, endgame=1.34, full=78, bare=20, knee=300, exponent=0.46)


def scale_of(network) -> Scale:
    """The scale of a search evaluating with `network` (None: the classical evaluation).  Any
    network is taken to read in the packaged one's units (the trainer's --calibrate-scale
    gives it those)."""
    return CLASSICAL_SCALE if network is None else NETWORK_SCALE


# A normalised score stays below 10000 in size, where GUIs and our own tests expect the
# centipawn range to end.
CP_LIMIT = 9999


def normalised_cp(raw: int, network, material: int) -> int:
    """Raw centipawns of a search with `network` in a position of `material`, normalised."""
    return max(-CP_LIMIT, min(CP_LIMIT, round(scale_of(network).to_cp(raw, material))))


# The range the WDL model's power is held in, where a polynomial of the material would leave it
# (and the range its fit searches).
POWER_LOW, POWER_HIGH = 0.2, 2.0


@dataclass(frozen=True)
class WdlModel:
    """Stockfish's shape of win-draw-loss model on a bent score: with v the score in the
    packaged network's raw units, x the material clamped to [low, high] over norm, and a, b
    polynomials of x (coefficients from the constant term up), P(win) = 1 / (1 + exp((a(x) -
    g(v)) / b(x))), P(loss) the same at -v, the draw the rest, where g(v) = sign(v) * 100 *
    (|v| / 100) ** k(x), with k a polynomial of x too (a single number when it has one
    coefficient), kept within [POWER_LOW, POWER_HIGH].  At power 1 that is Stockfish's model;
    below 1 the win chance rises sooner from a small edge and saturates later, as the games
    say, and the more so the less material is left."""

    a: Tuple[float, ...]
    b: Tuple[float, ...]
    low: int
    high: int
    norm: float = 58.0
    power: Tuple[float, ...] = (1.0,)

    def _at(self, coefficients: Tuple[float, ...], material: int) -> float:
        """The polynomial of `coefficients` at x, the material clamped and over norm."""
        x = min(max(material, self.low), self.high) / self.norm
        return sum(c * x ** i for i, c in enumerate(coefficients))

    def parameters(self, material: int) -> Tuple[float, float]:
        return self._at(self.a, material), self._at(self.b, material)

    def exponent(self, material: int) -> float:
        """k(x): the power the score is bent by at `material`."""
        return min(max(self._at(self.power, material), POWER_LOW), POWER_HIGH)

    def bent(self, v: float, material: int) -> float:
        """g(v): the score as the model's logistic reads it at `material`."""
        return math.copysign(100.0 * (abs(v) / 100.0) ** self.exponent(material), v)

    def per_mille(self, v: float, material: int) -> Tuple[int, int, int]:
        a, b = self.parameters(material)

        def chance(x: float) -> float:
            z = (a - self.bent(x, material)) / b
            return 0.0 if z > 700 else 1.0 / (1.0 + math.exp(z))
        win = round(1000 * chance(v))
        loss = min(round(1000 * chance(-v)), 1000 - win)
        return win, 1000 - win - loss, loss


# Fitted by bench/wdl_fit.py on Scacco's own games at 10+0.1 (the games, the fit and the
# calibration table are in docs/results/analysis.md).
WDL_MODEL = WdlModel(a=(261.226, -535.428, 686.841, -278.969),
                     b=(12.851, 18.067, 53.465, -28.492), low=17, high=78, norm=58,
                     power=(0.3531, 0.4941))


def wdl(cp: int, material: int) -> Tuple[int, int, int]:
    """(win, draw, loss) per mille, summing to 1000, of the side with `cp` normalised
    centipawns in a position of `material`."""
    return WDL_MODEL.per_mille(NETWORK_SCALE.to_raw(cp, material), material)


# lichess's WinPercent logistic: its slope on normalised centipawns.
WIN_MULTIPLIER = -0.00368208


def winning_chances(cp: float) -> float:
    """lichess's winning chances of the side with cp normalised centipawns, on -1..1."""
    return max(-1.0, min(1.0, 2.0 / (1.0 + math.exp(WIN_MULTIPLIER * cp)) - 1.0))
