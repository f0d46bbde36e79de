"""Time of `scacco hint` at the default budget: engine.trainer.hints.game_hint on the 40 bench
positions (engine/signature.py) and the first puzzle positions of the shipped collection.

    python bench/hint_speed.py [--puzzles 40]

Prints the median, the 90th percentile and the slowest time (wall clock, and this process's
CPU time, which a busy machine does not inflate; one fresh searcher per position, as the
command has), and the slowest position; the command's process start (importing and building
the core's tables) comes on top.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scacco.engine.signature import BENCH_FENS  # noqa: E402
from scacco.engine.board import Board  # noqa: E402
from scacco.engine.trainer.daily import load_collection  # noqa: E402
from scacco.engine.trainer.hints import HINT_NODES, game_hint  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--puzzles", type=int, default=40)
    args = parser.parse_args()
    fens = list(BENCH_FENS)
    for puzzle in load_collection()[:args.puzzles]:
        board = Board(puzzle.fen)
        board.push_uci(puzzle.moves[0])
        fens.append(board.fen())
    times = []
    for fen in fens:
        board = Board(fen)
        if not board.has_legal_moves():
            continue
        start, cpu = time.perf_counter(), time.process_time()
        hint = game_hint(board)
        times.append((time.perf_counter() - start, time.process_time() - cpu, fen, hint.san))
    for label, index in (("wall clock", 0), ("CPU time", 1)):
        times.sort(key=lambda t: t[index])
        seconds = [t[index] for t in times]
        p90 = seconds[int(0.9 * (len(seconds) - 1))]
        print(f"{len(seconds)} positions at {HINT_NODES} nodes, {label}: median "
              f"{statistics.median(seconds):.3f} s, 90th percentile {p90:.3f} s, slowest "
              f"{seconds[-1]:.3f} s ({times[-1][2]}: {times[-1][3]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
