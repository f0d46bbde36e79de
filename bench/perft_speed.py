"""Perft speed: Scacco against Stockfish on the same positions, in the same run.

    python bench/perft_speed.py [--repeat N] [--stockfish PATH]

Runs startpos perft 6 and Kiwipete perft 5 with Scacco's core (bulk counting at the last ply)
and, when Stockfish is installed, `go perft` on the same positions (single thread; Stockfish
also counts the last ply in bulk), then prints nodes per second and the ratio
Scacco / Stockfish.  With --repeat N each measurement is repeated and the fastest run kept,
which makes the figures steadier on a busy machine.  Node counts are checked against the
published values.  Figures are printed, never asserted against a time.
"""
import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scacco.engine import Board  # noqa: E402

POSITIONS = [
    # name, FEN, depth, published node count
    ("startpos", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 6, 119060324),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5,
     193690690),
]
DEFAULT_STOCKFISH = "/usr/games/stockfish"


def time_scacco(fen, depth):
    board = Board(fen)
    start = time.perf_counter()
    nodes = board.perft(depth)
    return nodes, time.perf_counter() - start


class Stockfish:
    """A Stockfish process spoken to over UCI, set to one thread."""

    def __init__(self, path):
        self.process = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, bufsize=1)
        self.send("uci")
        self.name = "Stockfish"
        for line in self.lines_until("uciok"):
            if line.startswith("id name "):
                self.name = line[len("id name "):]
        self.send("setoption name Threads value 1")
        self.send("isready")
        list(self.lines_until("readyok"))

    def send(self, command):
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()

    def lines_until(self, prefix):
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("Stockfish exited unexpectedly")
            line = line.strip()
            yield line
            if line.startswith(prefix):
                return

    def perft(self, fen, depth):
        """Nodes and wall time of `go perft`, measured from the command to its last line."""
        self.send(f"position fen {fen}")
        self.send("isready")
        list(self.lines_until("readyok"))
        start = time.perf_counter()
        self.send(f"go perft {depth}")
        nodes = None
        for line in self.lines_until("Nodes searched"):
            if line.startswith("Nodes searched"):
                nodes = int(line.split(":")[1])
        return nodes, time.perf_counter() - start

    def close(self):
        try:
            self.send("quit")
            self.process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()


def best_of(repeat, run):
    """The fastest of `repeat` runs of run() -> (nodes, seconds)."""
    results = [run() for _ in range(repeat)]
    nodes = {n for n, _ in results}
    if len(nodes) != 1:
        raise RuntimeError(f"node counts differ between runs: {sorted(nodes)}")
    return results[0][0], min(seconds for _, seconds in results)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="runs per measurement, best kept")
    parser.add_argument("--stockfish", default=DEFAULT_STOCKFISH, help="path of the Stockfish binary")
    args = parser.parse_args(argv)

    stockfish_path = args.stockfish if os.path.exists(args.stockfish) else shutil.which("stockfish")
    stockfish = Stockfish(stockfish_path) if stockfish_path else None
    if stockfish is None:
        print(f"Stockfish not found at {args.stockfish} or on PATH: Scacco only")
    else:
        print(f"Stockfish: {stockfish.name} ({stockfish_path}), 1 thread")
    print(f"Best of {args.repeat} run(s) per measurement\n")
    print(f"{'position':<10} {'depth':>5} {'nodes':>11}  {'Scacco s':>9} {'Scacco n/s':>13}"
          + (f"  {'SF s':>7} {'SF n/s':>13}  {'ratio':>6}" if stockfish else ""))

    ok = True
    total = {"scacco": [0, 0.0], "stockfish": [0, 0.0]}
    try:
        for name, fen, depth, expected in POSITIONS:
            nodes, seconds = best_of(args.repeat, lambda: time_scacco(fen, depth))
            ok &= nodes == expected
            total["scacco"][0] += nodes
            total["scacco"][1] += seconds
            line = f"{name:<10} {depth:>5} {nodes:>11}  {seconds:>9.3f} {nodes / seconds:>13,.0f}"
            if stockfish:
                sf_nodes, sf_seconds = best_of(args.repeat, lambda: stockfish.perft(fen, depth))
                ok &= sf_nodes == expected
                total["stockfish"][0] += sf_nodes
                total["stockfish"][1] += sf_seconds
                ratio = (nodes / seconds) / (sf_nodes / sf_seconds)
                line += f"  {sf_seconds:>7.3f} {sf_nodes / sf_seconds:>13,.0f}  {ratio:>5.2f}x"
            print(line)
            if nodes != expected:
                print(f"  WRONG COUNT: Scacco {nodes}, published {expected}")
    finally:
        if stockfish:
            stockfish.close()

    nodes, seconds = total["scacco"]
    summary = f"{'total':<10} {'':>5} {nodes:>11}  {seconds:>9.3f} {nodes / seconds:>13,.0f}"
    if stockfish:
        sf_nodes, sf_seconds = total["stockfish"]
        summary += (f"  {sf_seconds:>7.3f} {sf_nodes / sf_seconds:>13,.0f}  "
                    f"{(nodes / seconds) / (sf_nodes / sf_seconds):>5.2f}x")
    print(summary)
    if stockfish:
        print("\nratio = Scacco nodes/s / Stockfish nodes/s (target of issue 2: at least 0.5x)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
