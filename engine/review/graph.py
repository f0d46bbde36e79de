"""The evaluation graph of an analysed game: White's Win% per ply as a PNG (matplotlib, the
optional `plot` extra).

White's advantage is drawn above the middle line (50%), Black's below; mistakes and blunders
are marked on the point after the move; the axis counts moves.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import accuracy as acc

if TYPE_CHECKING:
    from .analysis import GameAnalysis

__all__ = ["plot_game", "PLOT_EXTRA"]

PLOT_EXTRA = "pip install 'scacco[plot]'  (matplotlib)"
MARKS = {acc.MISTAKE: ("#e69f00", "mistake"), acc.BLUNDER: ("#d55e00", "blunder")}


def plot_game(analysis: "GameAnalysis", path: str) -> None:
    """Writes the Win% graph of one game to path (PNG).

    :raises ImportError: when matplotlib is not installed.
    """
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plies = list(range(len(analysis.moves) + 1))
    white = [acc.eval_win_percent(analysis.start)] + [m.win_after for m in analysis.moves]
    # the x of the position after a move: the ply count from the game's start (Black to move
    # first starts at 1)
    offset = 0 if not analysis.moves or analysis.moves[0].white else 1
    xs = [p + offset for p in plies]
    figure, axes = plt.subplots(figsize=(9, 3.2), dpi=100)
    try:
        axes.fill_between(xs, 50, white, where=[w >= 50 for w in white], interpolate=True,
                          color="#f0f0f0", edgecolor="none")
        axes.fill_between(xs, 50, white, where=[w <= 50 for w in white], interpolate=True,
                          color="#404040", edgecolor="none")
        axes.plot(xs, white, color="#1f4e79", linewidth=1.2)
        axes.axhline(50, color="#888888", linewidth=0.8)
        for judgement, (colour, label) in MARKS.items():
            points = [(m.ply + 1 + offset, m.win_after) for m in analysis.moves
                      if m.judgement == judgement]
            if points:
                axes.scatter([p[0] for p in points], [p[1] for p in points], color=colour,
                             s=28, zorder=3, label=f"{label} ({len(points)})",
                             edgecolors="black", linewidths=0.5)
        axes.set_ylim(0, 100)
        axes.set_xlim(0, max(xs[-1], 2))
        last_move = (xs[-1] + 1) // 2
        step = max(1, round(last_move / 12 / 5) * 5) if last_move > 12 else 1
        numbers = list(range(1, last_move + 1, step))
        axes.set_xticks([2 * (n - 1) for n in numbers])
        axes.set_xticklabels([str(n) for n in numbers])
        axes.set_xlabel("move")
        axes.set_ylabel("White's Win %")
        axes.set_yticks([0, 25, 50, 75, 100])
        h = analysis.headers
        axes.set_title(f"{h.get('White', '?')} - {h.get('Black', '?')}  {analysis.result}",
                       fontsize=10)
        if any(m.judgement in MARKS for m in analysis.moves):
            axes.legend(loc="upper left", fontsize=8, framealpha=0.9)
        figure.tight_layout()
        figure.savefig(path, format="png")
    finally:
        plt.close(figure)
