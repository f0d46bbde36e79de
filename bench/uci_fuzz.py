"""A long fuzz run of the UCI engine: random and mutated command lines, stops at random
moments, and an `isready` every few lines whose answer time is measured.

    python bench/uci_fuzz.py [--lines 100000] [--seed 1] [--engine "scacco"]

Prints, at the end: lines sent, searches started, bestmoves received, the isready latencies
(median, 99th percentile, maximum, and how many took over 100 ms), and every failure seen:
a traceback or `search failed` / `internal error` line, a hang (no readyok within 10 s), a
bestmove that is not legal in the position its search was given (checked with python-chess),
or a search that never answered.  Exit status 1 when anything failed.  Progress on stderr.
"""
from __future__ import annotations

import argparse
import queue
import random
import shlex
import statistics
import subprocess
import sys
import threading
import time

import chess

FENS = [
    chess.STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
    "8/8/8/8/8/8/8/K6k w - - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",
    "8/4k3/8/8/8/3K4/8/2R5 w - - 75 1",
    "7k/8/6K1/8/8/8/8/R7 b - - 0 1",
]
OPTIONS = ["Hash value 1", "Hash value 32", "MultiPV value 3", "MultiPV value 1",
           "UCI_LimitStrength value true", "UCI_LimitStrength value false", "UCI_Elo value 600",
           "Skill Level value 3", "Skill Level value 20", "Move Overhead value 0", "Clear Hash",
           "UCI_Chess960 value true", "UCI_Chess960 value false", "Threads value 1",
           "Hash value -5", "Nonexistent value 3", "MultiPV value x"]


class Engine:
    """The engine process with a reader thread; lines are queued with their arrival time."""

    def __init__(self, command):
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.lines: "queue.Queue" = queue.Queue()
        self.stderr: list = []
        self.log: list = []        # lines sent and received, in about the order they passed
        threading.Thread(target=self._pump, daemon=True).start()
        threading.Thread(target=lambda: self.stderr.extend(self.proc.stderr), daemon=True).start()

    def _pump(self):
        for raw in self.proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            self.log.append("< " + line)
            self.lines.put((time.monotonic(), line))
        self.lines.put((time.monotonic(), None))

    def send(self, text: str) -> float:
        self.log.append("> " + text)
        self.proc.stdin.write((text + "\n").encode("utf-8", "replace"))
        self.proc.stdin.flush()
        return time.monotonic()


