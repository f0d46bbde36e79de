"""How close does a network's static evaluation come to Stockfish's on positions of real games?

    python bench/network_vs_stockfish.py NET.nnue [OTHER.nnue ...] [--cache bench/quality/cp-scale.jsonl]

A ruler for network candidates that is not their own self-play: the positions of
bench/cp_scale_fit.py's cache (real games of every phase, each labelled by Stockfish 15.1 at
depth 12; no Stockfish needed here), those with the side to move not in check and Stockfish's
score within 600 cp and not a mate.  For each network: the correlation of its static
evaluation with Stockfish's centipawns; the factor k that brings k * eval closest to
Stockfish's score in winning chances (lichess's curve, engine/score.py), and that squared gap,
overall and by material (cp_scale_fit.py's phases of engine/score.py's count: endgame up to
29, late middlegame 30-59, middlegame 60 and more).  A lower gap is a network that reads real positions more as Stockfish
does, whatever its own units.  Against the first network, each other's difference of gap with
its 95% interval by a paired bootstrap over the positions (a difference whose interval holds 0
is no difference).

The held-out loss of `scacco train` measures a network against the self-play it learnt from;
this one against an outside reference.  Quiet positions are not required: a position with a
capture pending reads far off for every network alike, which widens the gaps but not their
order.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import chess
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.cp_scale_fit import (LIMIT_CP, PHASES, read_cache,  # noqa: E402
                                winning_chances_array as winning_chances)
from scacco.engine.board import Board  # noqa: E402
from scacco.engine.nnue import read_network  # noqa: E402
from scacco.engine.score import material  # noqa: E402

RESAMPLES = 2000


def positions(cache: Path):
    """(fens, Stockfish cp, material) of the usable positions of the cache."""
    fens, sf, mat = [], [], []
    for record in read_cache(cache):
        if record["sf_mate"] is not None or abs(record["sf_cp"]) > LIMIT_CP:
            continue
        board = chess.Board(record["fen"])
        if board.is_check():
            continue
        fens.append(record["fen"])
        sf.append(record["sf_cp"])
        mat.append(material(board))
    return fens, np.array(sf, dtype=float), np.array(mat)


def best_factor(evaluation, target):
    """(k, per-position squared gap) of the k on a 0.01 grid with the least mean gap."""
    best = None
    for k in np.arange(0.30, 3.00, 0.01):
        gaps = (winning_chances(k * evaluation) - target) ** 2
        if best is None or gaps.mean() < best[1].mean():
            best = (float(k), gaps)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("networks", nargs="+", help="network files (.nnue)")
    parser.add_argument("--cache", default=str(ROOT / "bench" / "quality" / "cp-scale.jsonl"))
    args = parser.parse_args()
    fens, sf, mat = positions(Path(args.cache))
    if len(fens) < 100:
        print(f"{args.cache}: only {len(fens)} usable positions", file=sys.stderr)
        return 1
    target = winning_chances(sf)
    boards = [Board(fen) for fen in fens]
    print(f"{len(fens)} positions of {args.cache} (Stockfish 15.1 depth 12, |cp| <= {LIMIT_CP}, "
          "not in check)")
    header = "".join(f"  {name:>15} {'gap':>7}" for name, _, _ in PHASES)
    print(f"{'network':>40} {'corr':>6} {'k':>5} {'gap':>7}{header}")
    first = None
    rng = np.random.default_rng(20261207)
    samples = rng.integers(0, len(fens), size=(RESAMPLES, len(fens)))
    for path in args.networks:
        network = read_network(path)
        evaluation = np.array([board.network_evaluation(network)[0] for board in boards],
                              dtype=float)
        k, gaps = best_factor(evaluation, target)
        parts = "".join(f"  {f'n={int(((mat >= lo) & (mat <= hi)).sum())}':>15} "
                        f"{gaps[(mat >= lo) & (mat <= hi)].mean():7.5f}" for _, lo, hi in PHASES)
        print(f"{path:>40} {np.corrcoef(evaluation, sf)[0, 1]:6.4f} {k:5.2f} "
              f"{gaps.mean():7.5f}{parts}")
        if first is None:
            first = (path, gaps)
        else:
            difference = gaps - first[1]
            means = difference[samples].mean(axis=1)
            low, high = np.percentile(means, [2.5, 97.5])
            print(f"{'':>40} gap - {first[0]}'s: {difference.mean():+.5f} "
                  f"(95%: {low:+.5f} .. {high:+.5f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
