"""How exactly `go movetime` is kept, and how quickly a large Hash is ready and the engine answers.

    python bench/movetime_accuracy.py [--movetimes 1000 3000] [--runs N] [--hash 1024 8192]
                                      [--engine CMD] [--stockfish PATH | --no-stockfish]
                                      [--skip-movetime] [--skip-hash]

Movetime: on five positions (the start position, Kiwipete, perft position 3, perft position 5
and Steven Edwards' middlegame), `ucinewgame`, `position fen ...`, `isready`, then `go movetime
T`; prints when `bestmove` came, in ms after `go` was sent, and its distance from T.  The goal:
every figure within 2% of T (the engine's own safety margin included).

Hash: a fresh engine for each size MB, with `isready` sent every 10 ms from a second thread all
the time (its worst answer time is printed for each phase; "-" when the phase was over before
the next ping), then
  * `setoption name Hash value MB` and at once `isready`: ms from the setoption to `readyok`;
  * `go depth 1` right after it: ms from the setoption to its `bestmove` (the table is in use);
  * three `go movetime 1000`: the depth each reached (the first searches on a new table may run
    while the OS is still supplying its pages);
  * in memory: ms from the setoption until the engine's resident memory (Linux /proc) holds the
    table (97% of MB), waited for if need be: for Stockfish that is its readyok, for Scacco the
    end of the table's background warm-up;
  * `ucinewgame` and `go depth 1`: ms from the ucinewgame to that bestmove (the table was
    cleared before it);
  * `setoption name Hash value 16` and `go depth 1`: ms from the setoption to that bestmove
    (the big table was given back).
Stockfish, when installed, runs the same sequences in the same run, one engine at a time.

Clearing (in this process, through the installed package): for each size, once the table is in
memory, a 1 s search and then a clear timed with one C thread and with CLEAR_THREADS.
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
PING_INTERVAL_S = 0.010


class PingedEngine(Engine):
    """An engine whose `isready`s are all counted: the k-th `readyok` answers the k-th
    `isready`, so every answer time is known, also for pings sent while the engine is busy."""

    def __init__(self, command):
        self.ready_sent = []
        self.ready_received = []
        self._ready_changed = threading.Condition()
        self._send_lock = threading.Lock()
        self._pinging = None
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

    def start_pinging(self):
        stop = threading.Event()

        def ping():
            while not stop.wait(PING_INTERVAL_S):
                self.send("isready")
        thread = threading.Thread(target=ping, daemon=True)
        thread.start()
        self._pinging = (stop, thread)

    def stop_pinging(self):
        stop, thread = self._pinging
        stop.set()
        thread.join()
        self.ready()                      # every ping sent so far has its answer

    def worst_ping_ms(self, since, until):
        """The longest answer time of the isready pings sent in [since, until)."""
        with self._ready_changed:
            pairs = list(zip(self.ready_sent, self.ready_received))
        latencies = [(received - sent) * 1000 for sent, received in pairs if since <= sent < until]
        return max(latencies) if latencies else None, len(latencies)

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


def start(command, hash_mb=None):
    engine = PingedEngine(command)
    engine.send("uci")
    engine.wait_for("uciok")
    if hash_mb is not None:
        engine.send(f"setoption name Hash value {hash_mb}")
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


def available_mb():
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return None


def resident_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return None


class ResidentWatch:
    """Notes when a process's resident memory first reaches a size (polled every 10 ms)."""

    def __init__(self, pid, mb):
        self.reached = None
        self._stop = threading.Event()

        def watch():
            while not self._stop.wait(0.010):
                rss = resident_mb(pid)
                if rss is None:
                    return
                if rss >= mb:
                    self.reached = time.perf_counter()
                    return
        self._thread = threading.Thread(target=watch, daemon=True)
        self._thread.start()

    def wait(self, timeout):
        self._thread.join(timeout)
        self._stop.set()
        return self.reached