def random_line(rng: random.Random, board: chess.Board) -> str:
    kind = rng.random()
    if kind < 0.18:
        fen = rng.choice(FENS)
        moves = []
        probe = chess.Board(fen)
        for _ in range(rng.randrange(0, 6)):
            legal = list(probe.legal_moves)
            if not legal:
                break
            move = rng.choice(legal)
            moves.append(move.uci())
            probe.push(move)
        if rng.random() < 0.1:
            moves.append(rng.choice(["e2e5", "a1a1", "zz", "e7e8q"]))
        head = "startpos" if fen == chess.STARTING_FEN and rng.random() < 0.5 else f"fen {fen}"
        return f"position {head}" + (" moves " + " ".join(moves) if moves else "")
    if kind < 0.45:
        limit = rng.choice([
            f"depth {rng.randrange(1, 30)}", f"nodes {rng.randrange(1, 300000)}",
            f"movetime {rng.randrange(0, 300)}", f"mate {rng.randrange(-3, 1001)}",
            f"wtime {rng.randrange(-50, 3000)} btime {rng.randrange(-50, 3000)} winc 10 binc 10",
            "infinite", "ponder", f"perft {rng.randrange(1, 12)}", "",
            f"movetime {rng.randrange(50, 300)} mate {rng.randrange(1, 300)}",
            f"searchmoves e2e4 d2d4 zz depth {rng.randrange(1, 8)}",
        ])
        return f"go {limit}".strip()
    if kind < 0.62:
        return "stop"
    if kind < 0.68:
        return "ponderhit"
    if kind < 0.78:
        return f"setoption name {rng.choice(OPTIONS)}"
    if kind < 0.82:
        return rng.choice(["ucinewgame", "bench 1", f"bench {rng.randrange(1, 40)}", "d", "eval"])
    if kind < 0.90:
        words = rng.choice(["go depth 3", "position startpos moves e2e4", "setoption name Hash value 8"]).split()
        rng.shuffle(words)
        return " ".join(words)
    return "".join(chr(rng.randrange(32, 127)) for _ in range(rng.randrange(0, 40)))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=100000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--engine", default=None, help="engine command (default: python -m scacco)")
    parser.add_argument("--ready-every", type=int, default=20, help="an isready every N lines")
    args = parser.parse_args(argv)
    command = shlex.split(args.engine) if args.engine else [sys.executable, "-m", "scacco"]
    rng = random.Random(args.seed)
    engine = Engine(command)
    failures, latencies = [], []
    pending = []           # fens of the searches started, oldest first
    counts = {"searches": 0, "bestmoves": 0}

    def read(until=None, timeout=10.0):
        """The lines that arrived (all there are now; or up to the one `until` accepts)."""
        got = []
        deadline = time.monotonic() + timeout
        while True:
            try:
                if until is None:
                    at, line = engine.lines.get_nowait()
                else:
                    at, line = engine.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                if until is not None:
                    failures.append(f"hang: nothing for {timeout} s (after {got[-3:]})")
                return got
            if line is None:
                failures.append("engine output ended")
                return got
            got.append((at, line))
            if until is not None and until(line):
                return got

    def process(got):
        for _, line in got:
            if any(mark in line for mark in ("search failed", "internal error", "Traceback")):
                failures.append(line)
            if not line.startswith("bestmove"):
                continue
            counts["bestmoves"] += 1
            if not pending:
                failures.append(f"a bestmove no search asked for: {line}; recent: {engine.log[-30:]}")
                continue
            fen, move = pending.pop(0), line.split()[1]
            fits = []
            for chess960 in (False, True):
                probe = chess.Board(fen, chess960=chess960)
                fits.append(not any(probe.legal_moves) if move == "0000"
                            else chess.Move.from_uci(move) in probe.legal_moves)
            if not any(fits):
                failures.append(f"illegal {line} in {fen}; recent: {engine.log[-30:]}")

    def ready():
        sent = engine.send("isready")
        got = read(lambda line: line == "readyok")
        if got and got[-1][1] == "readyok":
            latencies.append(got[-1][0] - sent)
        return got

    start = time.monotonic()
    number = 0
    for number in range(1, args.lines + 1):
        line = random_line(rng, None)
        if line.split()[:1] == ["go"]:
            process(ready())       # everything earlier is read: what follows answers this go
            engine.send("d")
            got = read(lambda text: text.startswith("Fen: "))
            process(got)
            fen = got[-1][1][5:] if got and got[-1][1].startswith("Fen: ") else chess.STARTING_FEN
            engine.send(line)
            got = ready()
            refused = any(" ignored" in text for _, text in got)
            if not refused and line.split()[1:2] != ["perft"]:
                pending.append(fen)
                counts["searches"] += 1
            process(got)
        else:
            engine.send(line)
            process(ready() if number % args.ready_every == 0 else read())
        if number % 1000 == 0:
            rate = number / (time.monotonic() - start)
            print(f"{number}/{args.lines} lines, {rate:.0f}/s, {counts['searches']} searches, "
                  f"{len(failures)} failures, ~{(args.lines - number) / rate:.0f} s left",
                  file=sys.stderr, flush=True)
        if engine.proc.poll() is not None:
            failures.append(f"engine exited with {engine.proc.returncode}")
            break
    engine.send("stop")
    deadline = time.monotonic() + 10
    while pending and time.monotonic() < deadline:
        process(read(lambda text: text.startswith("bestmove"), timeout=max(0.1, deadline - time.monotonic())))
    if pending:
        failures.append(f"{len(pending)} searches never answered")
    engine.send("quit")
    try:
        engine.proc.wait(5)
    except subprocess.TimeoutExpired:
        failures.append("quit did not end the engine within 5 s")
        engine.proc.kill()
    time.sleep(0.2)
    if any(b"Traceback" in raw for raw in engine.stderr):
        failures.append("traceback on stderr: " + b"".join(engine.stderr).decode()[-2000:])
    latencies.sort()
    print(f"lines sent: {number}; searches started: {counts['searches']}; bestmoves: {counts['bestmoves']}")
    if latencies:
        print(f"isready answered {len(latencies)} times: median {statistics.median(latencies) * 1000:.1f} ms, "
              f"99th percentile {latencies[max(0, int(len(latencies) * 0.99) - 1)] * 1000:.1f} ms, "
              f"max {latencies[-1] * 1000:.1f} ms, over 100 ms: {sum(1 for x in latencies if x > 0.1)}")
    print(f"failures: {len(failures)}")
    for failure in failures[:50]:
        print("  " + failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
