"""How exactly `go movetime` is kept: when `bestmove` comes, against T.

    python bench/movetime_accuracy.py [--movetimes 1000 3000] [--runs N]
                                      [--engine CMD] [--stockfish PATH | --no-stockfish]

Movetime: on five positions (the start position, Kiwipete, perft position 3, perft position 5
and Steven Edwards' middlegame), `ucinewgame`, `position fen ...`, `isready`, then `go movetime
T`; prints when `bestmove` came, in ms after `go` was sent, and its distance from T.  The goal:
every figure within 2% of T (the engine's own safety margin included).  Stockfish, when
installed, runs the same searches in the same run.

Times are wall-clock as seen from this process, so a busy machine inflates them.
"""
import argparse
import os
import shlex
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from uci_latency import Engine  # noqa: E402  (the process wrapper of the latency bench)

POSITIONS = [
    ("start position", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
    ("Kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
    ("perft 3 (rook endgame)", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"),
    ("perft 5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8"),
    ("Edwards middlegame", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10"),
]
STOCKFISH = "/usr/games/stockfish"
TOLERANCE = 0.02


class PingedEngine(Engine):
    """An engine whose `isready`s are all counted: the k-th `readyok` answers the k-th
    `isready`, so every answer time is known."""

    def __init__(self, command):
        self.ready_sent = []
        self.ready_received = []
        self._ready_changed = threading.Condition()
        self._send_lock = threading.Lock()
        super().__init__(command)

    def _pump(self):
        for line in self.proc.stdout:
            stamp, line = time.perf_counter(), line.strip()
            if line == "readyok":
                with self._ready_changed:
                    self.ready_received.append(stamp)
                    self._ready_changed.notify_all()
            else:
                self.lines.put((stamp, line))

    def send(self, text):
        """Send a line; returns the time just before it was written (an answer can arrive
        before the write call returns)."""
        with self._send_lock:
            stamp = time.perf_counter()
            super().send(text)
            if text == "isready":
                self.ready_sent.append(stamp)
        return stamp

    def ready(self, timeout=120):
        """Send isready and wait for its readyok; returns (sent, received)."""
        with self._send_lock:
            sent = time.perf_counter()
            super().send("isready")
            self.ready_sent.append(sent)
            index = len(self.ready_sent) - 1
        with self._ready_changed:
            if not self._ready_changed.wait_for(lambda: len(self.ready_received) > index, timeout):
                raise TimeoutError("no readyok")
            return sent, self.ready_received[index]

    def bestmove(self, command, timeout=300):
        """Send a go command; (sent, bestmove stamp, last info line with nodes)."""
        sent = self.send(command)
        last_info = ""
        while True:
            stamp, line = self.lines.get(timeout=timeout)
            if line.startswith("info") and " nodes " in line:
                last_info = line
            if line.startswith("bestmove"):
                return sent, stamp, last_info


def info_field(info, name):
    words = info.split()
    return words[words.index(name) + 1] if name in words else "?"


def start(command):
    engine = PingedEngine(command)
    engine.send("uci")
    engine.wait_for("uciok")
    engine.ready()
    return engine


def movetime_table(name, command, movetimes, runs):
    print(f"\n## go movetime: {name} ({' '.join(command)})\n")
    print("| position | T (ms) | bestmove after (ms) | vs T | depth | within 2% |")
    print("|---|---|---|---|---|---|")
    engine = start(command)
    worst = 0.0
    try:
        for movetime in movetimes:
            for label, fen in POSITIONS:
                for _ in range(runs):
                    engine.send("ucinewgame")
                    engine.send(f"position fen {fen}")
                    engine.ready()
                    sent, stamp, info = engine.bestmove(f"go movetime {movetime}")
                    elapsed = (stamp - sent) * 1000
                    off = elapsed / movetime - 1
                    worst = max(worst, abs(off))
                    print(f"| {label} | {movetime} | {elapsed:.1f} | {100 * off:+.2f}% | "
                          f"{info_field(info, 'depth')} | {'yes' if abs(off) <= TOLERANCE else 'NO'} |",
                          flush=True)
    finally:
        engine.close()
    print(f"\nworst distance from T: {100 * worst:.2f}%")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--movetimes", type=int, nargs="+", default=[1000, 3000])
    parser.add_argument("--runs", type=int, default=1, help="searches per position and T")
    parser.add_argument("--engine", default=None, help="engine command (default: python -m scacco)")
    parser.add_argument("--stockfish", default=STOCKFISH)
    parser.add_argument("--no-stockfish", action="store_true")
    args = parser.parse_args()
    command = shlex.split(args.engine) if args.engine else [sys.executable, "-m", "scacco"]
    engines = [("Scacco", command)]
    if not args.no_stockfish and os.path.exists(args.stockfish):
        engines.append(("Stockfish", [args.stockfish]))
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for name, cmd in engines:
        movetime_table(name, cmd, args.movetimes, args.runs)
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