def hash_row(name, command, mb):
    """One engine, one size: the phases described in the module docstring."""
    engine = start(command)
    try:
        engine.send("position startpos")
        engine.ready()
        engine.start_pinging()
        watch = ResidentWatch(engine.proc.pid, int(0.97 * mb))
        t_set = engine.send(f"setoption name Hash value {mb}")
        _, t_ready = engine.ready(timeout=600)
        _, t_first, _ = engine.bestmove("go depth 1", timeout=600)
        alloc_ping = engine.worst_ping_ms(t_set, t_first)
        depths = []
        for _ in range(3):
            _, _, info = engine.bestmove("go movetime 1000")
            depths.append(info_field(info, "depth"))
        depths = " / ".join(depths)
        t_resident = watch.wait(300)
        t_new = engine.send("ucinewgame")
        _, t_cleared, _ = engine.bestmove("go depth 1", timeout=600)
        clear_ping = engine.worst_ping_ms(t_new, t_cleared)
        t_shrink = engine.send("setoption name Hash value 16")
        _, t_shrunk, _ = engine.bestmove("go depth 1", timeout=600)
        release_ping = engine.worst_ping_ms(t_shrink, t_shrunk)
        engine.stop_pinging()
    finally:
        engine.close()
    ms = lambda a, b: f"{(b - a) * 1000:.0f}" if b is not None else "?"
    worst = lambda ping: f"{ping[0]:.0f}" if ping[0] is not None else "-"   # -: no ping in time
    print(f"| {name} | {mb} | {ms(t_set, t_ready)} | {ms(t_set, t_first)} | {worst(alloc_ping)} | "
          f"{depths} | {ms(t_set, t_resident)} | {ms(t_new, t_cleared)} | {worst(clear_ping)} | "
          f"{ms(t_shrink, t_shrunk)} | {worst(release_ping)} |", flush=True)


def hash_table(engines, sizes):
    print("\n## Hash: ms from the command, and the worst isready answer (ms) meanwhile\n")
    print("| engine | Hash MB | readyok | first go depth 1 done | worst isready | depth of the "
          "next three 1 s searches | table in memory | ucinewgame -> go depth 1 done | worst "
          "isready | Hash 16 -> go depth 1 done | worst isready |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for mb in sizes:
        for name, command in engines:
            free = available_mb()
            if free is not None and free < mb + 2048:
                print(f"| {name} | {mb} | skipped: only {free} MB available |")
                continue
            hash_row(name, command, mb)


def clear_table(sizes):
    from scacco import Board, Searcher
    from scacco.engine.search import CLEAR_THREADS
    print("\n## Clearing a table in memory after a 1 s search (in-process), ms\n")
    print(f"| Hash MB | 1 thread | {CLEAR_THREADS} threads |")
    print("|---|---|---|")
    for mb in sizes:
        free = available_mb()
        if free is not None and free < mb + 2048:
            print(f"| {mb} | skipped: only {free} MB available | |")
            continue
        searcher = Searcher(mb)
        deadline = time.monotonic() + 300
        while not searcher.table_in_memory and time.monotonic() < deadline:
            time.sleep(0.05)
        if not searcher.table_in_memory:
            print(f"| {mb} | the table was not in memory after 300 s | |")
            continue
        figures = []
        for threads in (1, CLEAR_THREADS):
            searcher.search(Board(), movetime=1000)
            start = time.perf_counter()
            searcher._core.clear_table(threads)
            figures.append(f"{(time.perf_counter() - start) * 1000:.0f}")
        print(f"| {mb} | {figures[0]} | {figures[1]} |", flush=True)
        del searcher


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--movetimes", type=int, nargs="+", default=[1000, 3000])
    parser.add_argument("--runs", type=int, default=1, help="searches per position and T")
    parser.add_argument("--hash", type=int, nargs="+", default=[1024, 8192])
    parser.add_argument("--engine", default=None, help="engine command (default: python -m scacco)")
    parser.add_argument("--stockfish", default=STOCKFISH)
    parser.add_argument("--no-stockfish", action="store_true")
    parser.add_argument("--skip-movetime", action="store_true")
    parser.add_argument("--skip-hash", action="store_true")
    args = parser.parse_args()
    command = shlex.split(args.engine) if args.engine else [sys.executable, "-m", "scacco"]
    engines = [("Scacco", command)]
    if not args.no_stockfish and os.path.exists(args.stockfish):
        engines.append(("Stockfish", [args.stockfish]))
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if not args.skip_movetime:
        for name, cmd in engines:
            movetime_table(name, cmd, args.movetimes, args.runs)
    if not args.skip_hash:
        hash_table(engines, args.hash)
        clear_table(args.hash)
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
