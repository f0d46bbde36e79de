"""In what units were the scores of `scacco datagen` files searched?

    python bench/score_units.py FIRST.bin [OTHER.bin ...] [--limit 40000] [--net NET.nnue]

A file scored by the classical search and one scored by a network's search hold the same
kind of positions, but a network trained on targets blended with the game result reads
larger than the search it learnt from, and so does its search.  The classical static
evaluation is a fixed ruler for all of them: for each file this prints k, the least-squares
factor of score ~ k * eval over its first --limit positions whose score and eval are both
within 1000 cp, and k divided by the first file's k, which is the factor by which that
file's scores are larger.  `scacco train ... --score-factor FILE=F`
with F = 1 / that ratio puts the file on the first one's scale.  With --net the same is
printed for that network's static evaluation (its own k on each file: 1 means the net reads
in that file's units; nnue_train --calibrate-scale fits its scale so).
"""
import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from scacco.engine.board import Board  # noqa: E402
from scacco.engine.training.datagen import read_positions  # noqa: E402
from scacco.engine.evaluation import evaluate  # noqa: E402
from scacco.engine.nnue import read_network  # noqa: E402

LIMIT_CP = 1000


def factor(pairs) -> float:
    """k minimising sum (score - k * eval)^2."""
    num = sum(s * e for s, e in pairs)
    den = sum(e * e for _, e in pairs)
    return num / den if den else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="+")
    parser.add_argument("--limit", type=int, default=40000, help="positions per file (default 40000)")
    parser.add_argument("--net", help="a network file to measure as well")
    args = parser.parse_args()
    network = read_network(args.net) if args.net else None
    first = None
    for path in args.data:
        classical, net = [], []
        seen = 0
        for position in read_positions(path):
            if abs(position.score) > LIMIT_CP:
                continue
            board = Board(position.fen, chess960=position.chess960)
            value = evaluate(board)
            if abs(value) <= LIMIT_CP:
                classical.append((position.score, value))
            if network is not None:
                value = board.network_evaluation(network)[0]
                if abs(value) <= LIMIT_CP:
                    net.append((position.score, value))
            seen += 1
            if seen % 10000 == 0:
                print(f"{path}: {seen} positions", file=sys.stderr, flush=True)
            if seen >= args.limit:
                break
        k = factor(classical)
        first = k if first is None else first
        line = (f"{path}: {len(classical)} positions, score ~ {k:.3f} x classical eval, "
                f"{k / first:.3f} x the first file's units (--score-factor {first / k:.3f})")
        if network is not None:
            line += f"; score ~ {factor(net):.3f} x {args.net}'s eval"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
