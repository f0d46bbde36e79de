"""A small UCI client for the subprocess tests: starts `python -m scacco`, sends lines, and
waits for answers with generous timeouts (they catch hangs; they are not speed tests)."""
from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from typing import Callable, List, Optional

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENGINE_COMMAND = [sys.executable, "-m", "scacco"]
HANG_TIMEOUT = 20.0


class UciProcess:
    """The engine as a child process; every output line goes into a queue as it arrives."""

    def __init__(self, preexec_fn: Optional[Callable[[], None]] = None) -> None:
        """preexec_fn runs in the child before the engine starts (POSIX: resource limits)."""
        self.proc = subprocess.Popen(ENGINE_COMMAND, cwd=ROOT, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     preexec_fn=preexec_fn)
        self.lines: "queue.Queue[Optional[str]]" = queue.Queue()
        self.transcript: List[str] = []
        self.stderr_lines: List[str] = []
        self._fences = 0                  # fence markers sent so far
        threading.Thread(target=self._pump, daemon=True).start()
        threading.Thread(target=self._pump_stderr, daemon=True).start()

    def _pump(self) -> None:
        for raw in self.proc.stdout:
            self.lines.put(raw.decode("utf-8", errors="replace").rstrip("\r\n"))
        self.lines.put(None)

    def _pump_stderr(self) -> None:
        for raw in self.proc.stderr:
            self.stderr_lines.append(raw.decode("utf-8", errors="replace"))

    def send(self, text, raw: bool = False) -> None:
        data = text if raw else (text + "\n").encode("utf-8")
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def next_line(self, timeout: float = HANG_TIMEOUT) -> Optional[str]:
        line = self.lines.get(timeout=timeout)
        if line is not None:
            self.transcript.append(line)
        return line

    def read_until(self, done: Callable[[str], bool], timeout: float = HANG_TIMEOUT) -> List[str]:
        """Lines up to and including the first for which done(line) holds.

        :raises AssertionError: on end of output or timeout, with the transcript.
        """
        deadline = time.monotonic() + timeout
        seen = []
        while True:
            remaining = deadline - time.monotonic()
            try:
                line = self.next_line(max(0.0, remaining))
            except queue.Empty:
                raise AssertionError(f"no answer within {timeout}s; got {seen[-20:]}") from None
            if line is None:
                raise AssertionError(f"engine output ended; got {seen[-20:]}; "
                                     f"stderr {''.join(self.stderr_lines)[-2000:]}")
            seen.append(line)
            if done(line):
                return seen

    def ask(self, command: str, answer: str, timeout: float = HANG_TIMEOUT) -> List[str]:
        """Send a command, return the lines up to the one that starts with `answer`."""
        self.send(command)
        return self.read_until(lambda line: line.split()[:1] == answer.split()[:1]
                               and line.startswith(answer), timeout)

    def sync(self) -> List[str]:
        """Everything printed before the answer to an isready sent now."""
        return self.ask("isready", "readyok")[:-1]

    def fence(self) -> List[str]:
        """Like sync, but safe when the lines sent before held isready of their own (their
        readyok would end a plain sync early and leave ours to be read as the next answer):
        an unknown command with a fresh number goes first, and the readyok that counts is
        the one after the engine has said it does not know that command."""
        self._fences += 1
        marker = f"fence-{os.getpid()}-{self._fences}"
        self.send(marker)
        before = self.read_until(lambda line: line.endswith("unknown command: " + marker))
        return before[:-1] + self.sync()

    def bestmove(self, command: str, timeout: float = HANG_TIMEOUT) -> List[str]:
        return self.ask(command, "bestmove", timeout)

    def close(self) -> int:
        if self.proc.poll() is None:
            try:
                self.send("quit")
            except (BrokenPipeError, OSError):
                pass
        try:
            return self.proc.wait(HANG_TIMEOUT)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
                try:
                    stream.close()
                except OSError:
                    pass

    def __enter__(self) -> "UciProcess":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def infos(lines: List[str]) -> List[str]:
    return [line for line in lines if line.startswith("info string")]
