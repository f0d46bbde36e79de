"""How good a move was: lichess's Win%, accuracy and move judgements.

Each formula is one small pure function with its constants named, the way lichess's lila
keeps them (WinPercent, AccuracyPercent, Advice, AccuracyCP), so the analysis only composes
them and the tests check each one against numbers worked out by hand.  Scores here are
"normalised" centipawns (engine/score.py), the scale lichess's formulas were fitted to
(Stockfish's).

Mates.  Win% counts a forced mate as +-CP_CEILING centipawns (lichess's `fromMate`).  A
move is judged on winning chances when the evaluations before and after it are both
centipawns; when a mate score is involved, lichess's mate rules apply instead (`MateAdvice`):
walking into a forced mate ("Checkmate is now unavoidable") is a blunder, a mistake if the
mover's evaluation before was already below -MATE_SOFT_CP, an inaccuracy below
-MATE_SOFTER_CP; losing a forced mate the mover had ("Lost forced checkmate sequence", to no
mate or to being mated) is a blunder, a mistake if the evaluation after is still above
+MATE_SOFT_CP, an inaccuracy above +MATE_SOFTER_CP; a longer mate than the best (lichess's
"Not the best checkmate sequence") is not judged.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable, List, Optional, Sequence, Tuple

from ..score import winning_chances

__all__ = [
    "Eval", "CP_CEILING",
    "INACCURACY", "MISTAKE", "BLUNDER",
    "BLUNDER_DROP", "MISTAKE_DROP", "INACCURACY_DROP",
    "JUDGEMENT_THRESHOLDS", "MATE_CREATED", "MATE_LOST", "NAGS",
    "winning_chance_drop", "win_percent", "eval_win_percent", "move_accuracy", "judge_cp",
    "judge_mate", "judge", "centipawn_loss", "mean", "weighted_mean", "harmonic_mean",
    "standard_deviation", "accuracy_window", "game_accuracy", "average_centipawn_loss",
]

# lichess's WinPercent: centipawns are clamped to +-CP_CEILING (the logistic is
# engine.score.winning_chances).
CP_CEILING = 1000

# lichess's AccuracyPercent: accuracy = A * exp(-K * drop in Win%) + B (clamped to 0..100).
ACCURACY_A = 103.1668
ACCURACY_K = 0.04354
ACCURACY_B = -3.1669

# lichess's Advice: a drop in the mover's winning chances (-1..1) of at least this much.
INACCURACY = "inaccuracy"
MISTAKE = "mistake"
BLUNDER = "blunder"
BLUNDER_DROP, MISTAKE_DROP, INACCURACY_DROP = 0.3, 0.2, 0.1
JUDGEMENT_THRESHOLDS: Tuple[Tuple[float, str], ...] = (
    (BLUNDER_DROP, BLUNDER), (MISTAKE_DROP, MISTAKE), (INACCURACY_DROP, INACCURACY))
NAGS = {INACCURACY: 6, MISTAKE: 2, BLUNDER: 4}      # ?!  ?  ??
GLYPHS = {INACCURACY: "?!", MISTAKE: "?", BLUNDER: "??"}

# lichess's MateAdvice: the mate sequences, and the mover's centipawns that soften them.
MATE_CREATED = "Checkmate is now unavoidable"
MATE_LOST = "Lost forced checkmate sequence"
MATE_SOFT_CP = 700
MATE_SOFTER_CP = 999

# lichess's gameAccuracy: the volatility window is a tenth of the moves, within WINDOW_MIN..
# WINDOW_MAX, and a window's weight (its Win% standard deviation) is clamped to WEIGHT_MIN..
# WEIGHT_MAX.
WINDOW_MIN, WINDOW_MAX = 2, 8
WEIGHT_MIN, WEIGHT_MAX = 0.5, 12.0
# The average centipawn loss caps each move's loss.
CP_LOSS_CAP = 1000


@dataclass(frozen=True)
class Eval:
    """An evaluation from White's side: `cp` normalised centipawns, or `mate` in moves
    (> 0 White mates, < 0 Black mates).  A checkmate on the board is mate 0 with `winner`
    (True: White gave mate).  `wdl` is White's (win, draw, loss) per mille where the
    analysis has it (engine.score.wdl); it takes no part in comparisons.  `tablebase` is
    the Syzygy tables' verdict when the position is in them ("White wins", "Black wins",
    "draw"; see engine/review/analysis.py), None otherwise."""

    cp: Optional[int] = None
    mate: Optional[int] = None
    winner: Optional[bool] = None
    wdl: Optional[Tuple[int, int, int]] = field(default=None, compare=False)
    tablebase: Optional[str] = field(default=None, compare=False)

    @property
    def mate_sign(self) -> int:
        """+1 when White mates, -1 when Black mates, 0 for a centipawn evaluation."""
        if self.mate is None:
            return 0
        if self.mate == 0:
            return 1 if self.winner else -1
        return 1 if self.mate > 0 else -1

    def for_side(self, white: bool) -> "Eval":
        """The same evaluation from one side's view (White's unchanged, Black's negated)."""
        if white:
            return self
        wdl = None if self.wdl is None else tuple(reversed(self.wdl))
        if self.mate is not None:
            return Eval(mate=-self.mate, winner=None if self.winner is None else not self.winner,
                        wdl=wdl, tablebase=self.tablebase)
        return Eval(cp=-self.cp if self.cp is not None else None, wdl=wdl,
                    tablebase=self.tablebase)

    def as_cp(self) -> int:
        """Centipawns clamped to +-CP_CEILING, a mate counting as the ceiling."""
        if self.mate is not None:
            return CP_CEILING * self.mate_sign
        return max(-CP_CEILING, min(CP_CEILING, self.cp or 0))

    def pgn(self) -> str:
        """The %eval text: pawns with two decimals (0.35, -1.20), or #N / #-N for mates;
        empty for a checkmate on the board (PGN has no spelling for "mated" with a side)."""
        if self.mate is not None:
            return f"#{self.mate}" if self.mate else ""
        return f"{self.cp / 100:.2f}"

    def short(self) -> str:
        """For reports: pawns with one decimal (-4.1) or #N / #-N; a tablebase win as
        TB 1-0 / TB 0-1."""
        if self.tablebase is not None and self.mate is None and self.cp:
            return "TB 1-0" if self.cp > 0 else "TB 0-1"
        if self.mate is not None:
            return f"#{self.mate}" if self.mate else ("1-0" if self.winner else "0-1")
        return f"{self.cp / 100:+.1f}" if self.cp else "0.0"


