"""Precision and recall of the theme predicates (engine.trainer.themes) on lichess-labelled puzzles.

    python bench/theme_precision.py [--csv ../shared/data/puzzle-themes.csv]

The CSV holds lichess puzzles, each with one theme and whether the puzzle has it
(HasTheme True/False).  For each theme: TP (we say yes, it has it), FP (we say yes, it does
not), FN, TN, precision TP/(TP+FP) and recall TP/(TP+FN), and whether tag_puzzle claims it
(engine.trainer.themes.CLAIMED_THEMES).  The CSV's names are lichess's older snake_case ones; the two
pin kinds are measured by their own predicates (lichess tags both as "pin").
"""
from __future__ import annotations

import argparse
import csv
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scacco.engine import themes  # noqa: E402

# the CSV's theme -> (our name, the predicate measured); None: we have no predicate
NAMES = {
    "attraction": ("attraction", themes.attraction),
    "back_rank_mate": ("backRankMate", themes.back_rank_mate),
    "deflection": ("deflection", themes.deflection),
    "discovered_attack": ("discoveredAttack", themes.discovered_attack),
    "fork": ("fork", themes.fork),
    "hanging_piece": ("hangingPiece", themes.hanging_piece),
    "pin_prevents_attack": ("pin (prevents attack)", themes.pin_prevents_attack),
    "pin_prevents_escape": ("pin (prevents escape)", themes.pin_prevents_escape),
    "sacrifice": ("sacrifice", themes.sacrifice),
    "skewer": ("skewer", themes.skewer),
    "trapped_piece": ("trappedPiece", themes.trapped_piece),
    "under_promotion": ("underPromotion", themes.under_promotion),
    "quiet_move": ("quietMove", themes.quiet_move),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--csv", default=str(ROOT.parent / "shared" / "data" / "puzzle-themes.csv"))
    args = parser.parse_args()
    counts = defaultdict(lambda: [0, 0, 0, 0])        # TP FP FN TN
    missing = set()
    with open(args.csv, newline="") as handle:
        for row in csv.DictReader(handle):
            entry = NAMES.get(row["Theme"])
            if entry is None:
                missing.add(row["Theme"])
                continue
            name, predicate = entry
            line = themes.Line(row["FEN"], row["Moves"].split())
            said, truth = predicate(line), row["HasTheme"] == "True"
            counts[name][(0 if truth else 1) if said else (2 if truth else 3)] += 1
    print(f"{'theme':<24} {'TP':>3} {'FP':>3} {'FN':>3} {'TN':>3} {'precision':>9} {'recall':>7}  claimed")
    for name in sorted(counts):
        tp, fp, fn, tn = counts[name]
        precision = f"{tp / (tp + fp):.0%}" if tp + fp else "-"
        recall = f"{tp / (tp + fn):.0%}" if tp + fn else "-"
        claimed = name.split(" ")[0] in themes.CLAIMED_THEMES
        print(f"{name:<24} {tp:>3} {fp:>3} {fn:>3} {tn:>3} {precision:>9} {recall:>7}  {'yes' if claimed else 'no'}")
    print("(tag_puzzle reports \"pin\" when either pin kind holds)")
    if missing:
        print("not measured (no predicate): " + ", ".join(sorted(missing)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
