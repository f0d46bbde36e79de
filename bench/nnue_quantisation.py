"""How far is the integer network from the float network it was quantised from?

    python bench/nnue_quantisation.py NET.nnue [--floats NET.nnue.npz]

Over the 500 shared perft positions (400 standard, 100 Chess960) and the start position it
prints the mean, 95th percentile and largest absolute difference, in centipawns, between the
engine's integer output and a numpy float forward pass of the trainer's float weights
(NET.nnue.npz, written beside the net by engine/training/nnue_train.py), and the same against the
dequantised weights of the file itself (what is left is the integer arithmetic's rounding).
"""
import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from scacco.engine import nnue  # noqa: E402
from scacco.engine.board import Board  # noqa: E402
from tests.shared import shared_dir  # noqa: E402


def positions():
    out = [Board()]
    for line in (shared_dir() / "data" / "perft-random.epd").read_text().splitlines():
        if not line.strip():
            continue
        fen = line.split(";")[0].strip()
        chess960 = any(ch in "abcdefghABCDEFGH" for ch in fen.split()[2])
        out.append(Board(fen, chess960=chess960))
    return out


def summary(errors) -> str:
    errors = np.abs(np.asarray(errors))
    return (f"mean {errors.mean():.1f} cp, 95th percentile {np.percentile(errors, 95):.1f} cp, "
            f"largest {errors.max():.1f} cp")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("net")
    parser.add_argument("--floats", help="float weights (default NET.npz)")
    args = parser.parse_args()
    data = Path(args.net).read_bytes()
    network = nnue.parse_network(data, args.net)
    floats = dict(np.load(args.floats or args.net + ".npz"))
    dequantised = nnue.dequantise(data)
    scale = network.constants[2]            # the header's centipawns per unit of output
    float_errors, integer_errors, sizes = [], [], []
    boards = positions()
    for board in boards:
        _, output = board.network_evaluation(network)
        us, them = nnue.board_features(board)
        reference = nnue.float_output(floats, us, them, scale)
        float_errors.append(output - reference)
        integer_errors.append(output - nnue.float_output(dequantised, us, them, scale))
        sizes.append(abs(reference))
    print(f"{args.net}: {network.hidden} hidden units, scale {scale}, {len(boards)} positions, "
          f"mean |float output| {np.mean(sizes):.0f} cp")
    print(f"integer net vs float net (trainer's weights): {summary(float_errors)}")
    print(f"integer net vs its own dequantised weights:   {summary(integer_errors)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
