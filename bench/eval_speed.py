"""Evaluation speed: nanoseconds per call of the C-level evaluate().

Positions come from random games (python-chess) and the shared perft files; each one is
evaluated N times in a nogil loop, so the figure excludes all Python overhead.

    python bench/eval_speed.py [--positions 3000] [--repeat 2000]
"""
import argparse
import random
import sys
import time
from pathlib import Path

import chess

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.shared import shared_dir  # noqa: E402
from scacco.ext._core import CoreBoard, _time_evaluate  # noqa: E402

DATA = shared_dir() / "data"


def positions(count, seed=1):
    fens = []
    for name in ("perft-classic.epd", "perft-random.epd"):
        path = DATA / name
        if path.exists():
            for line in path.read_text().splitlines():
                fen = line.split(";")[0].strip()
                castling = fen.split()[2]
                if fen and (castling == "-" or all(c in "KQkq" for c in castling)):
                    fens.append(fen)
    rng = random.Random(seed)
    while len(fens) < count:
        board = chess.Board()
        for _ in range(rng.randrange(10, 120)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            if rng.random() < 0.1:
                fens.append(board.fen())
    return fens[:count]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=2000)
    args = parser.parse_args()
    boards = []
    for fen in positions(args.positions):
        core = CoreBoard()
        core.set_fen(fen)
        boards.append(core)
    # Warm up caches, then time.
    for core in boards:
        _time_evaluate(core, 10)
    start = time.perf_counter()
    for core in boards:
        _time_evaluate(core, args.repeat)
    elapsed = time.perf_counter() - start
    calls = len(boards) * args.repeat
    print(f"Positions       : {len(boards)}")
    print(f"Evaluations     : {calls}")
    print(f"Total time (ms) : {elapsed * 1000:.0f}")
    print(f"ns/eval         : {elapsed * 1e9 / calls:.1f}")


if __name__ == "__main__":
    main()