def win_percent(cp: float) -> float:
    """lichess's Win% (0..100) of the side with cp centipawns, clamped to +-CP_CEILING."""
    return 50.0 + 50.0 * winning_chances(max(-CP_CEILING, min(CP_CEILING, cp)))


def eval_win_percent(evaluation: Eval) -> float:
    """White's Win% for an evaluation; a forced mate counts as +-CP_CEILING centipawns."""
    return win_percent(evaluation.as_cp())


def move_accuracy(win_before: float, win_after: float) -> float:
    """lichess's accuracy (0..100) of a move from the mover's Win% before and after it;
    100 when the move did not lower it.  (lila's code adds a one-point "uncertainty bonus"
    on top of the published formula; we keep the published formula.)"""
    if win_after >= win_before:
        return 100.0
    raw = ACCURACY_A * math.exp(-ACCURACY_K * (win_before - win_after)) + ACCURACY_B
    return max(0.0, min(100.0, raw))


def winning_chance_drop(before: Eval, after: Eval, white_moved: bool) -> float:
    """The mover's drop in winning chances (-2..2) from before to after (White's view):
    centipawns unclamped, as judge_cp (lichess's CpAdvice) takes them, and a forced mate as
    chances of +-1."""
    def chances(evaluation: Eval) -> float:
        if evaluation.mate is not None:
            return float(evaluation.mate_sign)
        return winning_chances(evaluation.cp or 0)

    change = chances(before) - chances(after)
    return change if white_moved else -change


def judge_cp(cp_before: float, cp_after: float, white_moved: bool) -> Optional[str]:
    """lichess's CpAdvice: the judgement of a move from White's-view centipawns before and
    after it, by the drop in the mover's winning chances; None when the drop is below
    INACCURACY_DROP."""
    drop = winning_chances(cp_before) - winning_chances(cp_after)
    if not white_moved:
        drop = -drop
    for threshold, judgement in JUDGEMENT_THRESHOLDS:
        if drop >= threshold:
            return judgement
    return None


