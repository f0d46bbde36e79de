"""How well do the network and the classical evaluation predict the training targets?

    python bench/nnue_loss.py DATA.bin [DATA.bin ...] --net NET.nnue [--lambda 0.75] [--limit N]

On the validation positions of the data (every 20th game, as engine/training/nnue_train.py holds them
out; never trained on) it prints the trainer's loss, the mean squared error between
sigmoid(eval / 400) and lambda * sigmoid(score / 400) + (1 - lambda) * (result + 1) / 2, for the
network's static evaluation (the integer net in the engine) and for the classical static
evaluation, and the mean absolute difference in centipawns between each and the search score.
Needs numpy only.
"""
import argparse
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from scacco.engine.board import Board  # noqa: E402
from scacco.engine.training.datagen import read_positions  # noqa: E402
from scacco.engine.evaluation import evaluate  # noqa: E402
from scacco.engine.nnue import SCALE, read_network  # noqa: E402
from scacco.engine.training.nnue_train import MAX_SCORE, VALIDATION_EVERY  # noqa: E402


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="+")
    parser.add_argument("--net", required=True)
    parser.add_argument("--lambda", dest="lam", type=float, default=0.75)
    parser.add_argument("--limit", type=int, default=0, help="at most this many positions")
    args = parser.parse_args()
    network = read_network(args.net)
    totals = {"network": [0.0, 0.0], "classical": [0.0, 0.0]}
    count = 0
    for path in args.data:
        for position in read_positions(path):
            if position.game_index % VALIDATION_EVERY or abs(position.score) > MAX_SCORE:
                continue
            board = Board(position.fen, chess960=position.chess960)
            target = (args.lam * sigmoid(position.score / SCALE)
                      + (1 - args.lam) * (position.result + 1) / 2)
            for kind, value in (("network", board.network_evaluation(network)[0]),
                                ("classical", evaluate(board))):
                totals[kind][0] += (sigmoid(value / SCALE) - target) ** 2
                totals[kind][1] += abs(value - position.score)
            count += 1
            if args.limit and count >= args.limit:
                break
        if args.limit and count >= args.limit:
            break
    print(f"{count} validation positions (every {VALIDATION_EVERY}th game, |score| <= {MAX_SCORE}), "
          f"lambda {args.lam}")
    for kind, (loss, cp) in totals.items():
        print(f"{kind:>9}: loss {loss / max(1, count):.6f}, mean |eval - search score| "
              f"{cp / max(1, count):.0f} cp")
    return 0


if __name__ == "__main__":
    sys.exit(main())
