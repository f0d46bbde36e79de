"""How quickly the UCI engine answers: startup, isready during a search, stop, movetime.

    python bench/uci_latency.py [--runs N] [--engine "scacco"] [--threads T]

Prints, over N runs, the median and the worst of:
  * startup: process start to `uciok` (GUIs give up on slow starters; the goal is < 300 ms);
  * isready: `isready` sent during a search to `readyok`;
  * stop: `stop` sent during an infinite search to `bestmove` (the goal is < 20 ms);
  * movetime: `go movetime T` to `bestmove`, minus T (the goal is < 20 ms).
With --threads T the searches run with `setoption name Threads value T` (the stop must reach
every thread).  Times are wall-clock as seen from this process, so a busy machine inflates
them.
"""
import argparse
import os
import queue
import shlex
import statistics
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Engine:
    def __init__(self, command):
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1)
        self.lines = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for line in self.proc.stdout:
            self.lines.put((time.perf_counter(), line.strip()))

    def send(self, text):
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()
        return time.perf_counter()

    def wait_for(self, prefix, timeout=30):
        while True:
            stamp, line = self.lines.get(timeout=timeout)
            if line.startswith(prefix):
                return stamp

    def close(self):
        self.send("quit")
        self.proc.wait(10)


def summary(name, values_ms, goal=None):
    values_ms = sorted(values_ms)
    goal_text = f"   (goal < {goal} ms)" if goal else ""
    print(f"{name:<10} median {statistics.median(values_ms):7.1f} ms   worst {values_ms[-1]:7.1f} ms"
          f"{goal_text}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--engine", default=None, help="engine command (default: python -m scacco)")
    parser.add_argument("--movetime", type=int, default=200)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    command = shlex.split(args.engine) if args.engine else [sys.executable, "-m", "scacco"]

    startup, ready, stop, movetime = [], [], [], []
    for _ in range(args.runs):
        engine = Engine(command)
        engine.send("uci")
        startup.append((engine.wait_for("uciok") - engine.started) * 1000)
        if args.threads != 1:
            engine.send(f"setoption name Threads value {args.threads}")
        engine.send("isready")
        engine.wait_for("readyok")
        engine.send("position startpos moves e2e4 e7e5 g1f3 b8c6")
        engine.send("go infinite")
        time.sleep(0.3)
        sent = engine.send("isready")
        ready.append((engine.wait_for("readyok") - sent) * 1000)
        sent = engine.send("stop")
        stop.append((engine.wait_for("bestmove") - sent) * 1000)
        sent = engine.send(f"go movetime {args.movetime}")
        movetime.append((engine.wait_for("bestmove") - sent) * 1000 - args.movetime)
        engine.close()

    print(f"{args.runs} runs of {' '.join(command)} with {args.threads} thread(s); load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores")
    summary("startup", startup, 300)
    summary("isready", ready)
    summary("stop", stop, 20)
    summary("movetime", movetime, 20)


if __name__ == "__main__":
    main()