def judge_mate(before: Eval, after: Eval, white_moved: bool) -> Optional[Tuple[str, str]]:
    """lichess's MateAdvice: (judgement, mate sequence) when the move walked into a forced
    mate or lost one the mover had, else None.  Evaluations are White's view."""
    mine_before = before.for_side(white_moved)
    mine_after = after.for_side(white_moved)
    had_mate = mine_before.mate is not None and mine_before.mate_sign > 0
    mated_after = mine_after.mate is not None and mine_after.mate_sign < 0
    cp_before = mine_before.cp if mine_before.mate is None else 0
    cp_after = mine_after.cp if mine_after.mate is None else 0
    if mine_before.mate is None and mated_after:
        if cp_before < -MATE_SOFTER_CP:
            return INACCURACY, MATE_CREATED
        if cp_before < -MATE_SOFT_CP:
            return MISTAKE, MATE_CREATED
        return BLUNDER, MATE_CREATED
    if had_mate and (mine_after.mate is None or mated_after):
        if cp_after > MATE_SOFTER_CP:
            return INACCURACY, MATE_LOST
        if cp_after > MATE_SOFT_CP:
            return MISTAKE, MATE_LOST
        return BLUNDER, MATE_LOST
    return None


def judge(before: Eval, after: Eval, white_moved: bool) -> Tuple[Optional[str], Optional[str]]:
    """lichess's Advice: (judgement or None, mate sequence or None) for one move; the
    winning-chance rule when both evaluations are centipawns, else the mate rules."""
    if before.mate is None and after.mate is None:
        return judge_cp(before.cp, after.cp, white_moved), None
    verdict = judge_mate(before, after, white_moved)
    return (verdict[0], verdict[1]) if verdict else (None, None)


def centipawn_loss(before: Eval, after: Eval, white_moved: bool) -> int:
    """The mover's loss in centipawns (mates as +-CP_CEILING, evaluations clamped to it),
    never negative and capped at CP_LOSS_CAP."""
    loss = before.as_cp() - after.as_cp()
    if not white_moved:
        loss = -loss
    return max(0, min(CP_LOSS_CAP, loss))


def mean(values: Sequence[float]) -> Optional[float]:
    return sum(values) / len(values) if values else None


def weighted_mean(pairs: Sequence[Tuple[float, float]]) -> Optional[float]:
    """Sum of value * weight over the sum of weights; None when empty or weightless."""
    total = sum(w for _, w in pairs)
    return sum(v * w for v, w in pairs) / total if pairs and total else None


def harmonic_mean(values: Sequence[float]) -> Optional[float]:
    """lichess's harmonic mean: each value counts as at least 1 (so a 0% move is finite)."""
    return len(values) / sum(1.0 / max(1.0, v) for v in values) if values else None


def standard_deviation(values: Sequence[float]) -> float:
    """The population standard deviation (0 for no values)."""
    if not values:
        return 0.0
    centre = sum(values) / len(values)
    return math.sqrt(sum((v - centre) ** 2 for v in values) / len(values))


def accuracy_window(moves: int) -> int:
    """The volatility window of lichess's game accuracy: a tenth of the moves, in
    WINDOW_MIN..WINDOW_MAX."""
    return max(WINDOW_MIN, min(WINDOW_MAX, moves // 10))


def game_accuracy(win_percents: Sequence[float], white_first: bool = True
                  ) -> Tuple[Optional[float], Optional[float]]:
    """lichess's game accuracy per side, (White, Black), from White's Win% of every position
    (the start and after each move): the mean of the volatility-weighted mean of the move
    accuracies (each move weighted by the standard deviation of Win% over the window that
    ends after it, clamped; the first moves share the first window) and their harmonic
    mean.  None for a side without moves."""
    moves = len(win_percents) - 1
    if moves < 1:
        return None, None
    size = accuracy_window(moves)
    sliding = [win_percents[i:i + size] for i in range(0, len(win_percents) - size + 1)]
    windows: List[Sequence[float]] = [win_percents[:size]] * (min(size, len(win_percents)) - 2)
    windows += sliding
    weights = [max(WEIGHT_MIN, min(WEIGHT_MAX, standard_deviation(w))) for w in windows]
    per_side: dict = {True: [], False: []}
    for i in range(moves):
        white = (i % 2 == 0) == white_first
        before, after = win_percents[i], win_percents[i + 1]
        if not white:
            before, after = 100.0 - before, 100.0 - after
        per_side[white].append((move_accuracy(before, after), weights[i]))

    def side(pairs: List[Tuple[float, float]]) -> Optional[float]:
        if not pairs:
            return None
        return (weighted_mean(pairs) + harmonic_mean([a for a, _ in pairs])) / 2

    return side(per_side[True]), side(per_side[False])


def average_centipawn_loss(losses: Iterable[int]) -> Optional[int]:
    """The rounded mean of a side's centipawn losses; None without moves."""
    values = list(losses)
    return round(sum(values) / len(values)) if values else None
